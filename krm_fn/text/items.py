"""What the reader (krm_fn/text/reader.py) makes: items that keep the exact region of source text they came
from, their node and Python data built only when a stage asks (`Item.node`, `Item.data`), and the
ResourceList and the stream around them.
"""

import bisect
import codecs
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

import yaml

from . import go_scalars, krm, tree, yamlio
from .refusals import DOUBLED_BOM, after_separator
from .identity import Identity, of_node
# The node helpers live in tree; re-exported for the stages that read items.
from .tree import child, column_of, ends_line, line_end, line_start, newline_of, node_end, scalar, searchable  # noqa: F401


class InputError(Exception):
    """The input cannot be read at all; nothing can be written but an error result."""

    def __init__(self, message: str, mark: Any = None) -> None:
        where = f" ({tree.position(mark)})" if mark is not None else ""
        super().__init__(message + where)
        self.line: int | None = mark.line + 1 if mark is not None else None  # in the file, for `file:line:`
        self.source = ""


class ItemError(Exception):
    """An item is YAML but cannot be Kubernetes data (an unhashable key, nesting too deep …)."""


class Source:
    """One text the reader read, shared by its items: composing an item that shares anchors with others
    needs its whole document, composed once here (`node_at`) for each piece of the text (`pieces`)."""

    __slots__ = ("text", "_nodes")

    def __init__(self, text: str) -> None:
        self.text = text
        self._nodes: dict[int, dict[int, yaml.Node]] = {}

    def pieces(self) -> Iterator[tuple[int, int, str]]:
        """The text cut where a document begins with a byte-order mark, right after its `---` line (YAML 1.2
        allows one there, and kubectl, kustomize and kpt read on; libyaml skips it as if it were a space and
        reads the line one column further in): (offset, line, text) of each piece, marks left out. A mark
        that starts any other line is no document start to them (refusals.refuse_inner_byte_order_marks)."""
        text = self.text
        start = line = 0
        at = text.find("\ufeff")
        while at >= 0:
            if after_separator(text, at):
                yield start, line, text[start:at]
                line += searchable(text).count("\n", start, at)
                start = at + 1
            at = text.find("\ufeff", at + 1)
        yield start, line, text[start:]

    def node_at(self, start: int, base: int) -> yaml.Node:
        found = self._nodes.get(base)
        if found is None:
            found = self._nodes[base] = {}
            line, piece = next((line, piece) for at, line, piece in self.pieces() if at == base)
            for root in yamlio.compose_events(yamlio.events(piece), base, line):
                for node in tree.nodes(root):
                    found.setdefault(node.start_mark.index, node)
                if isinstance(root, yaml.MappingNode):
                    items = child(root, "items")
                    for entry in items.value if isinstance(items, yaml.SequenceNode) else ():
                        found[entry.start_mark.index] = entry
                    found[root.start_mark.index] = root
        return found[start]


class Tied:
    """Items of one block list that aliases tie to each other and to nothing else: composed together, each
    region after a dash at the list's column, as one block sequence, so that every alias names the node its
    anchor made, while the rest of the document (thousands of items, maybe) is never composed. The marks of
    each entry are moved back to where its region is in the source."""

    __slots__ = ("members", "dash", "_nodes")

    def __init__(self, members: list["Item"], dash: int) -> None:
        self.members = members  # in the order of the source
        self.dash = dash  # the column of the list's dashes
        self._nodes: dict[int, yaml.Node] | None = None

    def node(self, item: "Item") -> yaml.Node:
        if self._nodes is None:
            self._nodes = self._compose()
        return self._nodes[item.start]

    def _compose(self) -> dict[int, yaml.Node]:
        parts: list[str] = []
        starts: list[int] = []  # where each region begins in the fragment
        at = 0
        for item in self.members:
            region = item.source[item.start:item.end]
            prefix = " " * self.dash + "-" + " " * (item.column - self.dash - 1)
            parts.append(prefix + region + ("" if ends_line(region) else "\n"))
            starts.append(at + len(prefix))
            at += len(parts[-1])
        fragment = "".join(parts)
        lines = [searchable(fragment).count("\n", 0, start) for start in starts]
        members = self.members

        def mark(m: Any) -> tree.Mark:
            # A mark in a region is moved back to the source; one past it (a block mapping's end, marked at
            # the next dash) is the region's end; one before the first region the list's first dash.
            k = bisect.bisect_right(starts, m.index) - 1
            item = members[max(k, 0)]
            if k < 0:
                return tree.Mark(item.start - item.column + self.dash, item.line, self.dash)
            index = min(item.start + m.index - starts[k], item.end)
            return tree.Mark(index, item.line + m.line - lines[k], m.column)

        events = yamlio.events(fragment)
        next(events)  # the stream's start
        next(events)  # the document's
        root = yamlio.compose_node(next(events), events, {}, mark)
        assert isinstance(root, yaml.SequenceNode) and len(root.value) == len(members)
        return {item.start: node for item, node in zip(members, root.value, strict=True)}


