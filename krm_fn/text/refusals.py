"""What the function refuses, and why: what kubectl, kustomize or kpt refuse, or read otherwise than libyaml
(which the function reads with) does, and the limits that keep a hostile input from running away.

- The file: a directive (`%YAML`, `%TAG`), a `---` line kubectl's splitter reads otherwise (text after it, a
  line break that is no line feed, a byte-order mark before it), an escaped slash `\\/` go-yaml has not.
- Merge keys kubectl (go-yaml v2) and kustomize (go-yaml v3, kyaml) read apart (`merge_conflict`).
- Nesting deeper than MAX_DEPTH, and aliases that expand an object past MAX_ALIAS_EXPANSION nodes.

The reader (reader.py) and the composer (yamlio.py) call these; every refusal says what to write instead.
"""

import json
import re
from collections.abc import Iterable
from typing import Any

import yaml
from yaml.events import DocumentStartEvent, ScalarEvent

from .go_scalars import DISPUTED_MERGE_TAG, DROPPED_MERGE_TAG, MERGE_TAG
from .tree import Mark, children, nodes, searchable

# --- limits: nesting and aliases ------------------------------------------------------------------------

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
            sizes[key] = 1 + sum(sizes[id(c)] for c in children(node))
        elif key not in sizes:
            below = children(node)
            if any(id(c) in open_ or c is node for c in below):
                return len(sizes) + 1, float("inf")
            sizes[key] = 0
            open_.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in below if id(c) not in sizes)
    return len(sizes), sizes[id(root)]


def check_expansion(root: yaml.Node) -> None:
    """Raise ExpansionTooLarge when aliases would add more than MAX_ALIAS_EXPANSION nodes to `root`."""
    distinct, expanded = expanded_size(root)
    if expanded == float("inf"):
        raise ExpansionTooLarge("an alias inside it names a node that contains that alias: it would expand without end (a cycle)")  # noqa: E501 (a message stays whole for grep)
    if expanded - distinct > MAX_ALIAS_EXPANSION:
        raise ExpansionTooLarge(f"its aliases expand it to {expanded:.0f} nodes from {distinct}; more than {MAX_ALIAS_EXPANSION} added nodes is refused (an alias bomb?)")  # noqa: E501 (a message stays whole for grep)


# --- the file: directives, separators, escapes ---------------------------------------------------------

_ODD_BREAK_SEPARATOR = "a `---` next to a bare CR, NEL, LS or PS line break: kubectl, kustomize and kpt break lines only at line feeds, so they split the documents elsewhere or refuse the file; use LF or CRLF line breaks"  # noqa: E501 (a message stays whole for grep)


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
            raise Refused(problem="text after `---` on its line: kubectl refuses the file (\"invalid Yaml document separator\"); start the document on the next line", problem_mark=_line_mark(text, start))  # noqa: E501 (a message stays whole for grep)
        if line[:1] == "#":  # a separator to kubectl's and kyaml's splitters; YAML wants a space before a comment
            raise Refused(problem="`---#` with no space before the comment: kubectl's and kustomize's splitters cut the file there, but YAML (go-yaml, libyaml) reads a line of text, not a document start; write `--- #`", problem_mark=_line_mark(text, start))  # noqa: E501 (a message stays whole for grep)
        at = text.find("\n---", start + 3)
    if "\n..." in text:
        refuse_empty_documents(text)
    at = text.find("\n\ufeff---")
    if at >= 0:
        raise Refused(problem="a byte-order mark before `---`: kubectl and kustomize refuse the file; remove it (one at the start of the document, after `---`, is read)", problem_mark=_line_mark(text, at + 1))  # noqa: E501 (a message stays whole for grep)


# A line `...` (a document end), with spaces or a comment after it.
_DOCUMENT_END = re.compile(r"\.\.\.[ \t\r]*(?:#[^\n]*)?(?:\n|$)")
# Lines that are blank or only a comment.
_NOTHING = re.compile(r"(?:[ \t\r]*(?:#[^\n]*)?\n)*")


def refuse_empty_documents(text: str) -> None:
    """Refuse a `...` line first in the bytes of a document kubectl's splitter cuts after `---` (blank and
    comment lines aside): go-yaml finds no document there ("did not find expected node content") and kubectl
    and kustomize refuse the file; libyaml reads an empty document. (A `---` with nothing before it goes into
    the next document's bytes, and `---` then `...` is an empty document to every reader: _document_starts.)"""
    view = searchable(text)
    for start in sorted(_document_starts(text, True)):
        blank = _NOTHING.match(view, start)  # (matches always: it takes no line too)
        at = blank.end() if blank is not None else start
        if _DOCUMENT_END.match(view, at):
            raise Refused(problem="a document that is only `...` after `---`: kubectl and kustomize refuse the file (\"did not find expected node content\"); remove the `...` line or the `---` before it", problem_mark=_line_mark(text, at))  # noqa: E501 (a message stays whole for grep)


