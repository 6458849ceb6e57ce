"""What the reader makes: items that keep the exact region of source text they came from, the ResourceList
and the stream around them, and composing them from YAML nodes (`read_text`, the per-item fallback of the
scan of shapes). Python data is built only on demand (`Item.data`), for the items the function inspects.
krm_fn/text/reader.py is the one entry; krm_fn/text/fastread.py, the scan, builds these same items.
"""
from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Mapping

import yaml

from . import krm
from . import yamlio


class InputError(Exception):
    """The input cannot be read at all; nothing can be written but an error result."""

    def __init__(self, message: str, mark: Any = None) -> None:
        where = f" ({yamlio.position(mark)})" if mark is not None else ""
        super().__init__(message + where)
        self.line: int | None = mark.line + 1 if mark is not None else None  # in the file, for `file:line:`
        self.source = ""


class ItemError(Exception):
    """An item is YAML but cannot be Kubernetes data (an unhashable key, nesting too deep …)."""


# --- node helpers: they live in yamlio (the one YAML module); re-exported for the stages that read items

from .yamlio import BREAKS, child, column_of, ends_line, line_end, line_start, newline_of, node_end, scalar, searchable

TYPE_CHECKING = False  # see krm_fn/__init__.py
if TYPE_CHECKING:
    from typing import Any


# --- items --------------------------------------------------------------------------------------

