"""Bytes in, a ResourceList (or a plain stream of documents) out: one walk of libyaml's events.

The walk gives each item its exact region of source text (from the events' marks), its apiVersion, kind,
metadata and annotations (from the scalars), the first key one of its mappings has twice, and whether an
alias ties it to another item. Nothing of an item is composed during the walk: its node is composed from its
own lines when a stage first asks (`Item.node`), so an item no stage looks into costs only its events. The
envelope around the items (a ResourceList's functionConfig and old results) is composed as it is walked.
Nodes are read as go-yaml reads them (krm_fn/text/yamlio.py `compose_node`, by go_scalars.py's rules); a document with a directive,
or nesting past refusals.MAX_DEPTH, is refused as kubectl, kustomize and kpt refuse it.
"""

from collections.abc import Iterator
from typing import Any, NamedTuple

import yaml
from yaml.events import (AliasEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent,
                         ScalarEvent, SequenceEndEvent, SequenceStartEvent)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from . import go_scalars, krm, refusals, tree, yamlio
from .items import (InputError, Item, ResourceList, Source, Stream, _comments_around, check_envelope, decode,
                    duplicate_key, make_item)
from .tree import child, column_of, line_end, node_end, searchable

# What a mapping being walked is to the item it belongs to.
_OTHER, _ITEM, _META, _ANNS, _ITEMS = 0, 1, 2, 3, 4
# The item's attribute a string value sets, by the role of its mapping and its key.
_IDENTITY = {_ITEM: {"apiVersion": "api_version", "kind": "kind"}, _META: {"name": "name", "namespace": "namespace"}}


class _Doc(NamedTuple):
    """One document as walked: its root as an item, the entries of its root's `items` sequence, the
    envelope's composed root (KRM mode), and the first key its root mapping has twice."""

    item: Item | None = None
    entries: list[Item] | None = None
    items_node: SequenceNode | None = None
    root: MappingNode | None = None
    root_dup: tuple[str, int, int] | None = None


class _Tangled(Exception):
    """The envelope names an anchor inside an item: the document is composed whole instead."""


def _string(event: ScalarEvent) -> str | None:
    """The scalar's value when go-yaml reads it as a string (plain text that is no number, bool or null, a
    quoted one, one tagged `!` or with a tag go-yaml does not know): go_scalars.scalar_tag, as a value."""
    return event.value if go_scalars.scalar_tag(event) == go_scalars.STR_TAG else None


def _walk(text: str, source: Source, base: int, line0: int, envelope: bool) -> list[_Doc]:
    """The documents of `text` (which begins at offset `base`, line `line0` of `source`). `envelope`: KRM
    mode, whose one document's root is composed but for its items."""
    if "\\/" in text:
        refusals.refuse_slash_escapes(text, yamlio.events(text), tree.marker(base, line0))
    stream = yamlio.events(text)
    docs: list[_Doc] = []
    for event in stream:
        if event.__class__ is DocumentStartEvent:
            refusals.refuse_document_start(text, event, tree.marker(base, line0)(event.start_mark))
            docs.append(_document(next(stream), stream, source, base, line0, envelope, "&" in text))
            next(stream)  # its DocumentEndEvent
    return docs