def after_separator(text: str, at: int, fresh: bool = True) -> bool:
    """Does `at` begin a document's bytes as kubectl's splitter (k8s.io/apimachinery/pkg/util/yaml,
    YAMLReader.Read) and kyaml's cut them? There go-yaml skips a byte-order mark, the first byte of what it
    reads (yaml_parser_determine_encoding). `fresh`: `text` begins where the file does."""
    if _STARTS[0] is not text or _STARTS[1] is not fresh:  # (the same text asked about each mark it holds)
        _STARTS[:] = [text, fresh, _document_starts(text, fresh)]
    starts: frozenset[int] = _STARTS[2]
    return at in starts


_STARTS: list[Any] = [None, None, frozenset()]
_SEPARATOR_LINE = re.compile(r"^---[ \t\r]*(?:#[^\n]*)?$", re.M)


def _document_starts(text: str, fresh: bool) -> frozenset[int]:
    """The line starts right after a `---` line that ends a document: YAMLReader.Read returns its buffer at a
    separator line only when the buffer holds something (`if buffer.Len() != 0 { return buffer.Bytes(), nil }`);
    a separator with nothing before it (the file's first line, or a second `---` in a row) is written into the
    next document's bytes, so a mark after it is no first byte: kubectl and kustomize read `\ufeffapiVersion`.
    Only for a text that holds a mark (the callers'); a piece of a file (Source.pieces) begins with a line."""
    starts: set[int] = set()
    last_end, returned = -1, False
    for m in _SEPARATOR_LINE.finditer(searchable(text)):
        # nothing in the buffer: the file's start, or right after a separator that returned its buffer
        empty = returned if m.start() == last_end else (m.start() == 0 and fresh)
        last_end, returned = m.end() + 1, not empty
        if returned:
            starts.add(m.end() + 1)
    return frozenset(starts)


_INNER_BOM = "a byte-order mark at the start of a line inside a document: kubectl, kustomize and kpt read it as a character of the key after it (or drop what follows `...`), libyaml skips it; remove it (one right after a `---` line that ends a document is read)"  # noqa: E501 (a message stays whole for grep)


# Two marks in a row where one is read (the file's start, right after `---`): go-yaml skips only the first as the
# first byte of what it reads (is_bom looks at the buffer's start), so the second is a character of the first key
# (`\ufeffapiVersion`): kustomize and kpt refuse the object ("missing kind"), kubectl too after `---` (its file
# reader takes one more off the file's start, visitor.go:561, so there it reads the object); libyaml skips both.
DOUBLED_BOM = "two byte-order marks in a row: kustomize and kpt (and kubectl, after `---`) read the second as a character of the first key and refuse the object, libyaml skips both; keep one"  # noqa: E501 (a message stays whole for grep)


def refuse_inner_byte_order_marks(text: str, events: Iterable[Any], mark: Any, fresh: bool = True) -> None:
    """Refuse a byte-order mark that starts a line between two tokens, other than right after a `---` line
    (after_separator): go-yaml skips one only as the first byte of what it reads (go-yaml v2.4.0 and v3.0.1
    yamlprivateh.go:81/103, `func is_bom(b []byte, i int) bool { return b[0] == 0xEF && …` looks at the
    buffer's start, not at `i`), so kubectl, kustomize and kpt read it as a character (`\ufeffdata`, a key of
    its own) or, after `...`, drop the document it begins; libyaml skips it at any line start (libyaml 0.2.5
    src/scanner.c:1930, `if (parser->mark.column == 0 && IS_BOM(parser->buffer)) SKIP(parser);`) and reads the
    line one column in. Inside a quoted string all of them read it as a character.
    Only for a text that holds one (the caller's test): `events` are its events, read once more."""
    view = searchable(text)
    starts = _finditer(view, "\n\ufeff", 1)
    # (a piece of the text, Source.pieces, begins right after a mark that follows `---`)
    doubled = 0 if text.startswith("\ufeff") else None
    doubled = next((at for at in starts if text.startswith("\ufeff\ufeff", at) and after_separator(text, at, fresh)),
                   doubled)
    if doubled is not None:
        raise Refused(problem=DOUBLED_BOM, problem_mark=mark(_line_mark(text, doubled)))
    starts = [at for at in starts if not after_separator(text, at, fresh)]
    if not starts:
        return
    spans: list[tuple[int, int]] = []
    stop = len(text)
    try:
        for event in events:
            start, end = event.start_mark, event.end_mark
            if event.__class__ is ScalarEvent and start is not None and end is not None:
                spans.append((start.index, end.index))
    except yaml.MarkedYAMLError as exc:  # most often libyaml's reading of the line one column in
        problem = exc.problem_mark
        stop = problem.index if problem is not None else stop
    for at in starts:
        if at <= stop and not any(a < at < b for a, b in spans):
            raise Refused(problem=_INNER_BOM, problem_mark=mark(_line_mark(text, at)))


