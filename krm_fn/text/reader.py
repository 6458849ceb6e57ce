"""Bytes in, a ResourceList (or a plain stream of documents) out: one walk of libyaml's events.

The walk gives each item its exact region of source text (from the events' marks), its identity and
annotations (from the scalars), the first key one of its mappings has twice, and whether an alias ties it to
another item. Nothing of an item is composed during the walk: its node is composed from its own lines when a
stage first asks (`Item.node`), so an item no stage looks into costs only its events. The envelope around the
items (a ResourceList's functionConfig and old results) is composed as it is walked. Scalars are read as
go-yaml reads them (go_scalars.py), nodes composed by yamlio.py; a document with a directive, or nesting past
refusals.MAX_DEPTH, is refused as kubectl, kustomize and kpt refuse it (refusals.py).

The walk is small steps over a stack of frames, one per open mapping (`_Mapping`) or sequence (`_Sequence`),
each with its role: what it is to its item (the item itself, its metadata, its annotations, the root's
`items`, or nothing the walk reads). `_DocumentWalk.walk_until` hands the events of the frames with a role
to `scalar`, `start` and `end`, and passes a frame without one (`spec`, `data` …: most events) to
`walk_plain`, which only notes its keys, anchors and aliases and where its text ends. An item's identity
is decided when it ends, by identity.py from the scalars the walk noted.
"""

import sys
from collections.abc import Iterator
from typing import Any, NamedTuple

import yaml
from yaml.events import (AliasEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                         SequenceEndEvent, SequenceStartEvent)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from . import krm, refusals, tree, yamlio
from .go_scalars import (BOOL_TAG, FLOAT_TAG, INT_TAG, MAP_TAG, NULL_TAG, SEQ_TAG, STR_TAG, V2_ONLY_WORDS,
                         plain_reads_as, scalar_tag)
from .identity import GENERATE_NAME, identity, of_data
from .items import (A_LIST, A_MAPPING, InputError, Item, ResourceList, Source, Stream, Tied,
                    _comments_around, check_envelope, decode, duplicate_key, make_item, no_string_of, type_checked,
                    typed_meta_of)
from .refusals import MAX_DEPTH
from .tree import Mark, child, column_of, line_end, node_end, searchable

# What a mapping or a sequence being walked is to the item it belongs to.
_OTHER = 0  # nothing the walk reads in it but keys given twice, anchors and aliases
_ITEM = 1   # an item's own mapping: apiVersion, kind, metadata
_META = 2   # the item's metadata: name, namespace, generateName, annotations
_ANNS = 3   # the item's metadata.annotations
_ITEMS = 4  # the root's `items` sequence: each entry is an item of its own
_LABELS = 5  # the item's metadata.labels
# What a label's or an annotation's value that is no string reads as (a null is sent as none, a timestamp and
# binary data as their text): kubectl refuses the object (SD066).
_NO_STRING = {BOOL_TAG: "a boolean", INT_TAG: "a number", FLOAT_TAG: "a number"}
# The identity field (identity.py) a key of an item's own mapping or of its metadata gives.
_INTERNED = frozenset(("apiVersion", "kind"))
_FIELDS = {_ITEM: {"apiVersion": "apiVersion", "kind": "kind"},
           _META: {"name": "metadata.name", "namespace": "metadata.namespace", "generateName": GENERATE_NAME}}


class _Mapping:
    """A mapping being walked. (A plain class with slots, not a dataclass: a dataclass costs a run's start-up
    about 3.8 M instructions to define, docs/performance.md.)"""

    __slots__ = ("role", "flow", "keys", "at_value", "key")

    def __init__(self, role: int, flow: bool) -> None:
        self.role = role
        self.flow = flow  # a flow mapping (`{…}`): its text ends at its `}`
        self.keys: dict[str, int] = {}  # each key's line (0-based, in the file)
        self.at_value = False  # a key was read: its value comes next
        # that key, read only in a mapping with a role: None for an alias, a mapping or a list as a key, or a
        # key given twice
        self.key: str | None = None


class _Sequence:
    """A sequence being walked."""

    __slots__ = ("role", "flow")

    def __init__(self, role: int, flow: bool) -> None:
        self.role = role  # _ITEMS or _OTHER
        self.flow = flow  # a flow sequence (`[…]`): its text ends at its `]`, and its entries at their own ends


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