def _document(event: Any, stream: Iterator[Any], source: Source, base: int, line0: int, envelope: bool,
              anchored: bool) -> _Doc:
    mark = tree.marker(base, line0)
    full = source.text
    items_node: SequenceNode | None = None  # the root's `items`, once it starts
    root_dup: tuple[str, int, int] | None = None
    owner: dict[str, int] = {}  # anchor -> the entry that defines it (-1: outside every entry)
    anchor_nodes: dict[str, yaml.Node] = {}
    ties: set[int] = set()
    entries: list[Item] = []
    stack: list[list[Any]] = []  # [is a mapping, keys seen (key -> line), value pending, key, role, flow]
    root = rec = _new_item(event, source, base, line0, -1)
    entry: Item | None = None
    entry_depth = -1
    last_end = 0
    pairs: list[tuple[yaml.Node, yaml.Node]] = []  # the envelope's entries (KRM mode)
    pending: yaml.Node | None = None  # the envelope's key whose value comes next
    while True:
        cls = event.__class__
        top = stack[-1] if stack else None
        if envelope and top is not None and len(stack) == 1 and top[0] and cls is not MappingEndEvent \
                and not (top[2] and top[3] == "items" and cls is SequenceStartEvent):
            # the envelope itself: composed as it is walked (its items are not)
            try:
                node = yamlio.compose_node(event, stream, anchor_nodes, mark, depth=1)
            except yaml.composer.ComposerError as exc:
                if "undefined alias" in str(exc.problem):
                    raise _Tangled() from None
                raise
            for name in anchor_nodes:
                owner.setdefault(name, -1)
            if top[2]:
                if pending is not None:
                    pairs.append((pending, node))
                last_end = max(last_end, node_end(node, full))
            else:
                pending = node
                top[3] = node.value if isinstance(node, ScalarNode) else None
                if isinstance(node, ScalarNode):
                    first = top[1].get(node.value)
                    line = node.start_mark.line
                    if first is None:
                        top[1][node.value] = line
                    elif root_dup is None:
                        root_dup = (node.value, first + 1, line + 1)
            top[2] = not top[2]
            event = next(stream)
            continue
        if len(stack) >= refusals.MAX_DEPTH and cls is not MappingEndEvent and cls is not SequenceEndEvent:
            raise refusals.too_deep(mark(event.start_mark))
        if cls is ScalarEvent or cls is AliasEvent:
            last_end = event.end_mark.index + base
            if cls is AliasEvent:
                here = entry.index if entry is not None else -1
                home = owner.get(event.anchor)
                if home is None:
                    raise yaml.composer.ComposerError(None, None, f"found undefined alias {event.anchor!r}",
                                                      mark(event.start_mark))
                if home != here:
                    ties.update(i for i in (home, here) if i >= 0)
            elif anchored and event.anchor is not None:
                owner[event.anchor] = entry.index if entry is not None else -1  # a later one wins (_anchor)
            if top is None:  # a document that is one scalar: nothing (skipped), or an item that is no mapping
                root.is_mapping = False
                if cls is ScalarEvent and event.tag is None and go_scalars.scalar_tag(event) == go_scalars.NULL_TAG:
                    return _Doc()
                root.end = line_end(full, last_end)
                return _Doc(root)
            if not top[0]:  # an entry of a sequence
                if top[4] == _ITEMS:
                    item = _new_item(event, source, base, line0, len(entries))
                    item.is_mapping, item.in_flow = False, top[5]
                    item.end = last_end if item.in_flow else line_end(full, last_end)
                    entries.append(item)
            elif not top[2]:  # a key
                key = event.value if cls is ScalarEvent else None
                top[3] = key
                if key == "<<" and top[4] != _OTHER:
                    rec.derive = True  # a merge key in its identity: read it from its data
                # A second `<<` is a key given twice too: kustomize refuses it ("duplicate merge key"), kubectl
                # merges both.
                if key is not None:
                    seen = top[1]
                    first = seen.get(key)
                    line = event.start_mark.line + line0
                    if first is None:
                        seen[key] = line
                    else:
                        top[3] = None  # the first of a key given twice is the one read (as `child` reads)
                        if len(stack) == 1 and entry is None:
                            root_dup = root_dup or (key, first + 1, line + 1)
                        rec.duplicate = rec.duplicate or (key, first + 1, line + 1)
            else:  # a value: read only where it is the item's identity or an annotation
                role, key = top[4], top[3]
                if role == _OTHER:
                    pass
                elif cls is AliasEvent:
                    rec.derive = True  # an alias in its identity: read it from its data
                elif role in _IDENTITY:
                    attr = _IDENTITY[role].get(key)
                    if attr is not None:
                        value = _string(event)
                        setattr(rec, attr, value or "")
                        if value is None and rec.odd is None:
                            tag = go_scalars.scalar_tag(event)
                            if tag != go_scalars.NULL_TAG:
                                rec.odd = (("metadata." if role == _META else "") + key, event.value, go_scalars.reads_as(tag))
                    elif role == _META and key == "generateName":
                        rec.generate_name = _string(event) is not None
                elif role == _ANNS and key is not None:
                    rec.ann_keys.append(key)
                    value = _string(event)
                    if value is not None:
                        rec.ann[key] = value
            if top[0]:
                top[2] = not top[2]
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            is_map = cls is MappingStartEvent
            role = _OTHER
            if top is None:
                role = _ITEM if is_map else _OTHER
                root.is_mapping = is_map
            elif not top[0]:
                if top[4] == _ITEMS:  # an entry of the root's items: an item of its own
                    entry = rec = _new_item(event, source, base, line0, len(entries))
                    entry.is_mapping, entry.in_flow = is_map, top[5]
                    entries.append(entry)
                    entry_depth = len(stack)
                    role = _ITEM if is_map else _OTHER
            elif top[2]:
                parent, key = top[4], top[3]
                if parent == _ITEM and key == "metadata" and is_map:
                    role = _META
                elif parent == _META and key == "annotations" and is_map:
                    role = _ANNS
                elif parent == _ITEM and key == "items" and not is_map and len(stack) == 1:
                    role = _ITEMS
                    items_node = SequenceNode(go_scalars.SEQ_TAG, [], mark(event.start_mark), mark(event.start_mark),
                                              event.flow_style)
                elif parent == _ANNS and key is not None:
                    rec.ann_keys.append(key)
            else:
                top[3] = None  # a key that is a mapping or a sequence
            if anchored and event.anchor is not None:
                owner[event.anchor] = entry.index if entry is not None else -1  # a later one wins (_anchor)
            stack.append([is_map, {} if is_map else None, False, None, role, event.flow_style])
        else:  # the end of a mapping or a sequence
            done = stack.pop()
            if done[5]:
                last_end = event.end_mark.index + base
            if done[4] == _ITEMS and items_node is not None:
                items_node.end_mark = tree.Mark(last_end, 0, 0)
                if pending is not None:
                    pairs.append((pending, items_node))
            if entry is not None and len(stack) == entry_depth:
                entry.end = last_end if entry.in_flow else line_end(full, last_end)
                entry, rec = None, root
            if not stack:
                break
            top = stack[-1]
            if top[0]:
                top[2] = not top[2]
        event = next(stream)
    # the root mapping or sequence has ended
    root.end = line_end(full, last_end)
    envelope_root = None
    if envelope and root.is_mapping:
        start: Any = tree.Mark(root.start, root.line, root.column)
        envelope_root = MappingNode(go_scalars.MAP_TAG, pairs, start, mark(event.end_mark), done[5])
    for item in entries:
        item.shared = item.index in ties
    return _Doc(root, entries if items_node is not None else None, items_node, envelope_root, root_dup)