def _finditer(text: str, needle: str, skip: int) -> list[int]:
    """The offsets of `needle` in `text`, each moved `skip` characters in."""
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at + skip)
        at = text.find(needle, at + 1)
    return found


def _line_mark(text: str, at: int) -> Any:
    line = searchable(text).count("\n", 0, at)
    return Mark(at, line, 0)


def refuse_slash_escapes(text: str, events: Iterable[Any], mark: Any) -> None:
    """Refuse an escaped slash in a double-quoted scalar: libyaml reads it (YAML 1.2 has it), go-yaml has no
    such escape (scannerc.go: "found unknown escape character"), so kustomize and kpt refuse the file, and so
    does kubectl once it is YAML (a JSON file it reads with its JSON decoder, but not inside render's `---`
    stream). Only for a text that holds one (the caller's test): `events` are its events, read once more."""
    for event in events:
        start, end = event.start_mark, event.end_mark
        if event.__class__ is ScalarEvent and event.style == '"' and start is not None and end is not None and \
                re.search(r"(?<!\\)(?:\\\\)*\\/", text[start.index:end.index]):
            raise Refused(problem="`\\/` in a double-quoted string: go-yaml (kubectl, kustomize, kpt) has no such escape and refuses the file; write `/`", problem_mark=mark(event.start_mark))  # noqa: E501 (a message stays whole for grep)


# --- merge keys kubectl and kustomize read apart ---------------------------------------------------------

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
                return (f"the key << quoted or tagged (line {key.start_mark.line + 1}): kubectl reads a key named <<, kustomize and kpt drop it; write a plain << to merge, or name the key otherwise")  # noqa: E501 (a message stays whole for grep)
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


# --- a file kubectl reads as JSON ------------------------------------------------------------------------

# Go's unicode.IsSpace, which kubectl's sniff trims a file's start with (k8s.io/apimachinery v0.32.0
# pkg/util/yaml/decoder.go:395, hasPrefix: `trim := bytes.TrimLeftFunc(buf, unicode.IsSpace)`)
_GO_SPACE = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")  # what encoding/json skips between values
_JSON_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')
# kubectl peeks at this many bytes (k8s.io/cli-runtime v0.32.0 pkg/resource/visitor.go:591, StreamVisitor.Visit:
# `d := yaml.NewYAMLOrJSONDecoder(v.Reader, 4096)`), after FileVisitor took a byte-order mark off (visitor.go:561)
_JSON_PEEK = 4096


class _Constant(ValueError):
    """NaN or Infinity, which Python's json reads and Go's encoding/json does not."""


def _constant(name: str) -> Any:
    raise _Constant(name)


def _dropped(pairs: Any) -> None:
    return None


def kubectl_json_fault(text: str) -> tuple[int, int] | None:
    """Where kubectl's JSON decoder stops in a file it reads as JSON (line, column, 1-based), None for a file it
    reads as YAML or a stream of JSON values it reads. kubectl's reader sniffs the first bytes (its byte-order
    mark taken off): `{` after spaces is JSON (k8s.io/apimachinery v0.32.0 pkg/util/yaml/decoder.go:278-280,
    `buffer, _, isJSON := GuessJSONStream(d.r, d.bufferSize); if isJSON { d.decoder = json.NewDecoder(buffer)`),
    read by encoding/json, which refuses a comment, a trailing comma, an unquoted key, `---`: flow YAML that
    kustomize and kpt (go-yaml v3) read. Both readings are then said (SD013)."""
    first = _GO_SPACE.match(text).end()  # type: ignore[union-attr]  # matches the empty string
    if first == len(text) or text[first] != "{" or len(text[:first].encode("utf-8")) >= _JSON_PEEK:
        return None
    # Each object dropped as soon as it is read: a `kubectl get -o json` list of 100 000 objects is never held.
    decoder = json.JSONDecoder(parse_constant=_constant, object_pairs_hook=_dropped)
    at, end = 0, len(text)
    try:
        while True:
            at = _JSON_SPACE.match(text, at).end()  # type: ignore[union-attr]  # matches the empty string
            if at == end:
                return None
            at = decoder.raw_decode(text, at)[1]
    except json.JSONDecodeError as exc:
        at = exc.pos
    except _Constant:
        at = next(m.start(1) for m in _JSON_CONSTANT.finditer(text) if m.group(1))
    line = searchable(text).count("\n", 0, at)
    return line + 1, at - searchable(text).rfind("\n", 0, at)