_NO_ANNOTATIONS: dict[str, str] = {}
_NO_KEYS: list[str] = []


# --- items --------------------------------------------------------------------------------------

class Home(NamedTuple):
    """Where a built object is in the repository: the file (as shown), its document there (None: no local
    file, such as a remote base), and the overlays' patch documents for it, outermost first."""

    path: str
    node: yaml.Node | None = None
    patches: tuple[tuple[str, yaml.Node], ...] = ()


class Item:
    """One resource: its source region, its identity and annotations (read from the events), and its node,
    composed on first use from the item's own lines. Attributes are slots: a large list has hundreds of
    thousands of items."""

    __slots__ = ("index", "_node", "source", "start", "end", "api_version", "kind", "name", "namespace",
                 "origin", "origin_index", "head", "tail", "_data", "_built", "line", "column", "is_mapping",
                 "ann", "ann_keys", "generate_name", "duplicate", "derive", "shared", "in_flow", "src", "base", "odd",
                 "home", "tied", "no_string", "typed_meta", "cycle", "alias_key")

    def __init__(self, index: int, node: yaml.Node | None, source: str, start: int, end: int) -> None:
        self.index = index
        self._node = node
        self.source = source
        self.start = start
        self.end = end
        # its identity (identity.py), read and set as one record through `identity`: apiVersion, kind, name and
        # namespace ("" where it is no string), whether generateName is a string (the cluster names it), and
        # (field, text, what YAML reads it as) of the first of the four that is a scalar but no string
        self.api_version = self.kind = self.name = self.namespace = ""
        self.generate_name = False
        self.odd: tuple[str, str, str] | None = None
        self.origin = ""                      # render: the file it came from, and its document number there
        self.origin_index: int | None = None
        # render of a kustomize build: the repository file the object was built from (model/origins.py)
        self.home: Home | None = None
        # render, a document of its own: where the comments before its first key begin and those after its
        # last value end (between the `---` lines; an item of a list has none)
        self.head: int | None = None
        self.tail: int | None = None
        self._data: Any = None
        self._built = False
        self.line = self.column = 0           # of its first character (0-based), as the events give them
        self.is_mapping = isinstance(node, yaml.MappingNode)
        # metadata.annotations whose values are strings, and every key of them whatever its value: one shared
        # empty dict and list for the items that have none (most of 100 000 items: 120 bytes each), never changed
        # (the reader gives an item that has annotations its own)
        self.ann: dict[str, str] = _NO_ANNOTATIONS
        self.ann_keys: list[str] = _NO_KEYS
        # (field, text, what it reads as) of the first label or annotation whose value is no string (a number, a
        # boolean, a mapping or a list; a null is sent as none): kubectl refuses the object (SD066)
        self.no_string: tuple[str, str, str] | None = None
        # its metadata has a field whose type SD067 checks (TYPED_META), labels or annotations that are no
        # mapping, or a name, namespace or generateName that is no string: composed for SD067, others never are
        self.typed_meta = False
        # an alias inside the node its anchor names (`spec: &s {copy: *s}`): kubectl and kustomize refuse the file
        self.cycle = False
        # (alias, its anchor's text, line, SD019's variant, what v3 reads) of the first alias used as a key that
        # kubectl and kustomize read apart (reader.py: _DocumentWalk.odd_alias_key)
        self.alias_key: tuple[str, str, int, str, str] | None = None
        # (key, line of its first, line of its second) of the first key a mapping of the item has twice
        self.duplicate: tuple[str, int, int] | None = None
        # an alias or a merge key gives its identity or annotations: the reader reads them from its data
        self.derive = False
        self.shared = False                   # an alias ties it to an anchor outside it (or the reverse)
        self.in_flow = False                  # an entry of a flow sequence: its region is its node's text
        self.src: Source | None = None        # what composes it when it is shared, and where its text begins
        self.base = 0
        self.tied: Tied | None = None         # shared with items only: what composes it with them
        if node is not None:  # made from a composed node (not by the reader's walk): its facts read from it
            self.line, self.column = node.start_mark.line, node.start_mark.column
        if isinstance(node, yaml.MappingNode):
            self.identity = of_node(node)
            ann = child(child(node, "metadata"), "annotations")
            if isinstance(ann, yaml.MappingNode):
                self.ann_keys = [k.value for k, _ in ann.value if isinstance(k, yaml.ScalarNode)]
                self.ann = {k.value: v.value for k, v in ann.value if isinstance(k, yaml.ScalarNode)
                            and isinstance(v, yaml.ScalarNode) and v.tag == go_scalars.STR_TAG}
            meta = child(node, "metadata")
            self.no_string = _no_string_of_node(meta)
            self.typed_meta = isinstance(meta, yaml.MappingNode) and any(
                isinstance(k, yaml.ScalarNode) and type_checked(
                    k.value, A_MAPPING if isinstance(v, yaml.MappingNode) else v.tag if isinstance(v, yaml.ScalarNode)
                    else A_LIST, v.value if isinstance(v, yaml.ScalarNode) else "")
                for k, v in meta.value)

    @property
    def identity(self) -> Identity:
        """Its apiVersion, kind, name, namespace, generateName and odd field, as one record."""
        return Identity(self.api_version, self.kind, self.name, self.namespace, self.generate_name, self.odd)

    @identity.setter
    def identity(self, value: Identity) -> None:
        self.api_version, self.kind, self.name, self.namespace, self.generate_name, self.odd = value

    @property
    def node(self) -> yaml.Node:
        node = self._node
        if node is None:
            node = self._node = self._compose()
        return node

    def _compose(self) -> yaml.Node:
        """The item's node from its own lines: its region, moved to its column by spaces, composed with
        its marks moved back to where the region is in the source. An item tied to others by anchors is
        composed with its whole document."""
        if self.shared and self.tied is not None:
            return self.tied.node(self)
        if self.shared and self.src is not None:
            return self.src.node_at(self.start, self.base)
        start = self.start
        piece = " " * self.column + self.source[start:self.end]
        roots = list(yamlio.compose_events(yamlio.events(piece), start - self.column, self.line))
        if not roots:  # an entry that is nothing (`- ` and a comment): null, as the composer reads it
            at: Any = tree.Mark(start, self.line, self.column)
            return yaml.ScalarNode(go_scalars.NULL_TAG, "", at, at)
        return roots[0]

    def forget(self) -> None:
        """Drop the node and data built on demand: a writer that goes through every item once keeps one
        item's at a time, not every item's."""
        if not self.shared:
            self._node = self._data = None
            self._built = False

    def passing_node(self) -> yaml.Node:
        """The node for one look (a field's line for a result): composed again if it was let go, and not kept."""
        if self._node is not None or not self._built:
            return self.node
        return self._compose()

    def release_node(self) -> None:
        """Drop the node once the data is built: nodes take about 35 bytes a byte of their text, data a
        tenth of that, and thousands of enabled workloads are kept as data until the writer, which composes
        each again in its turn (the node's text is the item's own, so the node is the same)."""
        if self._built and not self.shared:
            self._node = None

    def __repr__(self) -> str:
        return f"Item({self.index}, {self.kind}/{self.name}, {self.start}:{self.end})"

    @property
    def region(self) -> str:
        return self.source[self.start:self.end]

    def data(self) -> Any:
        """The item as Python data; raises ItemError when YAML has no such data (complex keys, …)."""
        if not self._built:
            node = self.node
            try:
                region = self.region
                self._data = yamlio.construct(node, may_merge="<<" in region or "merge" in region,
                                              may_alias="*" in region)
            except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
                message = " ".join(str(exc).split()) or type(exc).__name__
                where = unreadable_path(node)
                raise ItemError(f"{where}: {message}" if where else message) from None
            self._built = True
        return self._data

    def annotation(self, key: str) -> str | None:
        return self.ann.get(key)

    def file(self) -> tuple[str, int | None]:
        """The file path and index kpt recorded for the item (empty without an orchestrator)."""
        path = self.annotation(krm.PATH_ANNOTATION) or self.annotation(krm.LEGACY_PATH_ANNOTATION) or ""
        index = self.annotation(krm.INDEX_ANNOTATION) or self.annotation(krm.LEGACY_INDEX_ANNOTATION)
        if not path and self.origin:
            return self.origin, self.origin_index
        if index is None:
            return path, None
        # kyaml reads it with strconv.Atoi: a sign and ASCII digits (int() would take ٣, " 3" and 1_0 too).
        digits = index[1:] if index[:1] in ("+", "-") else index
        return path, int(index) if digits.isascii() and digits.isdigit() and len(digits) <= 18 else None


