"""PyYAML in one place, on libyaml: one composer over libyaml's events, the safe emitter, go-yaml-safe quoting.

Composing keeps node positions (character offsets) so the writer can edit source text in place. The
composer is this module's own (`compose_events`), over libyaml's event stream, so that every node is read
as go-yaml reads it (kubectl, Argo CD and sigs.k8s.io/yaml on go-yaml v2; kustomize and kpt on v3): a
plain scalar resolves by go-yaml v2's resolve.go (`go_resolve`: `1e3` and `0o17` numbers, `1:20` and `=`
strings), a scalar tagged `!` or with a tag go-yaml does not know is a string, a tag on a mapping or a
sequence is no reason to read it as anything else, `<<` merges only as a key (and a key kubectl and
kustomize merge apart is refused), and no document has a directive. Emitting is block style, without anchors, with strings quoted wherever
go-yaml v2 or v3, YAML 1.1 or YAML 1.2 would read them as something else (`ambiguous`).
"""

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

import yaml
from yaml.events import (AliasEvent, DocumentStartEvent, MappingStartEvent,
                         ScalarEvent, SequenceStartEvent)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

try:
    from yaml import CSafeDumper, CSafeLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    raise SystemExit("kaito-specdec: PyYAML was built without libyaml, which kaito-specdec reads YAML with (as "
                     "kubectl and kustomize read it); reinstall it from its wheel: pip install --force-reinstall "
                     "--only-binary=:all: PyYAML") from None

STR_TAG = "tag:yaml.org,2002:str"
NULL_TAG = "tag:yaml.org,2002:null"
MERGE_TAG = "tag:yaml.org,2002:merge"
MAP_TAG = "tag:yaml.org,2002:map"
SEQ_TAG = "tag:yaml.org,2002:seq"
BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
BINARY_TAG = "tag:yaml.org,2002:binary"
# A key kubectl and kustomize read apart, one as a merge key and one not (`!!merge x`, `! "<<"`): compose_node
# gives it this tag, merge_conflict refuses the object it is in, and no constructor knows it.
DISPUTED_MERGE_TAG = "tag:kaito-specdec,2025:disputed-merge"
# A key `<<` go-yaml does not merge (quoted, or tagged `!!str` or `!foo`): kubectl reads a key named `<<`,
# kustomize and kpt drop it (kyaml). merge_conflict refuses it too.
DROPPED_MERGE_TAG = "tag:kaito-specdec,2025:dropped-merge"

# Deeper than any Kubernetes object nests, and shallow enough for everything that walks an item afterwards
# (constructing, copying, patching, emitting: Python recursion).
MAX_DEPTH = 250
# How many nodes aliases may add to one object when it is expanded (walked as a tree: hashed, compared,
# emitted). Anchors in real manifests add hundreds; an alias bomb adds billions (as Go's yaml.v3 caps it).
MAX_ALIAS_EXPANSION = 100_000


class NestingTooDeep(yaml.MarkedYAMLError):
    """More than MAX_DEPTH levels of nesting; raised while composing, before anything recurses."""


class ExpansionTooLarge(ValueError):
    """Aliases make an object too large to walk or emit (an alias bomb)."""


class Refused(yaml.MarkedYAMLError):
    """What kubectl, kustomize or kpt refuse, or read otherwise than libyaml does, and libyaml reads."""


def too_deep(mark: Any) -> NestingTooDeep:
    return NestingTooDeep(problem=f"it nests more than {MAX_DEPTH} levels deep", problem_mark=mark)


_ODD_BREAK_SEPARATOR = "a `---` next to a bare CR, NEL, LS or PS line break: kubectl, kustomize and kpt break lines only at line feeds, so they split the documents elsewhere or refuse the file; use LF or CRLF line breaks"