def _walk(text: str, source: Source, base: int, line0: int, envelope: bool) -> list[_Doc]:
    """The documents of `text` (which begins at offset `base`, line `line0` of `source`). `envelope`: KRM
    mode, whose one document's root is composed but for its items."""
    if "\\/" in text:
        refusals.refuse_slash_escapes(text, yamlio.events(text), tree.marker(base, line0))
    if "\ufeff" in text:
        refusals.refuse_inner_byte_order_marks(text, yamlio.events(text), tree.marker(base, line0), fresh=base == 0)
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
    """The document that starts with `event`, walked up to its end (its DocumentEndEvent is left in `stream`)."""
    walk = _DocumentWalk(event, source, base, line0, anchored)
    cls = event.__class__
    if cls is ScalarEvent or cls is AliasEvent:
        return walk.lone_scalar(event)
    if envelope and cls is MappingStartEvent:
        return walk.envelope(event, stream)
    walk.walk_until(event, stream, 0)
    return walk.finish(None)


class _DocumentWalk:
    """What the steps of one document's walk share. `stack`: the mappings and sequences open, innermost last;
    `rec`: the item the scalars tell of (the open entry of the root's items, else the root); `scalars`: rec's
    identity fields so far (field -> (tag, text)), which `identity` decides when rec ends."""

    __slots__ = ("source", "text", "base", "line0", "mark", "anchored", "stack", "root", "rec", "scalars",
                 "root_scalars", "entry", "entry_depth", "entries", "items_node", "root_dup", "owner", "ties",
                 "links", "outside", "last_end", "anchor_nodes", "pairs", "pending", "texts", "frames", "after_items",
                 "plain")

    def __init__(self, first: Any, source: Source, base: int, line0: int, anchored: bool) -> None:
        self.source, self.text, self.base, self.line0 = source, source.text, base, line0
        self.mark = tree.marker(base, line0)
        self.anchored = anchored  # the text has an `&`: anchors are noted, to tell which items aliases tie
        self.stack: list[_Mapping | _Sequence] = []
        self.root = self.rec = _new_item(first, source, base, line0, -1)
        self.scalars: dict[str, tuple[str, str]] = {}
        self.root_scalars = self.scalars
        self.entry: Item | None = None  # the open entry of the root's items
        self.entry_depth = -1  # how many mappings and sequences are open around it
        self.entries: list[Item] = []
        self.items_node: SequenceNode | None = None  # the root's `items`, once it starts
        self.root_dup: tuple[str, int, int] | None = None
        self.owner: dict[str, int] = {}  # anchor -> the entry that defines it (-1: outside every entry)
        self.ties: set[int] = set()  # the entries an alias ties to another entry or to the envelope
        self.links: list[tuple[int, int]] = []  # (anchor's, alias's) entry of each alias that ties two entries
        self.outside = False  # an alias ties an entry to the envelope (or the root): composed with it whole
        self.last_end = 0  # where the last scalar, alias or flow mapping or sequence ended
        self.texts: dict[str, str | None] = {}  # anchor -> its scalar's text (None: a mapping or a sequence)
        # anchor -> the mapping or sequence it names, while the walk may still be in it (None: a scalar's)
        self.frames: dict[str, _Mapping | _Sequence | None] = {}
        self.after_items: int | None = None  # where the root's first key after its `items` begins (the walk's)
        self.plain: set[str] = set()  # the anchors of untagged plain scalars
        # KRM mode (`envelope`): the envelope's key whose value comes next; `envelope` sets the anchors and the
        # keys and values it has composed (anchor_nodes, pairs)
        self.pending: yaml.Node | None = None

    # --- the document ---------------------------------------------------------------------------------

    def walk_until(self, event: Any, stream: Iterator[Any], depth: int) -> None:
        """Walk from `event` on until `depth` mappings and sequences are open again. A mapping or a sequence
        that tells nothing of its item (`spec`, `data` …) is passed over by `walk_plain`, in one go."""
        stack = self.stack
        while True:
            cls = event.__class__
            if cls is ScalarEvent or cls is AliasEvent:
                self.scalar(event)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                self.start(event)
                if stack[-1].role == _OTHER:
                    event = self.walk_plain(stream)  # its end, which is this loop's
                    continue
            else:
                self.end(event)
                if len(stack) == depth:
                    return
            event = next(stream)

    def walk_plain(self, stream: Iterator[Any]) -> Any:
        """The events of the mapping or sequence just opened, which tells nothing of its item, up to its end
        event (returned, not taken). Most of a large input's events are here: one loop, which notes keys (a
        key given twice is an error), anchors and aliases, and where the text ends, and calls nothing for the
        common event."""
        stack = self.stack
        depth = len(stack)
        base, line0, anchored = self.base, self.line0, self.anchored
        top = stack[-1]
        while True:
            event = next(stream)
            cls = event.__class__
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                if len(stack) == depth:
                    return event
                if stack.pop().flow:
                    self.last_end = event.end_mark.index + base
                top = stack[-1]
                if type(top) is _Mapping:
                    top.at_value = not top.at_value
                continue
            if len(stack) >= MAX_DEPTH:
                raise refusals.too_deep(self.mark(event.start_mark))
            if cls is AliasEvent or (anchored and event.anchor is not None):
                self.anchor_or_alias(event)
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                flow = event.flow_style
                top = _Mapping(_OTHER, flow) if cls is MappingStartEvent else _Sequence(_OTHER, flow)
                stack.append(top)
                if anchored and event.anchor is not None:
                    self.frames[event.anchor] = top
                continue
            self.last_end = event.end_mark.index + base if cls is AliasEvent or event.value else self.empty_end(event)
            if type(top) is not _Mapping:
                continue
            if top.at_value:
                top.at_value = False
            elif cls is ScalarEvent:
                top.at_value = True
                if event.value in top.keys:
                    self.odd_key(event.value, event.start_mark.line + line0, top)  # given twice
                else:
                    top.keys[event.value] = event.start_mark.line + line0
            else:
                top.at_value = True
                self.alias_key(event, top)

    def alias_key(self, event: Any, top: _Mapping) -> None:
        """An alias as a key of a mapping the walk does not read: the key its anchor's scalar is, noted as any
        key is (`{a: 1, *k : 2}` with `&k a` gives `a` twice: kustomize refuses it, kubectl reads the later)."""
        key = self.texts.get(event.anchor)
        if key is None:
            return
        line = event.start_mark.line + self.line0
        self.odd_alias_key(event.anchor, key, line, top.role)
        if key in top.keys:
            self.odd_key(key, line, top)
        else:
            top.keys[key] = line

    def odd_alias_key(self, name: str, key: str, line: int, role: int) -> None:
        """An alias as a key that kubectl and kustomize read apart (the first one is noted: SD019). kubectl turns
        the anchor's value into the key's text (a plain `y` is `true` to it); go-yaml v3 keeps a plain anchor's
        value as it reads it (`y` a string; `5`, `true`, a date no string: kustomize and kpt refuse the object),
        and reads a quoted anchor's text again where kyaml rewrites the mapping: annotations, in every build."""
        if self.rec.alias_key is not None or (name not in self.plain and role != _ANNS):
            return
        if name in self.plain and key in V2_ONLY_WORDS:
            self.rec.alias_key = (name, key, line, "read-apart", "a boolean")
            return
        reads = plain_reads_as(key, v3=True)
        if reads is not None:
            self.rec.alias_key = (name, key, line, "alias", reads)

    def lone_scalar(self, event: Any) -> _Doc:
        """A document that is one scalar: nothing (a null: skipped), or an item that is no mapping."""
        self.last_end = event.end_mark.index + self.base
        if event.__class__ is AliasEvent:
            self.anchor_or_alias(event)  # no anchor is defined yet: refused
        root = self.root
        root.is_mapping = False
        if event.__class__ is ScalarEvent and event.tag is None and scalar_tag(event) == NULL_TAG:
            return _Doc()
        root.end = line_end(self.text, self.last_end)
        return _Doc(root)

    def envelope(self, event: Any, stream: Iterator[Any]) -> _Doc:
        """KRM mode: a root mapping whose keys and values are composed as they come (the envelope), but for
        the entries of its `items`, which are walked as items."""
        flow = event.flow_style
        self.anchor_nodes: dict[str, yaml.Node] = {}  # the envelope's anchors, as composed
        self.pairs: list[tuple[yaml.Node, yaml.Node]] = []  # its keys and values, as composed
        self.start(event)
        top = self.stack[0]
        assert isinstance(top, _Mapping)
        event = next(stream)
        while event.__class__ is not MappingEndEvent:
            if top.at_value and top.key == "items" and event.__class__ is SequenceStartEvent:
                self.walk_until(event, stream, 1)
            else:
                self.compose(event, stream, top)
            event = next(stream)
        self.end(event)
        root = self.root
        start: Any = Mark(root.start, root.line, root.column)
        return self.finish(MappingNode(MAP_TAG, self.pairs, start, self.mark(event.end_mark), flow))

    def finish(self, envelope: MappingNode | None) -> _Doc:
        """The root mapping or sequence has ended: the document as walked."""
        root = self.root
        root.end = line_end(self.text, self.last_end)
        root.identity = identity(self.root_scalars)
        ties = self.ties
        for item in self.entries:
            item.shared = item.index in ties
        if self.links and not self.outside:
            _tie(self.entries, self.links, self.items_node)
        bound = self.after_items  # the last item ends before the root's next key
        if envelope is not None:  # the envelope's key after `items`, composed: the last item ends before it
            keys = [k for k, v in self.pairs]
            after = [i + 1 for i, (_, v) in enumerate(self.pairs) if v is self.items_node]
            bound = keys[after[0]].start_mark.index if after and after[0] < len(keys) else None
        trust(self.entries, self.text, bound)
        entries = self.entries if self.items_node is not None else None
        return _Doc(root, entries, self.items_node, envelope, self.root_dup)

    # --- the steps --------------------------------------------------------------------------------------

    def scalar(self, event: Any) -> None:
        """A scalar or an alias in a mapping or a sequence with a role: a key (noted here), a value, or an entry
        of the root's items."""
        stack = self.stack
        if len(stack) >= MAX_DEPTH:
            raise refusals.too_deep(self.mark(event.start_mark))
        is_alias = event.__class__ is AliasEvent
        self.last_end = event.end_mark.index + self.base if is_alias or event.value else self.empty_end(event)
        if is_alias or (self.anchored and event.anchor is not None):
            self.anchor_or_alias(event)
        top = stack[-1]
        if type(top) is not _Mapping:
            if top.role == _ITEMS:
                self.scalar_entry(event, top.flow)
        elif top.at_value:
            top.at_value = False
            self.value(event, top)
        else:
            top.at_value = True
            # An alias as a key (`*ns : prod`) is the key its anchor's scalar is, as kubectl, kustomize and
            # kpt read it; one of an anchor the walk has no text of (the envelope's, or a mapping's): the
            # item's identity and annotations are read from its data (_derive).
            key = top.key = self.texts.get(event.anchor) if is_alias else event.value
            if is_alias and key is not None:
                self.odd_alias_key(event.anchor, key, event.start_mark.line + self.line0, top.role)
            if len(stack) == 1 and self.items_node is not None and self.after_items is None:
                self.after_items = event.start_mark.index + self.base
            if key is None:
                self.rec.derive = True
            elif key in top.keys or key == "<<":
                self.odd_key(key, event.start_mark.line + self.line0, top)
            else:
                top.keys[key] = event.start_mark.line + self.line0

    def empty_end(self, event: Any) -> int:
        """Where the text read so far ends after an empty scalar: where its own text ends; one with no text at
        all that libyaml marks at the next token (`? x` with no value: tree.unwritten) moves no region's end."""
        end: int = event.end_mark.index + self.base
        return self.last_end if tree.unwritten(event.start_mark.index + self.base, end, "", self.text) else end

    def value(self, event: Any, top: _Mapping) -> None:
        """A value of an item's own mapping, its metadata or its annotations: an identity field, or an
        annotation (its key is noted whatever its value, its value only when it is a string)."""
        key, role = top.key, top.role
        if event.__class__ is AliasEvent:
            self.rec.derive = True  # an alias in its identity: read it from its data
        elif key is not None and role == _ANNS:
            self.rec.ann_keys.append(key)
            tag = scalar_tag(event)
            if tag == STR_TAG:
                self.rec.ann[key] = event.value
            elif tag in _NO_STRING:
                self.no_string("annotations", key, event.value, _NO_STRING[tag])
        elif key is not None and role == _LABELS:
            tag = scalar_tag(event)
            if tag in _NO_STRING:
                self.no_string("labels", key, event.value, _NO_STRING[tag])
        elif key is not None and role in _FIELDS:
            field = _FIELDS[role].get(key)
            if field is not None:
                # apiVersion and kind interned: 100 000 items of a few kinds keep one string of each, not 200 000
                text = sys.intern(event.value) if field in _INTERNED else event.value
                self.scalars[field] = (scalar_tag(event), text)
            if role == _META and type_checked(key, self.scalars[field][0] if field is not None else scalar_tag(event),
                                              event.value):
                self.rec.typed_meta = True  # `generation: "5"`, a name that is no string, `labels: 5` … (SD067)

    def start(self, event: Any) -> None:
        """A mapping or a sequence starts: what it is to its item (`role_below`), then it is open."""
        stack = self.stack
        if len(stack) >= MAX_DEPTH:
            raise refusals.too_deep(self.mark(event.start_mark))
        is_map = event.__class__ is MappingStartEvent
        role = _OTHER
        if not stack:  # the root
            role = _ITEM if is_map else _OTHER
            self.root.is_mapping = is_map
        else:
            top = stack[-1]
            if type(top) is _Mapping and not top.at_value:
                top.key = None  # a key that is a mapping or a sequence
            elif top.role != _OTHER:
                role = self.role_below(event, top, is_map)
        frame = _Mapping(role, event.flow_style) if is_map else _Sequence(role, event.flow_style)
        if self.anchored and event.anchor is not None:
            self.anchor(event.anchor)
            self.frames[event.anchor] = frame
        stack.append(frame)

    def end(self, event: Any) -> None:
        """A mapping or a sequence ends, and with it maybe the root's items or one of their entries."""
        stack = self.stack
        done = stack.pop()
        if done.flow:
            self.last_end = event.end_mark.index + self.base
        if done.role == _ITEMS and self.items_node is not None:
            self.items_node.end_mark = Mark(self.last_end, 0, 0)
            if self.pending is not None:
                self.pairs.append((self.pending, self.items_node))
        if self.entry is not None and len(stack) == self.entry_depth:
            self.close_entry(self.entry)
        if stack:
            top = stack[-1]
            if type(top) is _Mapping:
                top.at_value = not top.at_value

    def odd_key(self, key: str, line: int, top: _Mapping) -> None:
        """A merge key, or a key given twice: of a key given twice the first is the one read (as `child`
        reads it). A second `<<` is a key given twice too: kustomize refuses it ("duplicate merge key"),
        kubectl merges both."""
        if key == "<<" and top.role != _OTHER:
            self.rec.derive = True  # a merge key in its identity: read it from its data
        first = top.keys.get(key)
        if first is None:
            top.keys[key] = line
            return
        top.key = None
        twice = (key, first + 1, line + 1)
        if len(self.stack) == 1 and self.entry is None:
            self.root_dup = self.root_dup or twice
        self.rec.duplicate = self.rec.duplicate or twice

    def role_below(self, event: Any, top: _Mapping | _Sequence, is_map: bool) -> int:
        """The role of a mapping or a sequence that is an entry or a value of one with a role."""
        if isinstance(top, _Sequence):  # an entry of the root's items: an item of its own
            self.open_entry(event, top.flow, is_map)
            return _ITEM if is_map else _OTHER
        parent, key = top.role, top.key
        if parent == _ITEM and key == "metadata" and is_map:
            return _META
        if parent == _META and key == "annotations" and is_map:
            self.rec.ann, self.rec.ann_keys = {}, []  # its own (Item's are shared empty ones until now)
            return _ANNS
        if parent == _ITEM and key == "items" and not is_map and len(self.stack) == 1:
            at = self.mark(event.start_mark)
            self.items_node = SequenceNode(SEQ_TAG, [], at, at, event.flow_style)
            return _ITEMS
        if parent == _META and key == "labels" and is_map:
            return _LABELS
        if parent == _ANNS and key is not None:
            self.rec.ann_keys.append(key)
        if parent in (_ANNS, _LABELS) and key is not None:
            self.no_string("annotations" if parent == _ANNS else "labels", key, "", "a mapping" if is_map else "a list")
        if parent == _META and key is not None and type_checked(key, A_MAPPING if is_map else A_LIST):
            self.rec.typed_meta = True  # ownerReferences, finalizers, labels that are a list … (SD067)
        return _OTHER

    def no_string(self, where: str, key: str, text: str, reads: str) -> None:
        """A label's or an annotation's value that is no string: the first one is noted (SD066)."""
        if self.rec.no_string is None:
            self.rec.no_string = (f"metadata.{where}[{key}]", text, reads)

    def open_entry(self, event: Any, flow: bool, is_map: bool) -> None:
        """An entry of the root's items that is a mapping or a sequence starts: the item the scalars tell of."""
        entry = self.entry = self.rec = _new_item(event, self.source, self.base, self.line0, len(self.entries))
        entry.is_mapping, entry.in_flow = is_map, flow
        self.entries.append(entry)
        self.entry_depth = len(self.stack)
        self.scalars = {}

    def close_entry(self, entry: Item) -> None:
        entry.end = self.last_end if entry.in_flow else line_end(self.text, self.last_end)
        entry.identity = identity(self.scalars)
        self.entry, self.rec, self.scalars = None, self.root, self.root_scalars

    def scalar_entry(self, event: Any, flow: bool) -> None:
        """An entry of the root's items that is a scalar or an alias: an item that is no mapping."""
        item = _new_item(event, self.source, self.base, self.line0, len(self.entries))
        item.is_mapping, item.in_flow = False, flow
        item.end = self.last_end if flow else line_end(self.text, self.last_end)
        self.entries.append(item)

    def anchor_or_alias(self, event: Any) -> None:
        """An anchor is noted with the entry it is in; an alias ties the entry it is in to the anchor's."""
        name: str = event.anchor
        if event.__class__ is not AliasEvent:
            scalar = event.__class__ is ScalarEvent
            self.anchor(name, event.value if scalar else None, scalar and event.tag is None and event.implicit[0])
            return
        frame = self.frames.get(name)
        if frame is not None and any(f is frame for f in self.stack):
            # inside the node it names: kubectl and kustomize refuse the file (a cycle), whichever object it is in
            self.rec.cycle = True
        here = self.entry.index if self.entry is not None else -1
        home = self.owner.get(name)
        if home is None:
            raise yaml.composer.ComposerError(None, None, f"found undefined alias {name!r}",
                                              self.mark(event.start_mark))
        if home != here:  # the entries it ties (or the envelope, -1) are `shared`
            self.ties.update(i for i in (home, here) if i >= 0)
            if home < 0 or here < 0:
                self.outside = True
            else:
                self.links.append((home, here))

    def anchor(self, name: str, text: str | None = None, plain: bool = False) -> None:
        self.owner[name] = self.entry.index if self.entry is not None else -1  # a later one wins (yamlio._anchor)
        self.texts[name] = text
        self.frames[name] = None
        if plain:
            self.plain.add(name)
        else:
            self.plain.discard(name)

    def compose(self, event: Any, stream: Iterator[Any], top: _Mapping) -> None:
        """A key or a value of the envelope (KRM mode), composed (an alias to an anchor in an item: _Tangled)."""
        try:
            node = yamlio.compose_node(event, stream, self.anchor_nodes, self.mark, depth=1)
        except yaml.composer.ComposerError as exc:
            if "undefined alias" in str(exc.problem):
                raise _Tangled() from None
            raise
        for name in self.anchor_nodes:
            self.owner.setdefault(name, -1)
        if top.at_value:
            if self.pending is not None:
                self.pairs.append((self.pending, node))
            self.last_end = max(self.last_end, node_end(node, self.text))
        else:
            self.pending = node
            top.key = node.value if isinstance(node, ScalarNode) else None
            if isinstance(node, ScalarNode):
                self.envelope_key(node.value, node.start_mark.line, top)
        top.at_value = not top.at_value

    def envelope_key(self, key: str, line: int, top: _Mapping) -> None:
        first = top.keys.get(key)
        if first is None:
            top.keys[key] = line
        elif self.root_dup is None:
            self.root_dup = (key, first + 1, line + 1)