# ObjectMeta's fields whose Go type SD067 checks (domain/object_meta.py), but the identity's (name, namespace,
# generateName) and labels and annotations, which are checked only when they are no string, or no mapping. A scalar
# that is surely right needs no composing: the kind of each scalar field (_SCALAR_FIELDS), and when it surely is.
TYPED_META = frozenset(("selfLink", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
                        "deletionGracePeriodSeconds", "ownerReferences", "finalizers", "managedFields"))
_SCALAR_FIELDS = {"selfLink": "string", "uid": "string", "resourceVersion": "string", "generation": "integer",
                  "deletionGracePeriodSeconds": "integer", "creationTimestamp": "time", "deletionTimestamp": "time"}
_NAMES = frozenset(("name", "namespace", "generateName"))
_MAPS = frozenset(("labels", "annotations"))
A_MAPPING, A_LIST = "mapping", "list"  # type_checked's tag of a value that is a mapping, or a list
_STRINGS = frozenset((go_scalars.STR_TAG, go_scalars.TIMESTAMP_TAG))  # (kubectl sends a timestamp's text)
# An int64 for sure; an RFC 3339 time Go's time.Parse surely reads (a day past 28 is left to the exact check).
_SURE = {"integer": re.compile(r"[-+]?[0-9]{1,18}"),
         "time": re.compile(r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:"
                            r"[0-5][0-9](?:\.[0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])")}