def refuse_document_start(text: str, event: DocumentStartEvent, mark: Any) -> None:
    """Refuse a document start the cluster's tools do not read as libyaml does: a directive (go-yaml reads
    none), or a `---` after a line break that is no line feed. kubectl's splitter (k8s.io/apimachinery/pkg/
    util/yaml, YAMLReader.Read) reads lines up to "\n" only, and kustomize and kpt split at the same `---`
    lines; what may follow `---` on its line is refuse_separator_lines' business."""
    if event.version is not None or event.tags:
        which = "%YAML" if event.version is not None else "%TAG"
        raise Refused(problem=f"a {which} directive: kubectl, kustomize and kpt refuse a file with one; "
                                         "remove it", problem_mark=mark)
    if not event.explicit or event.start_mark is None:
        return
    at = event.start_mark.index
    if at > 0 and text[at - 1] != "\n":
        raise Refused(problem=_ODD_BREAK_SEPARATOR, problem_mark=mark)


def refuse_separator_lines(text: str) -> None:
    """Every line that starts with `---` as kubectl's splitter reads it: "We only allow comments and spaces
    following the yaml doc separator, otherwise we'll return an error" (`invalid Yaml document separator`),
    whether or not libyaml takes the line for a document start (`---x: y` is a key to it, a separator to
    kubectl); no bare CR, NEL, LS or PS on it; and a `---` after a byte-order mark is no separator to kubectl
    or kustomize, which refuse the file. One pass over the text; a line number only for the refusal."""
    at = 0 if text.startswith("---") else text.find("\n---")
    while at >= 0:
        start = at if at == 0 and text.startswith("---") else at + 1
        end = text.find("\n", start)
        line = text[start + 3:len(text) if end < 0 else end].removesuffix("\r")
        rest = line.strip()
        if any(c in line for c in "\r\x85\u2028\u2029"):
            raise Refused(problem=_ODD_BREAK_SEPARATOR, problem_mark=_line_mark(text, start))
        if rest and not rest.startswith("#"):
            raise Refused(problem="text after `---` on its line: kubectl refuses the file (\"invalid Yaml document separator\"); start the document on the next line", problem_mark=_line_mark(text, start))
        at = text.find("\n---", start + 3)
    at = text.find("\n\ufeff---")
    if at >= 0:
        raise Refused(problem="a byte-order mark before `---`: kubectl and kustomize refuse the file; remove it (one at the start of the document, after `---`, is read)", problem_mark=_line_mark(text, at + 1))


def _line_mark(text: str, at: int) -> Any:
    line = searchable(text).count("\n", 0, at)
    return Mark(at, line, 0)


def refuse_slash_escapes(text: str, mark: Any) -> None:
    """Refuse an escaped slash in a double-quoted scalar: libyaml reads it (YAML 1.2 has it), go-yaml has no
    such escape (scannerc.go: "found unknown escape character"), so kustomize and kpt refuse the file, and so
    does kubectl once it is YAML (a JSON file it reads with its JSON decoder, but not inside render's `---`
    stream). Only for a text that holds one (the caller's test): its scalars are read once more."""
    for event in events(text):
        start, end = event.start_mark, event.end_mark
        if event.__class__ is ScalarEvent and event.style == '"' and start is not None and end is not None and \
                re.search(r"(?<!\\)(?:\\\\)*\\/", text[start.index:end.index]):
            raise Refused(problem="`\\/` in a double-quoted string: go-yaml (kubectl, kustomize, kpt) has no such escape and refuses the file; write `/`", problem_mark=mark(event.start_mark))


class Depth:
    """For a PyYAML composer (libyaml's, or the pure one of domain/inference_config.py's StrictPureLoader):
    descend/ascend_resolver are called around every node, so counting there refuses deep nesting before
    Python's recursion limit does."""

    _depth = 0

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise too_deep(None)

    def ascend_resolver(self) -> None:
        self._depth -= 1


