"""libyaml in and out, in one place: one composer over libyaml's events, the constructor, the safe emitter.

Composing keeps node positions (character offsets) so the writer can edit source text in place. The
composer is this module's own (`compose_events`), over libyaml's event stream, so that every node is read
as go-yaml reads it (go_scalars.py: kubectl, Argo CD and sigs.k8s.io/yaml on go-yaml v2; kustomize and kpt on
v3): a scalar's tag is `scalar_tag`'s, a tag on a mapping or a sequence is no reason to read it as anything
else. Constructing refuses what refusals.py refuses (a merge kubectl and kustomize read apart, an alias
bomb, nesting past MAX_DEPTH). Emitting is block style, without anchors, with strings quoted wherever go-yaml
v2 or v3, YAML 1.1 or YAML 1.2 would read them as something else (`go_scalars.ambiguous`).
"""

from collections.abc import Callable, Iterator
from typing import Any

import yaml
from yaml.events import AliasEvent, DocumentStartEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

try:
    from yaml import CSafeDumper, CSafeLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    raise SystemExit("kaito-specdec: PyYAML was built without libyaml, which kaito-specdec reads YAML with (as "
                     "kubectl and kustomize read it); reinstall it from its wheel: pip install --force-reinstall "
                     "--only-binary=:all: PyYAML") from None

from .go_scalars import (BOOL_TAG, FLOAT_TAG, INT_TAG, MAP_TAG, MERGE_TAG, NULL_TAG, SEQ_TAG, STR_TAG,
                         TIMESTAMP_TAG, ambiguous, go_resolve, go_scalar, scalar_tag)
from .refusals import MAX_DEPTH, Depth, NestingTooDeep, check_expansion, merge_conflict, too_deep
from .tree import marker


# --- the constructors: scalars decoded as go-yaml decodes them -----------------------------------------------

def timestamp_as_str(loader: Any, node: yaml.ScalarNode) -> str:
    # Kubernetes reads timestamps as strings; so do we, or they would change type on the way out. (The
    # scalar's text: also what a `<<` value is.)
    text: str = loader.construct_scalar(node)
    return text


class _Constructor(yaml.constructor.SafeConstructor):
    """Turns nodes from compose_events into Python data (PyYAML's safe constructors, go-yaml's scalars)."""


class _CLoader(Depth, CSafeLoader):
    """libyaml's composer, for `load` of a text without tags (where it reads as compose_events): the C
    composer asks this `resolve` for every untagged scalar."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode and implicit[0]:
            return MERGE_TAG if value == "<<" else go_resolve(value)[0]
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]  # PyYAML's stub
        return tag


for _cls in (_Constructor, _CLoader):
    for _tag in (BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG):
        _cls.add_constructor(_tag, go_scalar)
# `<<` as a value, a string: the C composer cannot tell a key from a value (the constructor merges keys
# before it constructs any, so only values reach this).
_CLoader.add_constructor(MERGE_TAG, timestamp_as_str)


# --- composing: libyaml's events to nodes --------------------------------------------------------------------

def events(text: str) -> Iterator[yaml.Event]:
    """libyaml's events (lazily: a caller may stop before an error further on)."""
    return yaml.parse(text, Loader=CSafeLoader)


def compose_events(stream: Iterator[yaml.Event], index: int = 0, line: int = 0) -> Iterator[yaml.Node]:
    """The root node of each document of an event stream, marks moved by `index` characters and `line`
    lines (the events of text cut from a larger one). Iterative: nesting is refused past MAX_DEPTH.
    (Directives are the reader's business: an embedded inference_config.yaml may have one.)"""
    mark = marker(index, line)
    for event in stream:
        if event.__class__ is DocumentStartEvent:
            yield compose_node(next(stream), stream, {}, mark)
            next(stream)  # the DocumentEndEvent


def compose_node(event: Any, stream: Iterator[Any], anchors: dict[str, yaml.Node], mark: Any,
                 depth: int = 0) -> yaml.Node:
    """The node that starts with `event`, its further events taken from `stream`, as go-yaml reads it:
    a scalar's tag is `scalar_tag`'s (a plain one resolved by go-yaml v2's rules, not PyYAML's YAML 1.1
    resolver; one tagged `!` or `!custom` a string, as go-yaml resolves only the tags it knows; `<<` a merge
    key only as a key), a mapping is a mapping and a sequence a sequence whatever their tag (`!!set`,
    `!!omap`, `!custom`). `depth`: how deep `event` is."""
    stack: list[list[Any]] = []  # [collection node, its pending key]
    while True:
        cls = event.__class__
        if cls is ScalarEvent:
            if len(stack) + depth >= MAX_DEPTH:
                raise too_deep(mark(event.start_mark))
            top = stack[-1] if stack else None
            tag = scalar_tag(event, top is not None and top[1] is None and top[0].__class__ is MappingNode)
            node: yaml.Node = ScalarNode(tag, event.value, mark(event.start_mark), mark(event.end_mark), event.style)
            _anchor(anchors, event.anchor, node)
        elif cls is AliasEvent:
            found = anchors.get(event.anchor)
            if found is None:
                raise yaml.composer.ComposerError(None, None, f"found undefined alias {event.anchor!r}",
                                                  mark(event.start_mark))
            node = found
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            if len(stack) + depth >= MAX_DEPTH:
                raise too_deep(mark(event.start_mark))
            start = mark(event.start_mark)
            node = (MappingNode(MAP_TAG, [], start, start, event.flow_style) if cls is MappingStartEvent
                    else SequenceNode(SEQ_TAG, [], start, start, event.flow_style))
            _anchor(anchors, event.anchor, node)
            stack.append([node, None])
            event = next(stream)
            continue
        else:  # the end of a mapping or a sequence
            node = stack.pop()[0]
            node.end_mark = mark(event.end_mark)
        if not stack:
            return node
        top = stack[-1]
        if top[0].__class__ is SequenceNode:
            top[0].value.append(node)
        elif top[1] is None:
            top[1] = node
        else:
            top[0].value.append((top[1], node))
            top[1] = None
        event = next(stream)