def type_checked(key: str, tag: str, text: str = "") -> bool:
    """Whether a key of an item's metadata, with a value of this tag (a scalar's, with its text; or A_MAPPING or
    A_LIST), is one SD067 must check the type of: it sets Item.typed_meta. A null is right for every field."""
    if tag == go_scalars.NULL_TAG:
        return False
    kind = _SCALAR_FIELDS.get(key)
    if kind is not None:
        if kind == "string":
            return tag not in _STRINGS
        sure = tag == go_scalars.INT_TAG if kind == "integer" else tag in _STRINGS
        return not (sure and _SURE[kind].fullmatch(text))
    if key in TYPED_META:
        return True
    if key in _NAMES:
        return tag != go_scalars.STR_TAG
    return key in _MAPS and tag != A_MAPPING


def typed_meta_of(meta: Any) -> bool:
    """Item.typed_meta of metadata read as data."""
    return isinstance(meta, dict) and any(
        isinstance(k, str) and (k in TYPED_META or (k in _NAMES and not isinstance(v, (str, type(None))))
                                or (k in _MAPS and not isinstance(v, (dict, type(None)))))
        for k, v in meta.items())


_READS = {go_scalars.BOOL_TAG: "a boolean", go_scalars.INT_TAG: "a number", go_scalars.FLOAT_TAG: "a number"}