def timestamp_as_str(loader: Any, node: yaml.ScalarNode) -> str:
    # Kubernetes reads timestamps as strings; so do we, or they would change type on the way out. (The
    # scalar's text: also what a `<<` value is.)
    return loader.construct_scalar(node)


# --- plain scalars as go-yaml reads them ------------------------------------------------------------------
# kubectl, Argo CD and sigs.k8s.io/yaml decide what an untagged plain scalar is with go-yaml v2's resolve.go
# (v2.4.0, which sigs.k8s.io/yaml forks as goyaml.v2); kustomize and kpt with v3's, the same rules but for the
# words noted below. PyYAML's YAML 1.1 resolver reads otherwise (`1e3` and `0o17` strings, `1:20` an int, `=`
# a "value"), so the function resolves plain scalars itself, as v2 does:
#
#   hint := byte('N'); if in != "" { hint = resolveTable[in[0]] }  // 'S' +-, 'D' 0-9, 'M' yYnNtTfFoO~, '.'
#   if item, ok := resolveMap[in]; ok { return item.tag, item.value }
#   case '.': floatv, err := strconv.ParseFloat(in, 64)
#   case 'D', 'S': parseTimestamp(in) ...
#       plain := strings.Replace(in, "_", "", -1)
#       intv, err := strconv.ParseInt(plain, 0, 64) ... uintv, err := strconv.ParseUint(plain, 0, 64)
#       if yamlStyleFloat.MatchString(plain) { floatv, err := strconv.ParseFloat(plain, 64) ... }
#       if strings.HasPrefix(plain, "0b") { intv, err := strconv.ParseInt(plain[2:], 2, 64) ... }
#   return yaml_STR_TAG, in
#
# resolve.go init(), resolveMapList (v2.4.0). v3 has the same map without y/yes/on and n/no/off; they stay
# bools here, as kubectl reads them (and as checks of the opt-in annotation's value expect).
GO_WORDS: dict[str, tuple[str, Any]] = {}
for _tag, _value, _words in (
        (BOOL_TAG, True, "y Y yes Yes YES true True TRUE on On ON"),
        (BOOL_TAG, False, "n N no No NO false False FALSE off Off OFF"),
        (NULL_TAG, None, "~ null Null NULL"),
        (FLOAT_TAG, math.nan, ".nan .NaN .NAN"),
        (FLOAT_TAG, math.inf, ".inf .Inf .INF +.inf +.Inf +.INF"),
        (FLOAT_TAG, -math.inf, "-.inf -.Inf -.INF"),
        (MERGE_TAG, "<<", "<<")):  # out of the hints' reach: a merge key is the parser's (scalar_tag)
    for _word in _words.split():
        GO_WORDS[_word] = (_tag, _value)