class Item:
    """One resource: its source region, its identity, and its node.

    The full reader composes the node and reads the identity from it. An item the scan of shapes read
    from its text (fastread) carries what the stages ask of every item (kind, name, annotations) as text,
    and its node is composed from its own lines on first use (`recompose`), so an item no stage looks
    into is never composed. Attributes are slots: a large list has hundreds of thousands of items."""

    __slots__ = ("index", "_node", "source", "start", "end", "api_version", "kind", "name", "namespace",
                 "origin", "origin_index", "head", "tail", "_data", "_built", "scanned_annotations",
                 "generate_name", "values_as_written", "recompose", "dash", "dash_line", "chunk_end")

    def __init__(self, index: int, node: yaml.Node | None, source: str, start: int, end: int,
                 api_version: str = "", kind: str = "", name: str = "", namespace: str = "") -> None:
        self.index = index
        self._node = node
        self.source = source
        self.start = start
        self.end = end
        self.api_version = api_version
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.origin = ""                      # render: the file it came from, and its document number there
        self.origin_index: int | None = None
        # render, a document of its own: where the comments before its first key begin and those after its
        # last value end (between the `---` lines; an item of a list has none)
        self.head: int | None = None
        self.tail: int | None = None
        self._data: Any = None
        self._built = False
        # Read by the scan: every annotation (key -> (value, is a string)), whether generateName is a
        # string; None and False for an item read from its node.
        self.scanned_annotations: Mapping[str, tuple[str, bool]] | None = None
        self.generate_name = False
        # Every key and value is its own text: the scan vouches for no escape, alias, anchor, tag, merge key
        # or scalar going on over lines (it composes such items), and a block scalar's lines are literal.
        # What its text does not hold, no value of it does: krm_fn/model/index.py composes no such item to
        # look for one.
        self.values_as_written = False
        # recompose(source, dash, chunk_end, dash_line): the node again from the item's lines (None: the
        # node is the only copy); `dash` where its entry's line (or its document) begins, `dash_line` that
        # line's number, `chunk_end` where the next entry's line (or what follows) begins.
        self.recompose: Callable[[str, int, int, int], yaml.Node] | None = None
        self.dash = self.dash_line = self.chunk_end = 0

    @property
    def node(self) -> yaml.Node:
        node = self._node
        if node is None and self.recompose is not None:
            node = self._node = self.recompose(self.source, self.dash, self.chunk_end, self.dash_line)
        return node

    @node.setter
    def node(self, value: yaml.Node) -> None:
        self._node = value

    @property
    def checked(self) -> bool:
        """Every mapping of the item was checked for a key given twice when it was read (by the scan)."""
        return self.scanned_annotations is not None

    def forget(self) -> None:
        """Drop the node and data built on demand where they can be built again: a writer that goes
        through every item once keeps one item's at a time, not every item's."""
        if self.recompose is not None:
            self._node = self._data = None
            self._built = False

    def __repr__(self) -> str:
        return f"Item({self.index}, {self.kind}/{self.name}, {self.start}:{self.end})"

    @property
    def column(self) -> int:
        return column_of(self.source, self.start)

    @property
    def region(self) -> str:
        return self.source[self.start:self.end]

    def data(self) -> Any:
        """The item as Python data; raises ItemError when YAML has no such data (complex keys, …)."""
        if not self._built:
            try:
                region = self.region
                self._data = yamlio.construct(self.node, may_merge="<<" in region, may_alias="*" in region)
            except (yaml.YAMLError, RecursionError, TypeError, ValueError) as exc:
                message = " ".join(str(exc).split()) or type(exc).__name__
                where = unreadable_path(self.node)
                raise ItemError(f"{where}: {message}" if where else message) from None
            self._built = True
        return self._data

    def annotation(self, key: str) -> str | None:
        scanned = self.scanned_annotations
        if scanned is not None:
            found = scanned.get(key)
            return found[0] if found is not None and found[1] else None
        return scalar(child(child(child(self.node, "metadata"), "annotations"), key))

    def annotations(self) -> dict[str, str]:
        scanned = self.scanned_annotations
        if scanned is not None:
            return {k: v for k, (v, _) in scanned.items()}
        ann = child(child(self.node, "metadata"), "annotations")
        if not isinstance(ann, yaml.MappingNode):
            return {}
        return {k.value: v.value for k, v in ann.value
                if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)}

    def annotation_keys(self) -> Iterable[str]:
        """Every annotation's key, whatever its value (a scanned item's annotations are all scalars)."""
        scanned = self.scanned_annotations
        if scanned is not None:
            return scanned.keys()
        ann = child(child(self.node, "metadata"), "annotations")
        if not isinstance(ann, yaml.MappingNode):
            return ()
        return [k.value for k, _ in ann.value if isinstance(k, yaml.ScalarNode)]

    @property
    def is_mapping(self) -> bool:
        return self.scanned_annotations is not None or isinstance(self.node, yaml.MappingNode)

    def has_generate_name(self) -> bool:
        """`metadata.generateName` is a string: the object is named by the cluster."""
        if self.scanned_annotations is not None:
            return self.generate_name
        return scalar(child(child(self.node, "metadata"), "generateName")) is not None

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
    """An item of a block sequence (or a document) owns the rest of its last line, its comment there
    included; an item of a flow sequence (`items: [{…}, {…}]`, one-line JSON) exactly its node's text."""
    start = node.start_mark.index
    end = node_end(node, source) if in_flow else line_end(source, node_end(node, source))
    item = Item(index=index, node=node, source=source, start=start, end=end)
    if isinstance(node, yaml.MappingNode):
        meta = child(node, "metadata")
        item.api_version = scalar(child(node, "apiVersion")) or ""
        item.kind = scalar(child(node, "kind")) or ""
        item.name = scalar(child(meta, "name")) or ""
        item.namespace = scalar(child(meta, "namespace")) or ""
    return item


# --- documents ----------------------------------------------------------------------------------