def _no_string_of_node(meta: yaml.Node | None) -> tuple[str, str, str] | None:
    """Item.no_string of a composed metadata node."""
    for where in ("annotations", "labels"):
        values = child(meta, where)
        for k, v in values.value if isinstance(values, yaml.MappingNode) else ():
            if not isinstance(k, yaml.ScalarNode):
                continue
            reads = ("a mapping" if isinstance(v, yaml.MappingNode) else "a list" if isinstance(v, yaml.SequenceNode)
                     else _READS.get(v.tag))
            if reads is not None:
                return f"metadata.{where}[{k.value}]", v.value if isinstance(v, yaml.ScalarNode) else "", reads
    return None


def no_string_of(meta: Any) -> tuple[str, str, str] | None:
    """Item.no_string of metadata read as data."""
    for where in ("annotations", "labels"):
        values = meta.get(where) if isinstance(meta, dict) else None
        for k, v in values.items() if isinstance(values, dict) else ():
            reads = ("a boolean" if isinstance(v, bool) else "a number" if isinstance(v, (int, float))
                     else "a mapping" if isinstance(v, dict) else "a list" if isinstance(v, list) else None)
            if reads is not None and isinstance(k, str):
                text = str(v).lower() if isinstance(v, bool) else str(v) if isinstance(v, (int, float)) else ""
                return f"metadata.{where}[{k}]", text, reads
    return None


def _constructs(node: yaml.Node) -> bool:
    try:
        yamlio.construct(node)
        return True
    except (yaml.YAMLError, RecursionError, TypeError, ValueError):
        return False


def unreadable_path(node: yaml.Node) -> str:
    """The field (`spec.ports[0].name`) of the first value below `node` that YAML cannot turn into data
    (a custom tag, a 5000-digit integer, a complex key …): only asked after construction failed."""
    path, seen = "", set()
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and id(node) not in seen:
        seen.add(id(node))  # an alias cycle (`&a [*a]`) would lead back here
        bad: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if not isinstance(k, yaml.ScalarNode):
                    return path + ("." if path else "") + "(a key that is a mapping or a list)"
                label = k.value if re.fullmatch(r"[\w.-]+", k.value or "-") else repr(k.value)
                if not _constructs(k):
                    return path + ("." if path else "") + label
                if not _constructs(v):
                    path, bad = path + ("." if path else "") + label, v
                    break
        else:
            for i, v in enumerate(node.value):
                if not _constructs(v):
                    path, bad = f"{path}[{i}]", v
                    break
        if bad is None:
            break
        node = bad
    return path


def make_item(index: int, node: yaml.Node, source: str, in_flow: bool = False) -> Item:
    """An item from a composed node. An item of a block sequence (or a document) owns the rest of its last
    line, its comment there included; an item of a flow sequence exactly its node's text."""
    end = node_end(node, source) if in_flow else line_end(source, node_end(node, source))
    return Item(index=index, node=node, source=source, start=node.start_mark.index, end=end)


# --- documents ----------------------------------------------------------------------------------

class ResourceList(NamedTuple):
    """The envelope as a value: its text, root node, items and functionConfig."""

    text: str
    root: yaml.MappingNode
    items_node: yaml.SequenceNode | None
    items: list[Item]
    function_config: yaml.Node | None
    shared: frozenset[int] = frozenset()  # items tied to others by anchors

    @property
    def splicable(self) -> bool:
        """Block layout all the way down to the items: the writer can edit the text in place."""
        items = self.items_node
        # `items: []` is fine too: there is nothing to splice inside it (nothing is added to no items).
        # (`self.items`, not the node's entries: the reader's node of the list holds none, its items do.)
        return not self.root.flow_style and (items is None or not items.flow_style or not self.items)


def decode(data: bytes) -> str:
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"input is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}") from None
    if text.startswith("\ufeff"):
        raise InputError(f"input is not valid YAML: {DOUBLED_BOM}", tree.Mark(0, 0, 0))
    return text