GO_WORDS[""] = (NULL_TAG, None)
# resolveTable: a plain scalar whose first character is none of these is a string.
_GO_HINTS = frozenset("+-0123456789.yYnNtTfFoO~")
_SIGN_OR_DIGIT = frozenset("+-0123456789")
# strconv.ParseInt(plain, 0, 64)'s literals (Go's: 0x 0o 0b in either case, a leading 0 for octal, a sign).
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_GO_BASES = {"x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2}
# var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# strconv.ParseFloat(in, 64) of a text starting with `.` (underscores only between digits: underscoreOK).
_GO_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")
# `if strings.HasPrefix(plain, "0b") { intv, err := strconv.ParseInt(plain[2:], 2, 64)`: a sign after 0b.
# (The `-0b` branch after it reads nothing ParseInt(plain, 0, 64) did not.)
_GO_SIGNED_BINARY = re.compile(r"0b([-+])([01]+)")
# Timestamps keep PyYAML's YAML 1.1 pattern (its resolver.py; go-yaml's parseTimestamp reads some others; either way the
# value is the text, a string, as v2 decodes a timestamp into an interface{}).
_TIMESTAMP = re.compile(r"""[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?
     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?""", re.X)
_INT64 = 1 << 63


def _go_int(sign: str, digits: str, base: int) -> int | None:
    """strconv.ParseInt's value, else ParseUint's (no sign), else None (out of range: an error in Go)."""
    if base == 10 and len(digits) > 20:  # past uint64 whatever the digits (and Python's int() limit)
        return None
    value = int(digits, base)
    if sign == "-":
        value = -value
    if -_INT64 <= value < _INT64 or (not sign and value < 1 << 64):
        return value
    return None


def _go_number(plain: str) -> int | float | None:
    """The number go-yaml v2 reads `plain` (a plain scalar without its underscores) as, or None."""
    m = _GO_INT.fullmatch(plain)
    if m is not None:
        sign, literal = m.groups()
        base = _GO_BASES.get(literal[1:2])
        value = _go_int(sign, literal[2:], base) if base else _go_int(sign, literal, 8 if literal[0] == "0" else 10)
        if value is not None:
            return value
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        number = float(plain)
        if not math.isinf(number):  # ParseFloat's ErrRange: `1e400` stays a string
            return number
    m = _GO_SIGNED_BINARY.fullmatch(plain)
    if m is not None:
        value = int(m.group(2), 2) * (-1 if m.group(1) == "-" else 1)
        if -_INT64 <= value < _INT64:
            return value
    return None


def go_resolve(text: str) -> tuple[str, Any]:
    """(tag, value) of an untagged plain scalar as go-yaml v2 reads it (resolve.go `resolve("", in)`, above):
    null, bool, int, float, a timestamp (its text), else the string (`<<` too: scalar_tag makes merge keys)."""
    hint = text[:1]
    if hint not in _GO_HINTS:
        return (NULL_TAG, None) if not text else (STR_TAG, text)
    found = GO_WORDS.get(text)
    if found is not None:
        return found
    if hint == ".":
        if _GO_DOT_FLOAT.fullmatch(text):
            number = float(text.replace("_", ""))
            if not math.isinf(number):
                return FLOAT_TAG, number
    elif hint in _SIGN_OR_DIGIT:
        if _TIMESTAMP.fullmatch(text):
            return TIMESTAMP_TAG, text
        value = _go_number(text.replace("_", "") if "_" in text else text)
        if value is not None:
            return (FLOAT_TAG if isinstance(value, float) else INT_TAG), value
    return STR_TAG, text


# The tags go-yaml knows on a scalar (resolvableTag, and !!binary); any other (`!foo`, `!!set`)
# leaves the scalar's text a string: `if !resolvableTag(tag) { return tag, in }`.
_GO_TAGS = frozenset((STR_TAG, NULL_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, TIMESTAMP_TAG, BINARY_TAG))


def scalar_tag(event: ScalarEvent, key: bool = False) -> str:
    """The tag of a scalar event as go-yaml reads it; `key`: the scalar is a mapping's key.

    Untagged plain scalars resolve as go_resolve says; quoted and block ones, and those tagged `!` or a tag
    go-yaml does not know, are strings. `<<` (or anything tagged `!!merge`) is a string but as a key, where
    the parser, not the resolver, makes it a merge key. v2's decode.go: `func isMerge(n *node) bool {
    return n.kind == scalarNode && n.value == "<<" && (n.implicit == true || n.tag == yaml_MERGE_TAG) }`
    (its parser makes a scalar tagged `!` implicit, quoted or not); v3's decode.go: `n.Value == "<<" &&
    (n.Tag == "" || n.Tag == "!" || shortTag(n.Tag) == mergeTag)`, where its parser has tagged a quoted
    `! "<<"` `!!str`. A quoted `! "<<"` is thus a merge key to kubectl only, and a key `!!merge x` one to
    kustomize only (kyaml merges any key tagged `!!merge`; both go-yaml versions read the key `x`):
    those two get DISPUTED_MERGE_TAG. Any other key `<<` (quoted, `!!str`, `!foo`) is a key named `<<` to
    kubectl and dropped by kustomize and kpt: DROPPED_MERGE_TAG."""
    tag, value = event.tag, event.value
    if key and value == "<<":
        if (tag is None and event.implicit[0]) or tag == MERGE_TAG or (tag == "!" and not event.style):
            return MERGE_TAG
        return DISPUTED_MERGE_TAG if tag == "!" else DROPPED_MERGE_TAG
    if tag is None:
        if not event.implicit[0] or value == "<<":  # `<<` as a value is a string
            return STR_TAG
        return go_resolve(value)[0]
    if tag == MERGE_TAG and key:
        return DISPUTED_MERGE_TAG
    return tag if tag in _GO_TAGS else STR_TAG


_READS = {BOOL_TAG: "a boolean", INT_TAG: "a number", FLOAT_TAG: "a number", TIMESTAMP_TAG: "a timestamp",
          BINARY_TAG: "binary data"}


def reads_as(tag: str) -> str:
    """What a scalar of this tag is, in words, for a value that had to be a string."""
    return _READS.get(tag, "no string")


def go_scalar(loader: Any, node: yaml.ScalarNode) -> Any:
    """A `!!bool`, `!!int`, `!!float`, `!!null` or `!!timestamp` scalar (plain ones resolved to them too)
    decoded as go-yaml v2 decodes it (a timestamp into interface{} is its text: "for backward compatibility
    reasons we set it as a string"): its text resolved as a plain scalar's, which must give the tag, but
    that an int is read as a float where the tag says float (resolve.go: `case yaml_FLOAT_TAG: if rtag == yaml_INT_TAG`
    ... `out = float64(v)`, for what fits in an int64); anything else is Go's `failf("cannot decode %s
    `%s` as a %s", ...)`."""
    text = loader.construct_scalar(node)
    tag, value = go_resolve(text)
    if tag == node.tag:
        return value
    if node.tag == FLOAT_TAG and tag == INT_TAG and -_INT64 <= value < _INT64:
        return float(value)
    # No mark: the item's error names the field and its line already (`in "<unicode string>"` would not help).
    raise yaml.constructor.ConstructorError(
        None, None, f"cannot decode !!{tag.rsplit(':', 1)[-1]} `{text}` as a !!{node.tag.rsplit(':', 1)[-1]}")


class _Constructor(yaml.constructor.SafeConstructor):
    """Turns nodes from compose_events into Python data (PyYAML's safe constructors, go-yaml's scalars)."""


class _CLoader(Depth, CSafeLoader):
    """libyaml's composer, for `load` of a text without tags (where it reads as compose_events): the C
    composer asks this `resolve` for every untagged scalar."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode and implicit[0]:
            return MERGE_TAG if value == "<<" else go_resolve(value)[0]
        return super().resolve(kind, value, implicit)


for _cls in (_Constructor, _CLoader):
    for _tag in (BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG):
        _cls.add_constructor(_tag, go_scalar)
# `<<` as a value, a string: the C composer cannot tell a key from a value (the constructor merges keys
# before it constructs any, so only values reach this).
_CLoader.add_constructor(MERGE_TAG, timestamp_as_str)

# PyYAML's YAML 1.1 resolver: only for `ambiguous` (output must read back under YAML 1.1 too).
_RESOLVER = yaml.resolver.Resolver()
_resolve = _RESOLVER.resolve


def events(text: str) -> Iterator[yaml.Event]:
    """libyaml's events (lazily: a caller may stop before an error further on)."""
    return yaml.parse(text, Loader=CSafeLoader)


class Mark:
    """Where a node starts or ends: what PyYAML's errors read of yaml.error.Mark, the offset, line and column
    in slots (a composed item has two per node; a subclass of yaml.error.Mark would carry an instance dict's
    room) and no snippet of the text."""

    __slots__ = ("index", "line", "column")
    name = "<unicode string>"

    def __init__(self, index: int, line: int, column: int) -> None:
        self.index, self.line, self.column = index, line, column

    def __str__(self) -> str:
        return f'  in "{self.name}", line {self.line + 1}, column {self.column + 1}'


def marker(index: int, line: int) -> Any:
    """A mark (what the offset, line and column of a node are read from) at `index` with `line`; the
    column is always the source's own (items are composed from their own lines, at their own column)."""
    def mark(m: Any) -> Mark:
        return Mark(m.index + index, m.line + line, m.column)
    return mark


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
    return first_of(compose_events(events(text)))


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


def _children(node: Any) -> list:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return []


def nodes(root: Any, stop: Any = None) -> Iterator[Any]:
    """Every distinct node under `root` once, however often aliases repeat it (cycles included); none
    below `stop`."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if node is not stop:
            stack.extend(_children(node))


def expanded_size(root: yaml.Node) -> tuple[int, float]:
    """(distinct, expanded) node count of a composed node: linear in the distinct nodes, however often
    aliases repeat them (each shared node is counted once and its size remembered). A node that contains
    itself (`&a [*a]`) expands without end."""
    sizes: dict[int, float] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
        elif key not in sizes:
            children = _children(node)
            if any(id(c) in open_ or c is node for c in children):
                return len(sizes) + 1, float("inf")
            sizes[key] = 0
            open_.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return len(sizes), sizes[id(root)]


def check_expansion(root: yaml.Node) -> None:
    """Raise ExpansionTooLarge when aliases would add more than MAX_ALIAS_EXPANSION nodes to `root`."""
    distinct, expanded = expanded_size(root)
    if expanded == float("inf"):
        raise ExpansionTooLarge("an alias inside it names a node that contains that alias: it would expand without end (a cycle)")
    if expanded - distinct > MAX_ALIAS_EXPANSION:
        raise ExpansionTooLarge(f"its aliases expand it to {expanded:.0f} nodes from {distinct}; more than {MAX_ALIAS_EXPANSION} added nodes is refused (an alias bomb?)")


def merge_conflict(root: yaml.Node) -> str | None:
    """Where kubectl and kustomize read a mapping differently: a key set before a merge key `<<` that the
    merge sets too. go-yaml v2 (kubectl, Argo CD, sigs.k8s.io/yaml) lets the later merge win, go-yaml v3
    (kustomize, kpt) and YAML's own rule keep the key written in the mapping. Keys after `<<` win for all.
    And a key one of them merges and the other does not (DISPUTED_MERGE_TAG, see scalar_tag)."""
    for node in nodes(root):
        if not isinstance(node, yaml.MappingNode):
            continue
        before: dict[str, yaml.Node] = {}
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag == DROPPED_MERGE_TAG:
                return (f"the key << quoted or tagged (line {key.start_mark.line + 1}): kubectl reads a key named <<, kustomize and kpt drop it; write a plain << to merge, or name the key otherwise")
            if isinstance(key, yaml.ScalarNode) and key.tag == DISPUTED_MERGE_TAG:
                line = key.start_mark.line + 1
                if key.value == "<<":
                    return (f"the key `<<` tagged `!` and quoted (line {line}): kubectl merges its value, kustomize "
                            "drops the key; write a plain `<<` to merge")
                return (f"the key {key.value!r} tagged `!!merge` (line {line}): kubectl reads the key {key.value!r}, "
                        "kustomize merges its value; write `<<` to merge, or drop the tag")
            if isinstance(key, yaml.ScalarNode) and key.tag == MERGE_TAG:
                for name in before.keys() & _merged_keys(value):
                    first = before[name]
                    return (f"the key {name!r} (line {first.start_mark.line + 1}) is set again by the merge key `<<` "
                            f"after it (line {key.start_mark.line + 1}): kubectl reads the merged value, kustomize "
                            "and kpt the one written; put `<<` first or drop one of them")
            elif isinstance(key, yaml.ScalarNode):
                before.setdefault(key.value, key)
    return None


def _merged_keys(value: yaml.Node) -> set[str]:
    sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
    keys: set[str] = set()
    for source in sources:
        if isinstance(source, yaml.MappingNode):
            for key, inner in source.value:
                if isinstance(key, yaml.ScalarNode) and key.tag == MERGE_TAG:
                    keys |= _merged_keys(inner)
                elif isinstance(key, yaml.ScalarNode):
                    keys.add(key.value)
    return keys


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


# Which plain scalars some reader of the output takes for something else than a string. Every string the
# function writes must read back as that string under each of them:
# - go-yaml v2 (kubectl, Argo CD, every sigs.k8s.io/yaml user; sigs.k8s.io/yaml forks v2.4.0), resolve.go:
#     resolveMap (GO_WORDS: y/yes/on, true, n/no/off, false in three spellings, nulls, .nan/.inf, "<<").
#     A first character `+ - 0-9` ('S', 'D'): `plain := strings.Replace(in, "_", "", -1)`, then
#     `strconv.ParseInt(plain, 0, 64)` and `strconv.ParseUint(plain, 0, 64)` (Go literals: 0x 0o 0b in
#     either case, a leading 0 for octal), `yamlStyleFloat` =
#     `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` on plain, and for plain starting "0b"
#     `strconv.ParseInt(plain[2:], 2, 64)` (so `0b-1` too). A first character `.`: `strconv.ParseFloat(in, 64)`.
# - go-yaml v3 (kpt, kustomize's kyaml): the same without y/yes/on/n/no/off, plus "0o" +
#   `strconv.ParseInt(plain[2:], 8, 64)` (`0o-7`), and timestamps (`parseTimestamp`: "2006-1-2",
#   optionally with `T`, `t` or a space and a time) decode to a time.Time.
# - YAML 1.1 as PyYAML reads it (its resolver, asked below: `1:20`, `0b1_0`, `=`, dates, …) and YAML 1.2's
#   core schema (a subset of go-yaml's numbers).
# The test is wider than the readers where that is simpler (any Go literal's digits, whatever the range):
# quoting a string that needed none costs two characters; writing one plain that needed quotes changes it.
_WORDS = frozenset(GO_WORDS)  # v2's resolveMap, v3's within it
_NUMBER_START = frozenset("-+.0123456789")
# Tried on the text without its underscores.
_GO_NUMBER = (
    r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oObB][0-7]+|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
    r"|0[bo][-+][0-7]+")
_GO_TIMESTAMP = r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?"


def ambiguous(value: str) -> bool:
    """Would go-yaml v2 or v3, YAML 1.1 or YAML 1.2 read this plain scalar as anything but this string?"""
    if value in _WORDS:
        return True
    if value[:1] in _NUMBER_START and (re.fullmatch(_GO_NUMBER, value.replace("_", "") if "_" in value else value)
                                       or re.fullmatch(_GO_TIMESTAMP, value)):
        return True
    return _resolve(yaml.ScalarNode, value, (True, False)) != STR_TAG


def _str_representer(dumper: Any, value: str) -> yaml.Node:
    # Multi-line strings as literal blocks; PyYAML itself falls back to quoting when a block cannot
    # represent the string exactly. Strings either YAML version would read as bool/number/null are quoted.
    style = "|" if "\n" in value else None
    if style is None and ambiguous(value):
        style = '"'  # "y", "on", "010", "0X1F", "1_e3", "null": quoted the way Kubernetes manifests quote them
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


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
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    text = yaml.dump(value, Dumper=_dumper_for(value), default_style=style, width=1 << 16, allow_unicode=True)
    return text.removesuffix("\n...\n").rstrip("\n")


def position(mark: Any) -> str:
    """'line L, column C' (1-based) for a PyYAML mark."""
    return f"line {mark.line + 1}, column {mark.column + 1}"


# --- node helpers: positions in the source text -------------------------------------------------
# Nodes keep character offsets (marks); these helpers turn them into line and node boundaries, for the
# reader (item regions), the writer (splices) and textedit (edits of an item or of an embedded document).


def child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value node under `key` of a mapping node, or None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def is_null(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG


def scalar(node: yaml.Node | None) -> str | None:
    """A scalar's string value when it is a string (plain or quoted); None otherwise."""
    if isinstance(node, yaml.ScalarNode) and node.tag == STR_TAG:
        return node.value
    return None


# What YAML 1.1 (PyYAML, libyaml, Go's yaml) counts as a line break besides "\n": a bare CR (old Mac files),
# NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. Node marks count lines by them, so every search for a line
# start or end must too.
_ODD_BREAK = "\r(?!\n)|[\x85\u2028\u2029]"


_SEARCHABLE: list = [None, ""]  # the last text asked for and its answer: callers ask again and again for one text


def searchable(text: str) -> str:
    """The text with every line break but CRLF written as "\n", offsets unchanged (one character for one):
    what line searches run on. Output is always cut from the text itself, so no byte changes."""
    # Remembered by identity, not by value: an lru_cache compared a new run's equal text character by
    # character on every lookup (10 000 items: read went from 1.9 s to 24.5 s in a long-lived process).
    if _SEARCHABLE[0] is text:
        return _SEARCHABLE[1]
    out = text
    if "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        out = re.sub(_ODD_BREAK, "\n", text)
    _SEARCHABLE[:] = [text, out]
    return out


def newline_of(text: str) -> str:
    """The line break new text gets: CRLF or a bare CR when the text uses only that, else LF."""
    crlf = text.count("\r\n")
    if crlf and crlf == text.count("\n") == text.count("\r"):
        return "\r\n"
    if "\r" in text and "\n" not in text:
        return "\r"
    return "\n"


def ends_line(text: str) -> bool:
    return bool(text) and text[-1] in "\r\n\x85\u2028\u2029"


# Blank or comment-only line ends, then an alias (`*name`; anchor names are alphanumerics, `-` and `_`).
_GAP = r"(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]*"
_ALIAS_VALUE = _GAP + r"\*[0-9A-Za-z_-]+"
_ALIAS_ENTRY = _GAP + "-" + _GAP + r"\*[0-9A-Za-z_-]+"


def node_end(node: yaml.Node, text: str) -> int:
    """Where a node's own text ends (block collections end where their last value ends).

    An alias (`*name`) is composed as the very node it names, with the anchor's positions: an alias that
    ends a block collection is found in the `text`, after its key or dash, instead.
    """
    text = searchable(text)
    while True:
        if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
            key, value = node.value[-1]
            if value.start_mark.index < key.end_mark.index:
                colon = text.find(":", key.end_mark.index)
                m = re.compile(_ALIAS_VALUE).match(text, colon + 1) if colon >= 0 else None
                if m:
                    return m.end()
            node = value
        elif isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
            last = node.value[-1]
            before = node.value[-2].end_mark.index if len(node.value) > 1 else node.start_mark.index
            if last.start_mark.index < before:  # an alias: its node sits earlier
                prev = node_end(node.value[-2], text) if len(node.value) > 1 else node.start_mark.index
                m = re.compile(_ALIAS_ENTRY).match(text, prev)
                if m:
                    return m.end()
            node = last
        else:
            return node.end_mark.index


def line_start(text: str, pos: int) -> int:
    """The offset where the line holding `pos` begins."""
    return searchable(text).rfind("\n", 0, pos) + 1


def line_end(text: str, pos: int) -> int:
    """The offset just past the line that `pos` ends in (block scalars already end at a line start)."""
    text = searchable(text)
    if pos > 0 and text[pos - 1] == "\n":
        return pos
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def column_of(text: str, pos: int) -> int:
    return pos - line_start(text, pos)