def _new_item(event: Any, source: Source, base: int, line0: int, index: int) -> Item:
    item = Item(index=index, node=None, source=source.text, start=event.start_mark.index + base, end=0)
    item.line, item.column = event.start_mark.line + line0, event.start_mark.column
    item.src, item.base = source, base
    return item


# --- the two entries -----------------------------------------------------------------------------------

def read_resource_list(data: bytes) -> ResourceList:
    """The ResourceList of the input (KRM mode)."""
    text = decode(data)
    if not text.strip():
        raise InputError("input is empty; expected a ResourceList on stdin")
    try:
        refusals.refuse_separator_lines(text)
        return _resource_list(text, Source(text))
    except yaml.YAMLError as exc:
        raise _input_error(exc, text) from None


def _resource_list(text: str, source: Source) -> ResourceList:
    try:
        docs = [d for d in _walk(text, source, 0, 0, envelope=True) if d.item is not None]
    except _Tangled:
        return _tied_resource_list(text, source)
    if any(item.shared for d in docs for item in d.entries or ()):
        # Anchors tie items to each other or to the envelope: the document composed whole, so that every
        # alias leads to the one node the writer sees (rare: kpt and kustomize send no anchors).
        return _tied_resource_list(text, source)
    if not docs:
        raise InputError("input holds no YAML document; expected a ResourceList")
    if len(docs) > 1:
        raise InputError(f"input holds {len(docs)} YAML documents; expected one ResourceList (use `kaito-specdec render` for a plain stream)", _start(docs[1].item))
    doc = docs[0]
    if doc.root is None:
        raise InputError("input is not a ResourceList: the document is not a mapping", _start(doc.item))
    kind = check_envelope(doc.root)
    _refuse_duplicates(doc.root_dup, doc.root, kind)
    items_node = _items_of(doc.root, kind)
    items: list[Item] = []
    if items_node is doc.items_node and doc.entries is not None:
        items = doc.entries
    elif items_node is not None:  # `items: *list`: the list is written elsewhere
        return _tied_resource_list(text, source)
    _derive(items)
    return ResourceList(text=text, root=doc.root, items_node=items_node, items=items,
                        function_config=_function_config(doc.root))