def _tie(entries: list[Item], links: list[tuple[int, int]], items: SequenceNode | None) -> None:
    """The entries aliases tie only to each other, in groups (each a Tied) composed apart from the document:
    one alias between two of 100 000 items composes two, not the list. A flow list, or an entry whose text
    does not start two columns past the dash or more, is composed with its whole document (Item.tied None)."""
    if items is None or items.flow_style:
        return
    dash = items.start_mark.column
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent.setdefault(i, i) != i:
            i = parent[i] = parent[parent[i]]
        return i

    for a, b in links:
        parent[root(a)] = root(b)
    groups: dict[int, list[Item]] = {}
    for i in sorted(parent):
        groups.setdefault(root(i), []).append(entries[i])
    for members in groups.values():
        if all(not m.in_flow and m.is_mapping and m.column >= dash + 2 for m in members):
            tied = Tied(members, dash)
            for m in members:
                m.tied = tied


def trust(items: list[Item], text: str, bound: int | None = None) -> None:
    """Hold each item's region to ending where the next item's begins, or before (a block list's next dash
    between them), and the last one before `bound` (the envelope's next key): an item whose region does not is
    `shared`, composed with its whole document and, when changed or dropped, written out whole with the list,
    never cut by its region (which would take a line of its neighbour with it)."""
    for item, after in zip(items, items[1:], strict=False):
        if item.end > after.start or (not after.in_flow and "-" not in text[item.end:after.start]):
            item.shared, item.tied = True, None
    if items and bound is not None and items[-1].end > bound:
        items[-1].shared, items[-1].tied = True, None


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
    if any(item.shared and item.tied is None for d in docs for item in d.entries or ()):
        # Anchors tie items to the envelope (or a region is not trusted): the document composed whole, so that
        # every alias leads to the one node the writer sees (rare: kpt and kustomize send no anchors). Items
        # tied only to each other are composed in their groups (Item.tied).
        return _tied_resource_list(text, source)
    if not docs:
        raise InputError("input holds no YAML document; expected a ResourceList")
    if len(docs) > 1:
        raise InputError(f"input holds {len(docs)} YAML documents; expected one ResourceList (use `kaito-specdec render` for a plain stream)", _start(docs[1].item))  # noqa: E501 (a message stays whole for grep)
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
                        function_config=_function_config(doc.root),
                        shared=frozenset(item.index for item in items if item.shared))


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
    seen_all = walked[0].entries or []
    for item, seen in zip(items, seen_all, strict=False):  # `items: *list`: no entries walked
        item.duplicate, item.shared, item.cycle = seen.duplicate, seen.shared, seen.cycle
        item.alias_key = seen.alias_key
    for item in items[len(seen_all):]:  # (their cycles found on the node: rare, and no alias key is looked for)
        item.cycle = refusals.expanded_size(item.node)[1] == float("inf")
    after = [i + 1 for i, (_, v) in enumerate(root.value) if v is items_node]
    trust(items, text, root.value[after[0]][0].start_mark.index if after and after[0] < len(root.value) else None)
    return ResourceList(text=text, root=root, items_node=items_node, items=items,
                        function_config=_function_config(root),
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
            docs = [d for base, line, piece in source.pieces() for d in _walk_piece(piece, source, base, line)]
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
        trust(documents, text)  # (documents: no dash between them; their regions may not meet either)
        _comments_around(text, documents)
    _derive(items)
    shared = frozenset(item.index for item in items if item.shared)
    return Stream(items=items, shared=shared, function_config=function_config)


def _walk_piece(piece: str, source: Source, base: int, line: int) -> list[_Doc]:
    """_walk of one piece of a file (Source.pieces): libyaml's own errors mark where they are in the piece,
    moved here to where they are in the file (the walk's and the refusals' marks are the file's already)."""
    try:
        return _walk(piece, source, base, line, False)
    except (yaml.scanner.ScannerError, yaml.parser.ParserError) as exc:
        if base:
            move = tree.marker(base, line)
            exc.problem_mark = move(exc.problem_mark) if exc.problem_mark is not None else None
            exc.context_mark = move(exc.context_mark) if exc.context_mark is not None else None
        raise


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
        error = InputError(f"the key {key_text!r} appears twice in {where} (line {first_line} and line {line}): which one is meant is not clear, and kpt and Kubernetes refuse such a document")  # noqa: E501 (a message stays whole for grep)
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
        item.identity = of_data(data)
        meta = data.get("metadata")
        ann = meta.get("annotations") if isinstance(meta, dict) else None
        ann = ann if isinstance(ann, dict) else {}
        item.ann_keys = [k for k in ann if isinstance(k, str)]
        item.ann = {k: v for k, v in ann.items() if isinstance(k, str) and isinstance(v, str)}
        item.no_string = no_string_of(meta)
        item.typed_meta = typed_meta_of(meta)


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
            problem = "an escaped quote \\' in a double-quoted string, which kubectl, kustomize and kpt read as ' but libyaml (which kaito-specdec reads with) refuses; write ' without the backslash"  # noqa: E501 (a message stays whole for grep)
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