def _anchor(anchors: dict[str, yaml.Node], name: str | None, node: yaml.Node) -> None:
    # An anchor given again names the later node from there on, as YAML 1.2 and go-yaml read it (kubectl,
    # kustomize and kpt pass such a file); PyYAML's composer refuses it.
    if name is not None:
        anchors[name] = node


def compose_all(text: str) -> list[yaml.Node]:
    return list(compose_events(events(text)))


def compose(text: str) -> yaml.Node | None:
    """The one document of `text` (None for none; PyYAML's error for more)."""
    docs = compose_all(text)
    if len(docs) > 1:
        raise yaml.composer.ComposerError("expected a single document in the stream", docs[0].start_mark,
                                          "but found another document", docs[1].start_mark)
    return docs[0] if docs else None


def compose_first(text: str) -> yaml.Node | None:
    """The first document's node only: later documents are not even parsed (KAITO's yaml.Unmarshal reads
    the first document of inference_config.yaml; a broken second one is no error to it)."""
    node: yaml.Node | None = first_of(compose_events(events(text)))
    return node


def _guarded(read: Callable[[], Any]) -> Any:
    try:
        return read()
    except (KeyError, AttributeError, IndexError) as exc:  # `!!bool 6`: KeyError inside PyYAML, just bad YAML
        raise ValueError(f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None


def first_of(documents: Iterator[Any]) -> Any:
    """The first of PyYAML's documents (nodes or data), None for none; PyYAML's own slips are bad YAML."""
    return _guarded(lambda: next(documents, None))


def load_first(text: str) -> Any:
    """The first document's data only (see compose_first)."""
    node = compose_first(text)
    return None if node is None else _data(node)


def load(text: str) -> Any:
    """The data of the one document of `text` (the function's own output, a settings file, a text edit's
    result). Without a tag or an anchor (no `!`, no `&`: libyaml's composer refuses an anchor given twice)
    libyaml's own composer reads it as compose_events does, and faster."""
    if "!" not in text and "&" not in text:
        try:
            return _guarded(lambda: yaml.load(text, Loader=_CLoader))
        except NestingTooDeep:
            pass  # compose_events words it with the line
    node = compose(text)
    return None if node is None else _data(node)


def _data(node: yaml.Node) -> Any:
    return _guarded(lambda: _Constructor().construct_document(node))


def second_document(text: str, loader: type | None = None) -> int | None:
    """Where the second document starts (its `---`), or None when there is one document (or the text
    breaks off before a second one starts)."""
    starts = 0
    try:
        for event in yaml.parse(text, Loader=loader or CSafeLoader):
            if isinstance(event, yaml.DocumentStartEvent):
                starts += 1
                if starts == 2:
                    return int(event.start_mark.index) if event.start_mark is not None else None
    except yaml.YAMLError:
        pass
    return None


# --- constructing: an item's data ----------------------------------------------------------------------------

def _copy(node: yaml.Node, memo: dict[int, yaml.Node]) -> yaml.Node:
    """A copy of a node tree (aliases stay shared, marks are reused)."""
    done = memo.get(id(node))
    if done is not None:
        return done
    if isinstance(node, yaml.ScalarNode):
        new: yaml.Node = yaml.ScalarNode(node.tag, node.value, node.start_mark, node.end_mark, node.style)
    else:
        new = type(node)(node.tag, [], node.start_mark, node.end_mark, node.flow_style)  # type: ignore[call-arg,attr-defined]
    memo[id(node)] = new
    if isinstance(node, yaml.MappingNode):
        new.value = [(_copy(k, memo), _copy(v, memo)) for k, v in node.value]
    elif isinstance(node, yaml.SequenceNode):
        new.value = [_copy(v, memo) for v in node.value]
    return new


def construct(node: yaml.Node, may_merge: bool = True, may_alias: bool = True) -> Any:
    """Python data for one node (a subtree of a composed document).

    PyYAML resolves merge keys (`<<: *anchor`) by rewriting the mapping nodes in place; the reader and
    the writer need the composed nodes as they were (their positions are the source text), so the
    constructor works on a copy. A merge that kubectl and kustomize read differently is refused
    (merge_conflict). `may_alias=False` (the node's text has no `*`) skips the alias budget.
    """
    if may_alias:
        check_expansion(node)
    if may_merge:
        conflict = merge_conflict(node)
        if conflict is not None:
            raise ValueError(conflict)
    constructor = _Constructor()
    try:
        return constructor.construct_document(_copy(node, {}) if may_merge else node)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        raise
    except Exception as exc:  # `!!bool Standard_NC24` raises KeyError inside PyYAML: still just bad YAML
        raise ValueError(f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None


# --- emitting: data to block YAML ----------------------------------------------------------------------------

class _NoAliases:
    """Shared values written out in full: no `&id001`."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


class _Dumper(_NoAliases, CSafeDumper):
    pass


class _AliasDumper(CSafeDumper):
    """Anchors and aliases kept: for data that refers to itself (dump_keeping_aliases)."""


class _CautiousPureDumper(_NoAliases, yaml.SafeDumper):
    """PyYAML's own emitter: libyaml's escapes every character outside the BMP (emoji) and so turns a
    multi-line string holding one into a double-quoted "\\U0001F680" line; this one writes them as is."""


class _PureDumper(_CautiousPureDumper):
    """It also takes a literal block for a string with trailing spaces or tabs on a line, which YAML
    allows and the emitter refuses (a user's inference_config.yaml stays reviewable); `dump` checks by
    re-reading that the block means exactly the string, else emits with _CautiousPureDumper."""

    def analyze_scalar(self, scalar: str) -> Any:
        analysis = super().analyze_scalar(scalar)
        if "\n" in scalar and not analysis.allow_block and _block_representable(scalar):
            analysis.allow_block = True
        return analysis


def _block_representable(text: str) -> bool:
    """Printable text (tabs allowed) whose lines a literal block can carry, trailing blanks and all."""
    if text.startswith((" ", "\t")) or "\r" in text:
        return False
    return all(ch in "\t\n" or " " <= ch <= "\x7e" or "\xa0" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd"
               or ch >= "\U00010000" for ch in text)


def _needs_pure(data: Any) -> bool:
    if isinstance(data, str):
        return bool(data) and (max(data) > "\uffff" or ("\n" in data and (" \n" in data or "\t" in data)))
    if isinstance(data, dict):
        return any(_needs_pure(k) or _needs_pure(v) for k, v in data.items())
    if isinstance(data, (list, tuple)):
        return any(_needs_pure(v) for v in data)
    return False


def _dumper_for(data: Any) -> type:
    return _PureDumper if _needs_pure(data) else _Dumper


def _str_representer(dumper: Any, value: str) -> yaml.Node:
    # Multi-line strings as literal blocks; PyYAML itself falls back to quoting when a block cannot
    # represent the string exactly. Strings either YAML version would read as bool/number/null are quoted.
    style = "|" if "\n" in value else None
    if style is None and ambiguous(value):
        style = '"'  # "y", "on", "010", "0X1F", "1_e3", "null": quoted the way Kubernetes manifests quote them
    node: yaml.Node = dumper.represent_scalar(STR_TAG, value, style=style)
    return node


for _dumper in (_Dumper, _AliasDumper, _CautiousPureDumper):
    _dumper.add_representer(str, _str_representer)  # _PureDumper inherits _CautiousPureDumper's


def dump(data: Any) -> str:
    """Block YAML for one document, keys in insertion order, no anchors, no `...` end marker."""
    dumper = _dumper_for(data)
    text = yaml.dump(data, Dumper=dumper, default_flow_style=False, sort_keys=False, allow_unicode=True, width=1 << 16)
    if dumper is _PureDumper and load(text) != data:
        text = yaml.dump(data, Dumper=_CautiousPureDumper, default_flow_style=False, sort_keys=False,
                         allow_unicode=True, width=1 << 16)
    # A keep-chomped (`|+`) string last in the document makes the emitter close it with `...`; these
    # documents are always spliced into a larger one, where the next, less indented line ends it.
    if text.endswith("\n...\n"):
        text = text[: -len("...\n")]
    return text


def dump_keeping_aliases(data: Any) -> str:
    """Block YAML with anchors and aliases: only for data that refers to itself (`&a [*a]`), which `dump`
    cannot write out in full."""
    return yaml.dump(data, Dumper=_AliasDumper, default_flow_style=False, sort_keys=False, allow_unicode=True,
                     width=1_000_000)


def scalar_text(value: Any, style: str | None = None) -> str:
    """One scalar as YAML text; `style` ('"', "'" or None) keeps the quoting of the value it replaces."""
    if style not in ('"', "'") or not isinstance(value, str) or "\n" in value:
        style = None
    if style == "'" and isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    text: str = yaml.dump(value, Dumper=_dumper_for(value), default_style=style, width=1 << 16, allow_unicode=True)
    return text.removesuffix("\n...\n").rstrip("\n")