def _tied_resource_list(text: str, source: Source) -> ResourceList:
    walked = [d for d in _walk(text, source, 0, 0, envelope=False) if d.item is not None]
    roots = [n for n in yamlio.compose_all(text) if not tree.is_null(n)]
    if len(roots) != 1 or not isinstance(roots[0], MappingNode) or len(walked) != 1:
        raise InputError("input is not one ResourceList", roots[1].start_mark if len(roots) > 1 else None)
    root = roots[0]
    kind = check_envelope(root)
    _refuse_duplicates(walked[0].root_dup, root, kind)
    items_node = _items_of(root, kind)
    entries = items_node.value if items_node is not None else []
    items = [make_item(i, n, text, bool(items_node and items_node.flow_style)) for i, n in enumerate(entries)]
    for item, seen in zip(items, walked[0].entries or (), strict=False):  # `items: *list`: no entries walked
        item.duplicate, item.shared = seen.duplicate, seen.shared
    return ResourceList(text=text, root=root, items_node=items_node, items=items, function_config=_function_config(root),
                        shared=frozenset(item.index for item in items if item.shared))


def _items_of(root: MappingNode, kind: str) -> SequenceNode | None:
    """The envelope's `items` list; None for none or null."""
    items = child(root, "items")
    if items is None or isinstance(items, SequenceNode):
        return items
    if not tree.is_null(items):
        raise InputError(f"{kind}.items is not a list", items.start_mark)
    return None


def read_stream(sources: list[tuple[str, bytes]]) -> Stream:
    """Documents of several files (name, bytes), in order; empty documents are skipped. A List's or a
    ResourceList's items stand in its place; the stream's functionConfig is the first ResourceList's."""
    items: list[Item] = []
    function_config: yaml.Node | None = None
    for name, data in sources:
        text = ""
        try:
            text = decode(data)
            refusals.refuse_separator_lines(text)
            source = Source(text)
            docs = [d for base, line, piece in source.pieces() for d in _walk(piece, source, base, line, False)]
        except InputError as exc:
            exc.source = name  # render names the file (and line) in front of the message
            raise
        except yaml.YAMLError as exc:
            error = _input_error(exc, text)
            error.source = name
            raise error from None
        documents: list[Item] = []
        number = 0
        for doc in docs:
            item = doc.item
            if item is None:
                continue
            envelope = item.is_mapping and _is_envelope_item(item)
            if envelope:
                root = None
                if doc.root_dup is not None or "functionConfig" in text[item.start:item.end]:
                    root = _root_of(item)
                try:
                    _refuse_duplicates(doc.root_dup, root, item.kind or "List")
                except InputError as exc:
                    error = InputError(f"document {number + 1}: {exc}")
                    error.source, error.line = name, exc.line
                    raise error from None
                fc = child(root, "functionConfig")
                if function_config is None and isinstance(fc, MappingNode) and doc.entries is not None:
                    function_config = fc
            if envelope and doc.entries is not None:
                members = doc.entries
            else:
                members = [item]
                documents.append(item)
            for member in members:
                member.index, member.origin, member.origin_index = len(items), name, number
                items.append(member)
            number += 1
        _comments_around(text, documents)
    _derive(items)
    return Stream(items=items, shared=frozenset(item.index for item in items if item.shared), function_config=function_config)


def _is_envelope_item(item: Item) -> bool:
    return item.kind == krm.LIST_KIND or (item.kind == krm.RESOURCE_LIST_KIND and
                                          item.api_version.startswith(krm.RESOURCE_LIST_API_PREFIX))


def _root_of(item: Item) -> MappingNode | None:
    """The composed root of the document an envelope item is (only to read its functionConfig or to word
    a key it has twice)."""
    try:
        root = item.src.node_at(item.start, item.base) if item.src is not None else None
    except yaml.YAMLError:
        return None
    return root if isinstance(root, MappingNode) else None