def duplicate_key(node: yaml.Node | None) -> tuple[yaml.Node, yaml.Node] | None:
    """(second, first) key node of a key a mapping in `node` has twice (PyYAML keeps the last silently;
    Kubernetes and kpt refuse the document).

    Keys are compared by their text, not their tag, as go-yaml v3 does (decode.go `mapping`: `ni.Kind ==
    nj.Kind && ni.Value == nj.Value`): `1` and `'1'` are one key to kustomize ("mapping key "1" already
    defined"), and sigs.k8s.io/yaml, which kubectl and Argo CD read with, makes both the JSON key "1" and
    keeps one of them at random."""
    stack, seen = [node], set()
    while stack:
        current = stack.pop()
        if id(current) in seen:  # an alias: already checked
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            keys: dict[str, yaml.Node] = {}
            for k, v in current.value:
                if isinstance(k, yaml.ScalarNode):
                    first = keys.get(k.value)
                    if first is not None:
                        return k, first
                    keys[k.value] = k
                stack.append(v)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return None


def check_envelope(root: yaml.Node) -> str:
    """The envelope's kind, once it is known to be a ResourceList or List."""
    if not isinstance(root, yaml.MappingNode):
        raise InputError("input is not a ResourceList: the document is not a mapping", root.start_mark)
    kind = scalar(child(root, "kind"))
    api = scalar(child(root, "apiVersion")) or ""
    if kind == krm.RESOURCE_LIST_KIND:
        if not api.startswith(krm.RESOURCE_LIST_API_PREFIX):
            raise InputError(f"ResourceList has apiVersion {api!r}; expected config.kubernetes.io/v1",
                             root.start_mark)
    elif kind is None:
        raise InputError("input is not a ResourceList: it has no kind; expected a ResourceList or List",
                         root.start_mark)
    elif kind != krm.LIST_KIND:
        # A single manifest piped in is the usual slip: name the command that takes one.
        raise InputError(f"input is not a ResourceList: kind is {kind!r}; expected ResourceList or List (use `kaito-specdec render -` for plain manifests)", root.start_mark)  # noqa: E501 (a message stays whole for grep)
    return kind


class Stream(NamedTuple):
    """A plain multi-document stream (the `render` path): items from one or more sources."""

    items: list[Item]
    shared: frozenset[int] = frozenset()  # items tied to others by anchors
    function_config: yaml.Node | None = None  # of the first ResourceList among the documents


def _is_marker(line: str) -> bool:
    """A `---` or `...` line, or a directive (`%YAML 1.2`): what separates documents."""
    return line.startswith("%") or (line[:3] in ("---", "...") and (len(line) == 3 or line[3] in " \t\r\n"))


_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def _comments_around(text: str, documents: list[Item]) -> None:
    """Give each document of a file the comment lines before its first key (after the last `---`) and
    after its last value (before the next `---`), so that `render` keeps them. Blank lines around
    them are layout and stay behind."""
    view = searchable(text)

    def lines(lo: int, hi: int) -> list[tuple[int, int]]:
        return [m.span() for m in _LINE.finditer(view, lo, hi)]

    def comments(span: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(a, b) for a, b in span if view[a:b].lstrip(" \t").startswith("#")]

    bounds = [0] + [x for d in documents for x in (d.start, d.end)] + [len(text)]
    find = view.find
    for i, doc in enumerate(documents):
        first_line = line_start(text, doc.start)  # its indentation is the region's business
        # No `#` between two documents (the usual `---` alone): no comment to give, no lines to split.
        if find("#", bounds[2 * i], first_line) < 0:
            doc.head = first_line
        else:
            before = lines(bounds[2 * i], first_line)
            markers = [n for n, (a, b) in enumerate(before) if _is_marker(view[a:b])]
            head = comments(before[markers[-1] + 1:] if markers else before)
            doc.head = head[0][0] if head else first_line
        if find("#", doc.end, bounds[2 * i + 3]) < 0:
            doc.tail = doc.end
        else:
            after = lines(doc.end, bounds[2 * i + 3])
            markers = [n for n, (a, b) in enumerate(after) if _is_marker(view[a:b])]
            tail = comments(after[:markers[0]] if markers else after)
            doc.tail = tail[-1][1] if tail else doc.end