def sharing_anchors(text: str, items: list[Item]) -> set[int]:
    """Indexes of the items that use an anchor defined outside themselves, or define one used outside.

    Such items cannot be cut apart, edited alone or emitted alone without breaking the alias; they are
    rare (kpt and kustomize send none), so the events are parsed a second time only when `&` occurs.
    """
    if "&" not in text or not items:
        return set()
    import bisect
    starts = [it.start for it in items]

    def owner(pos: int) -> int | None:
        i = bisect.bisect_right(starts, pos) - 1
        return items[i].index if i >= 0 and pos < items[i].end else None

    defined: dict[str, int | None] = {}
    shared: set[int] = set()
    for event in yamlio.events(text):
        anchor = getattr(event, "anchor", None)
        if anchor is None:
            continue
        where = owner(event.start_mark.index)
        if isinstance(event, yaml.AliasEvent):
            home = defined.get(anchor)
            if home != where:
                shared.update(i for i in (home, where) if i is not None)
        else:
            defined[anchor] = where
    return shared


class ResourceList:
    """The envelope as a value: its text, root node, items and functionConfig."""

    __slots__ = ("text", "root", "items_node", "items", "function_config", "shared")

    def __init__(self, text: str, root: yaml.MappingNode, items_node: yaml.SequenceNode | None,
                 items: list[Item], function_config: yaml.Node | None, shared: set[int] | None = None) -> None:
        self.text = text
        self.root = root
        self.items_node = items_node
        self.items = items
        self.function_config = function_config
        # Items tied to others by anchors when the reader knows (the scan); None: sharing_anchors asks.
        self.shared = shared

    @property
    def splicable(self) -> bool:
        """Block layout all the way down to the items: the writer can edit the text in place."""
        items = self.items_node
        # `items: []` is fine too: there is nothing to splice inside it (nothing is added to no items).
        # (`self.items`, not the node's entries: fastread's node of a flow list has none, its items do.)
        return not self.root.flow_style and (items is None or not items.flow_style or not self.items)


def decode(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"input is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}") from None
    # YAML line breaks are what the positions count in; keep CRLF input as is but never see a BOM again.
    return text.lstrip("\ufeff")


def _compose_all(text: str) -> list[yaml.Node]:
    try:
        return yamlio.compose_all(text)
    except yaml.MarkedYAMLError as exc:
        # The parser's whole story: what it was reading and where that began, then what it found where.
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        context = ""
        if exc.context and exc.problem:
            began = f" ({yamlio.position(exc.context_mark)})" if exc.context_mark is not None and \
                yamlio.position(exc.context_mark) != yamlio.position(mark) else ""
            context = f"{exc.context}{began}: "
        error = InputError(f"input is not valid YAML: {context}{problem}", mark)
        error.line = mark.line + 1 if mark is not None else None
        raise error from None
    except yaml.reader.ReaderError as exc:
        # No mark here, and libyaml counts the position in UTF-8 bytes, PyYAML in characters.
        pos = exc.position
        if yamlio.backend() == "c":
            pos = len(text.encode("utf-8")[:pos].decode("utf-8", "ignore"))
        where = f"line {searchable(text).count(chr(10), 0, pos) + 1}, column {column_of(text, pos) + 1}"
        char = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        raise InputError(f"input is not valid YAML: unacceptable character {char}: {exc.reason} ({where})") \
            from None
    except yaml.YAMLError as exc:
        raise InputError(f"input is not valid YAML: {exc}") from None