def _function_config(root: MappingNode) -> yaml.Node | None:
    fc = child(root, "functionConfig")
    return None if tree.is_null(fc) else fc


def _refuse_duplicates(dup: tuple[str, int, int] | None, root: MappingNode | None, what: str) -> None:
    where = f"the {what}"
    if dup is None:
        found = duplicate_key(child(root, "functionConfig"))
        if found is not None:
            key, first = found
            dup, where = (key.value, first.start_mark.line + 1, key.start_mark.line + 1), f"the {what}'s functionConfig"
    if dup is not None:
        key_text, first_line, line = dup
        error = InputError(f"the key {key_text!r} appears twice in {where} (line {first_line} and line {line}): which one is meant is not clear, and kpt and Kubernetes refuse such a document")
        error.line = line
        raise error


def _derive(items: list[Item]) -> None:
    """Items whose identity an alias or a merge key gives: read it from their data, as go-yaml does."""
    for item in items:
        if not item.derive:
            continue
        item.derive = False
        try:
            data = item.data()
        except Exception:  # noqa: BLE001 - its data is its stages' business: they say why it cannot be read
            continue
        if not isinstance(data, dict):
            continue
        meta = data.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        ann = meta.get("annotations")
        ann = ann if isinstance(ann, dict) else {}

        def text(value: Any) -> str:
            return value if isinstance(value, str) else ""
        item.api_version, item.kind = text(data.get("apiVersion")), text(data.get("kind"))
        item.name, item.namespace = text(meta.get("name")), text(meta.get("namespace"))
        item.generate_name = isinstance(meta.get("generateName"), str)
        item.odd = None
        for field, value in (("apiVersion", data.get("apiVersion")), ("kind", data.get("kind")),
                             ("metadata.name", meta.get("name")), ("metadata.namespace", meta.get("namespace"))):
            if value is not None and not isinstance(value, (str, dict, list)):
                item.odd = (field, str(value).lower() if isinstance(value, bool) else str(value),
                            "a boolean" if isinstance(value, bool) else "a number")
                break
        item.ann_keys = [k for k in ann if isinstance(k, str)]
        item.ann = {k: v for k, v in ann.items() if isinstance(k, str) and isinstance(v, str)}


def _start(item: Item | None) -> Any:
    if item is None:
        return None
    return tree.Mark(item.start, item.line, item.column)


def _input_error(exc: yaml.YAMLError, text: str) -> InputError:
    """The parser's whole story: what it was reading and where that began, then what it found where."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if problem == "found incompatible YAML document":  # libyaml's words for `%YAML 1.2`
            problem = "a %YAML directive: kubectl, kustomize and kpt refuse a file with one; remove it"
        elif problem == "found unknown escape character" and mark is not None and \
                text[mark.index:mark.index + 2] == "\\'":
            # go-yaml reads `\'` as `'` (kubectl and kustomize read "it's"); libyaml has no such escape. The one
            # thing the cluster's tools read that the function cannot: say so plainly.
            problem = "an escaped quote \\' in a double-quoted string, which kubectl, kustomize and kpt read as ' but libyaml (which kaito-specdec reads with) refuses; write ' without the backslash"
        context = ""
        if exc.context and exc.problem:
            began = f" ({tree.position(exc.context_mark)})" if exc.context_mark is not None and \
                tree.position(exc.context_mark) != tree.position(mark) else ""
            context = f"{exc.context}{began}: "
        error = InputError(f"input is not valid YAML: {context}{problem}", mark)
        error.line = mark.line + 1 if mark is not None else None
        return error
    if isinstance(exc, yaml.reader.ReaderError):
        # No mark here, and libyaml counts the position in UTF-8 bytes.
        pos = len(text.encode("utf-8")[:exc.position].decode("utf-8", "ignore"))
        where = f"line {searchable(text).count(chr(10), 0, pos) + 1}, column {column_of(text, pos) + 1}"
        char = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        return InputError(f"input is not valid YAML: unacceptable character {char}: {exc.reason} ({where})")
    return InputError(f"input is not valid YAML: {exc}")