def _empty(node: yaml.Node | None) -> bool:
    """An empty document: nothing, or only comments between two `---` (which composes as a null), as
    Helm writes for a template that renders nothing and many files have at their end. kubectl skips them."""
    return node is None or (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"))


def duplicate_key(node: yaml.Node | None, deep: bool) -> tuple[yaml.Node, yaml.Node] | None:
    """(second, first) key node of a key a mapping has twice (PyYAML keeps the last silently; Kubernetes
    and kpt refuse the document): in `node` itself, or anywhere below it when `deep`.

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
                if isinstance(k, yaml.ScalarNode) and k.value != "<<":
                    first = keys.get(k.value)
                    if first is not None:
                        return k, first
                    keys[k.value] = k
                if deep:
                    stack.append(v)
        elif deep and isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return None


def _refuse_duplicates(node: yaml.MappingNode, what: str) -> None:
    dup = duplicate_key(node, deep=False)
    fc = child(node, "functionConfig")
    where = f"the {what}"
    if dup is None and fc is not None:
        dup, where = duplicate_key(fc, deep=True), f"the {what}'s functionConfig"
    if dup is not None:
        key, first = dup
        error = InputError(f"the key {key.value!r} appears twice in {where} (line {first.start_mark.line + 1} and line {key.start_mark.line + 1}): which one is meant is not clear, and kpt and Kubernetes refuse such a document")
        error.line = key.start_mark.line + 1
        raise error


def read_text(text: str) -> ResourceList:
    """Every item composed: what the scan falls back to for an input it does not read."""
    if not text.strip():
        raise InputError("input is empty; expected a ResourceList on stdin")
    docs = [d for d in _compose_all(text) if not _empty(d)]
    if not docs:
        raise InputError("input holds no YAML document; expected a ResourceList")
    if len(docs) > 1:
        raise InputError(f"input holds {len(docs)} YAML documents; expected one ResourceList (use `kaito-specdec render` for a plain stream)", docs[1].start_mark)
    root = docs[0]
    kind = check_envelope(root)
    items_node = child(root, "items")
    if items_node is not None and not isinstance(items_node, yaml.SequenceNode):
        if not (isinstance(items_node, yaml.ScalarNode) and items_node.tag.endswith(":null")):
            raise InputError(f"{kind}.items is not a list", items_node.start_mark)
        items_node = None
    in_flow = items_node is not None and bool(items_node.flow_style)
    items = [make_item(i, n, text, in_flow) for i, n in enumerate(items_node.value if items_node else [])]
    return envelope(text, root, items_node, items)


def check_envelope(root: yaml.Node) -> str:
    """The envelope's kind, once it is known to be a ResourceList or List without a key given twice."""
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
        raise InputError(f"input is not a ResourceList: kind is {kind!r}; expected ResourceList or List (use `kaito-specdec render -` for plain manifests)", root.start_mark)
    _refuse_duplicates(root, kind)
    return kind


def envelope(text: str, root: yaml.MappingNode, items_node: yaml.SequenceNode | None, items: list[Item]) -> ResourceList:
    fc = child(root, "functionConfig")
    if isinstance(fc, yaml.ScalarNode) and fc.tag.endswith(":null"):
        fc = None
    return ResourceList(text=text, root=root, items_node=items_node, items=items, function_config=fc)


class Stream:
    """A plain multi-document stream (the `render` path): items from one or more sources."""

    __slots__ = ("items", "shared", "function_config")

    def __init__(self, items: list[Item], shared: set[int] | None = None,
                 function_config: yaml.Node | None = None) -> None:
        self.items = items
        self.shared = set() if shared is None else shared  # items tied to others by anchors (sharing_anchors)
        self.function_config = function_config  # of the first ResourceList among the documents


def _is_envelope(node: yaml.MappingNode) -> bool:
    kind = scalar(child(node, "kind"))
    return kind == krm.LIST_KIND or (kind == krm.RESOURCE_LIST_KIND and (scalar(child(node, "apiVersion")) or "")
                                   .startswith(krm.RESOURCE_LIST_API_PREFIX))


def _is_marker(line: str) -> bool:
    """A `---` or `...` line, or a directive (`%YAML 1.2`): what separates documents."""
    return line.startswith("%") or (line[:3] in ("---", "...") and (len(line) == 3 or line[3] in " \t\r\n"))


def _comments_around(text: str, documents: list[Item]) -> None:
    """Give each document of a file the comment lines before its first key (after the last `---`) and
    after its last value (before the next `---`), so that `render` keeps them. Blank lines around
    them are layout and stay behind."""
    view = searchable(text)

    def lines(lo: int, hi: int) -> list[tuple[int, int]]:
        out, pos = [], lo
        while pos < hi:
            nl = view.find("\n", pos, hi)
            out.append((pos, hi if nl < 0 else nl + 1))
            pos = out[-1][1]
        return out

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
