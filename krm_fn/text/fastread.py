"""The reader's first step, the scan of shapes: a kpt/kustomize-shaped ResourceList read without composing
every item (reader.read_resource_list and reader.read_stream call it for inputs of reader.SCAN_FROM bytes on).

A platform repository sends thousands of Deployments and Services the function only copies through.
Composing each of them into a node tree (PyYAML's composer and resolver, at Python level) was most of a
run. Here libyaml's C parser proves the whole text is YAML without building anything, a line scanner
reads what every stage asks of an ordinary item (kind, apiVersion, name, namespace, generateName,
annotations) and checks each of its mappings for a key given twice, and only what could concern the
function is composed: anything the scanner is not sure of, and every item the stages look into.

`scan(text)` answers None wherever its assumptions do not hold (CR or Unicode line breaks, anchors
shared between items …); the reader then composes every item and alone words every error. An item read
here is an items.Item like any other: its facts as text, its node composed from its lines when asked for. A list the
line scanner does not read (flow entries, JSON, entries not at column 0, a `kind: List` among render's
documents) is split into its entries by the parser's events (`_split_items`), and its entries composed a
run at a time; an entry no stage looks into keeps its facts, not its node: the node tree of a whole list
took ~110 bytes of memory per byte of input. Composing every item is the reference:
tests/test_fastread.py runs fixtures, the corpus and generated inputs both ways and requires identical output
and results.

Two things keep the scan cheap on large inputs: what it does with an item is worked out once per
sequence of line shapes and replayed for the items of one template (`_program`), and a large text is
shared with a worker process on a second core (krm_fn/text/parscan.py: it validates the text and scans the
last items; its failure only means this process does its share).
"""
from __future__ import annotations

import re
import sys
import time
from types import MappingProxyType

import yaml

from . import krm
from . import yamlio
from .items import InputError, Item, ResourceList, _is_envelope, _refuse_duplicates, check_envelope, duplicate_key, envelope, make_item

TYPE_CHECKING = False  # see krm_fn/__init__.py
if TYPE_CHECKING:
    from typing import Any

# Deeper indentation than this could nest past yamlio.MAX_DEPTH without the scanner counting levels.
_MAX_COLUMN = 120

# Why "kaito" anywhere in an item's text composes it: KAITO kinds (group kaito.sh), the opt-in annotation
# `kaito.sh/enable-speculative-decoding` on plain vLLM Deployments/StatefulSets (in metadata or in the pod
# template, where the scanner does not look), the record `kaito-specdec.dev/…` annotations the function
# writes, derived ConfigMaps' markers: every such item must reach the stages as the full reader makes it.
# A substring test cannot miss one of them however it is spelled or nested; keep it that way.
_KAITO = re.compile("kaito", re.IGNORECASE)

_KEY = re.compile(r"""([A-Za-z0-9_$/.][A-Za-z0-9_$./-]*|"[^"\\\n]*"|'[^'\n]*')[ ]*:(?=[ ]|$)""")
_SINGLE = re.compile(r"'((?:[^']|'')*)'[ ]*(?:#.*)?$")
_DOUBLE = re.compile(r'"([^"\\]*)"[ ]*(?:#.*)?$')
_BLOCK = re.compile(r"[|>][-+]?[ ]*(?:#.*)?$")
_FLOW = re.compile(r"(\[[^\[\]{}#]*\]|\{[^\[\]{}#]*\})[ ]*(?:#.*)?$")
_FLOW_KEY = re.compile(r"""[ ]*([A-Za-z0-9_$/.][A-Za-z0-9_$./-]*|"[^"\\,:]*"|'[^',:]*')[ ]*:[ ]+""")
_FLOW_VALUE = re.compile(r"""[ ]*(?:"[^"\\,]*"|'[^',]*'|[^\s&*!|>'"%@`?:,\-#][^,]*?|-[^\s,][^,]*?)[ ]*$""")
_PLAIN_BAD_START = frozenset("&*!|>%@`?:,#-[]{}'\"")
_COMMENT = re.compile(r"[ ]+#")

_tags: dict[str, str] = {}
_resolver = yaml.resolver.Resolver()


# The only plain scalars that begin with an ASCII letter and resolve to something else than a string
# (YAML 1.1's booleans and null; numbers, timestamps, `.inf`, `<<`, `=` and `~` begin otherwise).
_WORDS = frozenset("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL"
                   .split())


def _tag(value: str) -> str:
    """The tag a plain scalar resolves to (PyYAML's YAML 1.1 rules)."""
    if value[:1].isalpha() and value.isascii() and value not in _WORDS:
        return yamlio.STR_TAG
    tag = _tags.get(value)
    if tag is None:
        if len(_tags) > 100_000:
            _tags.clear()
        tag = _tags[value] = _resolver.resolve(yaml.ScalarNode, value, (True, False))
    return tag


class _Unsure(Exception):
    """The scanner cannot vouch for an item: it is composed like the full reader would."""


class _Fallback(Exception):
    """The input is not what the fast path reads: the full reader takes it."""


# What sends an input to the full reader (which words the error, if there is one).
_REFUSED = (_Fallback, InputError, yaml.YAMLError, RecursionError, AssertionError, IndexError, ValueError)


def _key(text: str) -> str:
    """A key's value as the duplicate-key check compares keys: by text, not tag, as go-yaml v3 and
    items.duplicate_key do (`1` and `'1'` are one key). The key patterns admit no escapes in quotes."""
    return text[1:-1] if text[0] == '"' or text[0] == "'" else text


def _value(rest: str) -> tuple[str, Any]:
    """What follows `key:` or `- ` on a line: ("empty"|"block"|"flow"|"scalar", (value, is_str))."""
    rest = rest.lstrip(" ")
    if not rest or rest[0] == "#":
        return "empty", None
    first = rest[0]
    if first == "'":
        m = _SINGLE.match(rest)
        if m is None:
            raise _Unsure  # a quote that goes on on the next line (it may hide a key given twice)
        return "scalar", (m.group(1).replace("''", "'"), True)
    if first == '"':
        m = _DOUBLE.match(rest)
        if m is None:
            raise _Unsure  # escapes, or a quote that goes on on the next line
        return "scalar", (m.group(1), True)
    if first == "|" or first == ">":
        if _BLOCK.match(rest) is None:
            raise _Unsure  # an indentation indicator
        return "block", None
    if first == "[" or first == "{":
        m = _FLOW.match(rest)
        if m is None:
            raise _Unsure  # nested, spread over lines, or `#` inside
        _flow(m.group(1))
        return "flow", None
    if first in _PLAIN_BAD_START and not (first == "-" and len(rest) > 1 and rest[1] not in " \t"):
        raise _Unsure  # anchors, aliases, tags, reserved indicators
    m = _COMMENT.search(rest)
    value = (rest[:m.start()] if m else rest).rstrip(" ")
    if ": " in value or value.endswith(":"):
        raise _Unsure
    return "scalar", (value, _tag(value) == yamlio.STR_TAG)


def _flow(text: str) -> None:
    """A one-line flow collection without nesting: its entries are simple, a mapping has each key once."""
    inner = text[1:-1]
    if not inner.strip():
        return
    parts = inner.split(",")
    if not parts[-1].strip():
        parts.pop()  # a trailing comma
    if text[0] == "[":
        for part in parts:
            if _FLOW_VALUE.match(part) is None or re.search(r":(\s|$)", part) and part.strip()[0] not in "'\"":
                raise _Unsure
        return
    keys = set()
    for part in parts:
        m = _FLOW_KEY.match(part)
        if m is None or _FLOW_VALUE.match(part, m.end()) is None:
            raise _Unsure
        key = _key(m.group(1))
        if key in keys:
            raise _Unsure  # a key twice: the full reader's walk reports it
        keys.add(key)


def _shift(node: yaml.Node, index: int, line: int, column: int = 0, seen: set[int] | None = None,
           since: int = 0) -> None:
    """Move the marks of a node tree composed from a piece of the text to where they are in the text
    (`column`: what to add on the piece's second line, the first of the text, a flow entry's); only nodes
    from `since` on, each once however many trees share it (`seen`, across calls)."""
    seen = set() if seen is None else seen
    stack = [node]
    Mark = yaml.Mark
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if current.start_mark.index < since:
            continue  # an alias of a node before `since`: it (and all it holds) is where it was
        for attr in ("start_mark", "end_mark"):
            m = getattr(current, attr)
            setattr(current, attr, Mark(m.name, m.index + index, m.line + line,
                                        m.column + column if m.line == 1 else m.column, None, None))
        if isinstance(current, yaml.MappingNode):
            for k, v in current.value:
                stack.append(k)
                stack.append(v)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def _entry_nodes(text: str, first: int, end: int, line: int, flow: bool) -> tuple[list, str, int, int, int]:
    """The nodes of consecutive entries of one sequence, composed together from their text, text[first:end]
    (`first`: the first one's `- `, or in a flow sequence where its text begins): at the depth they have in
    the list (inside a mapping and a list; a flow entry inside two flow lists, so in flow context), on a
    line of their own. (nodes, the piece composed, and the index, line and first line's column to add to
    their marks: a block entry is indented to its column, so its columns are right as they come.)"""
    column = first - _line_start(text, first)
    if flow:
        # Not indented to its column (one-line JSON: megabytes of spaces); _shift moves the first line's marks.
        piece = "[[\n" + text[first:end] + "\n]]"
        root = yamlio.compose(piece)
        if not isinstance(root, yaml.SequenceNode) or len(root.value) != 1:
            raise _Fallback
        return root.value[0].value, piece, first - 3, line - 1, column
    piece = "x:\n" + " " * column + text[first:end]
    root = yamlio.compose(piece)
    if not isinstance(root, yaml.MappingNode):
        raise _Fallback
    return root.value[0][1].value, piece, first - 3 - column, line - 1, 0


def _compose_entry(text: str, dash: int, end: int, line: int) -> yaml.Node:
    """The node of the sequence entry whose `- ` begins at `dash`, composed at the depth it has in the
    ResourceList (a mapping, a list, the entry), so the nesting limit counts as in the full reader."""
    nodes, _, index, lines, _ = _entry_nodes(text, dash, end, line, False)
    if len(nodes) != 1:
        raise _Fallback
    _shift(nodes[0], index, lines)
    return nodes[0]


def _compose_flow(text: str, start: int, end: int, line: int) -> yaml.Node:
    """The node of the flow sequence entry text[start:end] (see _entry_nodes)."""
    nodes, _, index, lines, column = _entry_nodes(text, start, end, line, True)
    if len(nodes) != 1:
        raise _Fallback
    _shift(nodes[0], index, lines, column)
    return nodes[0]


_LINE_START: list = [None, 0, 0]  # the text, a position in it and where its line begins


def _line_start(text: str, pos: int) -> int:
    """yamlio.line_start, searched from the position asked for before when it is further on in the same
    text: entries are composed in order, and a one-line JSON list is one line of megabytes."""
    seen, before, start = _LINE_START
    if seen is not text or pos < before:
        start = yamlio.line_start(text, pos)
    else:
        nl = yamlio.searchable(text).rfind("\n", before, pos)
        start = nl + 1 if nl >= 0 else start
    _LINE_START[:] = [text, pos, start]
    return start


# Entries composed together (one loader, one piece of text for them; their nodes dropped right after).
RUN = 64


def _compose_run(text: str, run: list[tuple[int, int, int, int, bool]], flow: bool = False) -> list[Item]:
    """The items of consecutive entries (index, start, end, line, mentions kaito) the scanner could not
    read: composed, and kept as the full reader makes them where a stage may look into them, otherwise
    their facts without their node (composed again only if asked for). A node tree takes ~100 times its
    text; flow entries (`- {…}`, JSON) are all composed, the scanner reads none."""
    if not run:
        return []
    first, end, line = run[0][1], run[-1][2], run[0][3]
    if len(run) > 1 and text.find("&", first, end) >= 0:
        # Composed one by one: an alias to another entry's anchor fails, and the full reader reads the input.
        return [item for entry in run for item in _compose_run(text, [entry], flow)]
    nodes, piece, index, lines, column = _entry_nodes(text, first, end, line, flow)
    if len(nodes) != len(run):
        raise _Fallback
    out: list[Item] = []
    # (node_end needs the text only to find an alias that ends a collection; searching the piece and the
    # text in turn would make yamlio.searchable look at each of them anew every time)
    aliased = piece if "*" in piece else None
    for (i, start, stop, ln, kaito), node in zip(run, nodes):
        at = yamlio.node_end(node, aliased) + index
        facts = _node_facts(node, node.start_mark.index + index, at if flow else yamlio.line_end(text, at))
        if facts is not None:
            item = _scanned(i, text, start, stop, ln, facts, True, flow)
            item.values_as_written = False  # composed, not scanned: its text may escape what its values hold
            if not _interesting(item, kaito):
                out.append(item)
                continue
        _shift(node, index, lines, column)
        out.append(make_item(i, node, text, flow))
    return out


_KUSTOMIZE_PREFIX = krm.KUSTOMIZE_GROUP + "/"
_CONFIG_ANNOTATIONS = frozenset((krm.LOCAL_CONFIG_ANNOTATION, "config.kubernetes.io/function", "config.k8s.io/function"))


def _interesting(item: Item, region_has_kaito: bool) -> bool:
    """Items some stage looks into (or could): composed, and read like the full reader reads them."""
    if region_has_kaito or item.kind == krm.CONFIGMAP_KIND or not (item.kind and item.api_version and item.name):
        return True
    if item.api_version.startswith(_KUSTOMIZE_PREFIX) or item.kind in ("Kustomization", "Component") \
            or item.api_version == "builtin" or item.kind == krm.POLICY_KIND:
        return True
    return not _CONFIG_ANNOTATIONS.isdisjoint(item.scanned_annotations)  # type: ignore[attr-defined]


_UNSURE = "unsure"
_FALLBACK = "fallback"
# The commonest line, read by one match: `key: value` with a plain word or a one-line quoted string.
_SIMPLE = re.compile(r"""( *)([A-Za-z_$/.][A-Za-z0-9_$./-]*):[ ]+([A-Za-z_/][A-Za-z0-9_./-]*|'[^'\n]*'|"[^"\\\n]*")[ ]*(?:[ ]#.*)?$""")


_WORD_KEY = r"[A-Za-z_$/.][A-Za-z0-9_$./-]*"
_PAIR = rf"[ ]*{_WORD_KEY}:[ ]+[A-Za-z0-9_$./][A-Za-z0-9_$./-]*[ ]*"
# `labels: {app: web-1, tier: front}`: a one-line flow mapping of plain words (the keys are checked apart).
_SIMPLE_FLOW = re.compile(rf"( *)({_WORD_KEY}):[ ]+\{{((?:{_PAIR},)*{_PAIR})\}}[ ]*(?:[ ]#.*)?$")
_FLOW_KEYS = re.compile(rf"[ ]*({_WORD_KEY}):")


def _read_line(line: str) -> Any:
    """One line that is not blank, not a comment and not in a block scalar, read on its own:
    (indent, column of its first `- ` or -1, of its last, column of its content, key or None, value kind,
    value), or _UNSURE / _FALLBACK."""
    m = _SIMPLE_FLOW.match(line)
    if m is not None and len(m.group(1)) <= _MAX_COLUMN:
        keys = [_key(k) for k in _FLOW_KEYS.findall(m.group(3))]
        if len(set(keys)) != len(keys):
            return _UNSURE  # a key twice: the full reader's walk reports it
        indent = len(m.group(1))
        return (indent, -1, -1, indent, _key(m.group(2)), "flow", None)
    m = _SIMPLE.match(line)
    if m is not None and len(m.group(1)) <= _MAX_COLUMN:
        key, value = m.group(2), m.group(3)
        indent = len(m.group(1))
        if value[0] == "'" or value[0] == '"':
            found = (value[1:-1], True)
        else:
            found = (value, _tag(value) == yamlio.STR_TAG)
        return (indent, -1, -1, indent, _key(key), "scalar", found)
    if "\t" in line:
        return _UNSURE
    rest = line.lstrip(" ")
    indent = len(line) - len(rest)
    if indent > _MAX_COLUMN:
        return _FALLBACK
    first = last = -1
    while rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
        at = len(line) - len(rest)
        if first < 0:
            first = at
        last = at
        rest = rest[1:].lstrip(" ")
        if not rest or rest[0] == "#":
            return _UNSURE  # `-` alone: its value is on the lines below
    col = len(line) - len(rest)
    try:
        m = _KEY.match(rest)
        if m is None:
            if first < 0:
                return _UNSURE  # a value on a line of its own: a scalar going on over lines
            kind, value = _value(rest)
            return (indent, first, last, col, None, kind, value)
        kind, value = _value(rest[m.end():])
        return (indent, first, last, col, _key(m.group(1)), kind, value)
    except _Unsure:
        return _UNSURE


# Where a mapping sits, as far as the facts go: the item itself, its metadata, metadata.annotations, or
# anywhere else (below a list, or below any other key).
_ROOT, _META, _ANN, _ELSE = 0, 1, 2, 3
_DEEPER = {(_ROOT, "metadata"): _META, (_META, "annotations"): _ANN}


# What the scan of an item does depends only on the shapes of its lines, never on their values. A line's
# shape is its reading without the value (indentation, dashes, column, key, value kind) for a line read
# outside block scalars; (what it is, indentation) for a comment, a line the scanner cannot vouch for, or
# a line met so far only inside block scalars (whose text the scan never reads: only its indentation, to
# find where the block ends); `_BLANK` for a blank line. Items made from one template (a chart's or a
# generator's Deployments) have the same shapes line for line: what the scan does with a sequence of shapes
# (`_program`) is worked out once, then replayed for every item of that sequence, each fact taken from the
# line the program names. tests/test_fastread.py compares replayed facts with fresh ones (a `_programs`
# that keeps none).
_sids: dict[str, int] = {}         # line text -> the number of its shape
_shapes: dict[Any, int] = {}       # shape -> its number
_shape_list: list[Any] = []        # number -> shape
_programs: dict[tuple, Any] = {}   # the shape numbers of an item's lines -> its program
_values: dict[str, Any] = {}       # line text -> its value, for a line read outside block scalars
_heads: dict[str, int] = {}        # `key: value` lines (_SIMPLE): indentation and key -> shape number
_flow_heads: dict[str, int] = {}   # `key: {…}` lines (_SIMPLE_FLOW): the same
_BLANK = ("blank",)
_RAW = "raw"
_HASH = "#"
_EMPTY = ("", False)
_MISSING = object()


# At most this many lines, programs and shapes are remembered (a bound on memory, whatever the input).
LIMITS = (200_000, 20_000, 100_000)


def _trim() -> None:
    """Bounded caches: all of them are emptied together (shape numbers index the programs), between items."""
    lines, programs, shapes = LIMITS
    if len(_sids) > lines or len(_programs) > programs or len(_shape_list) > shapes:
        reset()


def reset() -> None:
    """Forget every line, shape and program read so far (tests and benchmarks start cold with it)."""
    _sids.clear()
    _shapes.clear()
    _shape_list.clear()
    _programs.clear()
    _values.clear()
    _heads.clear()
    _flow_heads.clear()


def _number(shape: Any) -> int:
    n = _shapes.get(shape)
    if n is None:
        n = _shapes[shape] = len(_shape_list)
        _shape_list.append(shape)
    return n


def _light(line: str) -> int:
    """The shape of a line met inside a block scalar, not read (a blank line, a comment, or raw text)."""
    stripped = line.lstrip(" ")
    if not stripped:
        shape: Any = _BLANK
    else:
        shape = (_HASH if stripped[0] == "#" else _RAW, len(line) - len(stripped))
    n = _sids[line] = _number(shape)
    return n


def _full(line: str) -> int:
    """The shape of a line read outside block scalars (its value kept in `_values`)."""
    m = _SIMPLE.match(line)
    if m is not None and m.end(1) <= _MAX_COLUMN:
        # The commonest line, `key: value`, read as _read_line reads it, its shape found by its head.
        head = line[:m.end(2)]
        n = _heads.get(head)
        if n is None:
            key = m.group(2)
            indent = m.end(1)
            n = _heads[head] = _number((indent, -1, -1, indent, _key(key), "scalar"))
        value = m.group(3)
        _values[line] = (value[1:-1], True) if value[0] == "'" or value[0] == '"' else \
            (value, _tag(value) == yamlio.STR_TAG)
        _sids[line] = n
        return n
    m = _SIMPLE_FLOW.match(line)
    if m is not None and m.end(1) <= _MAX_COLUMN:
        # `labels: {app: web-1, tier: front}`, read as _read_line reads it: plain keys are the same key
        # exactly when their texts are the same.
        keys = _FLOW_KEYS.findall(m.group(3))
        if len(set(keys)) == len(keys):
            head = line[:m.end(2)]
            n = _flow_heads.get(head)
            if n is None:
                indent = m.end(1)
                n = _flow_heads[head] = _number((indent, -1, -1, indent, _key(m.group(2)), "flow"))
            _sids[line] = n
            return n
    stripped = line.lstrip(" ")
    if not stripped:
        shape: Any = _BLANK
    elif stripped[0] == "#":
        shape = (_HASH, len(line) - len(stripped))
    else:
        c = _read_line(line)
        if c.__class__ is str:
            shape = (c, len(line) - len(stripped))
        else:
            shape = c[:6]
            _values[line] = c[6]
    n = _sids[line] = _number(shape)
    return n


def _scan_item(lines: list[str], pos: int, dash: bool = True) -> dict | None:
    """The facts of one item (the lines of its chunk, which begins at `pos`), or None when anything in it
    is not simple enough to vouch for. `dash`: the chunk is a list entry whose first line begins with its
    `- ` at column 0 (a ResourceList's items); otherwise a document of a stream, its keys at column 0."""
    _trim()
    first = lines[0]
    if dash:
        # The entry's own `- `: what follows is the item's first key, here or on a later line.
        rest = first[1:].lstrip(" ")
        lines[0] = " " * (len(first) - len(rest)) + rest if rest and rest[0] != "#" else ""
    key = tuple(map(_sids.get, lines))
    if None in key:
        # New lines (an item's name, labels, kpt's index and path …): read now, where they are few, to find
        # the item's program at once; many new lines are likely block scalars' text, never read otherwise.
        unknown = [n for n, sid in enumerate(key) if sid is None]
        if len(unknown) <= 8 or len(unknown) * 8 <= len(lines):
            for n in unknown:
                _full(lines[n])
            key = tuple(map(_sids.get, lines))
    program = _programs.get(key, _MISSING)
    if program is _MISSING:
        program = _program(lines)
        key = tuple(map(_sids.get, lines))
        if None not in key:  # every shape it depends on is known (an unsure item may stop early)
            _programs[key] = program
    if program.__class__ is str:
        if program is _FALLBACK:
            raise _Fallback
        return None
    start, start_col, last, fact_lines, annotation_lines = program
    ann: dict[str, tuple[str, bool]] = {}
    facts: dict[str, Any] = {"annotations": ann}
    read = _values.__getitem__
    for name, n in fact_lines:
        facts[name] = read(lines[n])
    for name, n in annotation_lines:
        ann[name] = read(lines[n]) if n >= 0 else _EMPTY
    lines[0] = first
    facts["start"] = pos + sum(map(len, lines[:start])) + start + start_col
    facts["end"] = pos + sum(map(len, lines[:last + 1])) + last + 1
    return facts


def _program(lines: list[str]) -> Any:
    """What the scan of an item with these lines does, from their shapes alone: _UNSURE (the item is
    composed), _FALLBACK (the full reader reads the input), or (line and column of the first key, line of
    the last value, (fact, line) for apiVersion, kind, name, namespace and generateName, (annotation, line
    or -1 for an empty value)), each in the order met."""
    facts: list[tuple[str, int]] = []
    ann: list[tuple[str, int]] = []
    # Each open mapping: [column, keys, where (_ROOT …), last key, its value was empty].
    stack: list[list] = []
    body_min = -1          # inside a block scalar: lines indented at least this far belong to it
    limit = -1             # after a one-line value: a deeper line would continue it
    pending = False        # `metadata:`/`annotations:` with nothing after it: a mapping must follow
    start = -1             # line number and column of the first key
    start_col = 0
    last = -1              # line number of the last value
    last_kind = ""
    shapes = _shape_list
    get = _sids.get
    for number, line in enumerate(lines):
        n = get(line)
        shape = shapes[n if n is not None else _light(line)]
        if shape is _BLANK:
            continue
        short = len(shape) == 2
        if body_min >= 0:
            if (shape[1] if short else shape[0]) >= body_min:
                continue
            body_min = -1
        if short:
            if shape[0] == _RAW:
                shape = shapes[_full(line)]
                short = len(shape) == 2
            if short:
                if shape[0] == _HASH:
                    continue
                return _FALLBACK if shape[0] == _FALLBACK else _UNSURE
        indent, first_dash, last_dash, col, key, kind = shape
        if 0 <= limit < indent:
            return _UNSURE  # a plain scalar going on over lines
        limit = -1
        if start < 0:
            if first_dash >= 0 or key is None:
                return _FALLBACK  # a list, a scalar or a flow mapping as an item: the full reader says what
            start, start_col = number, col
        if pending:
            if key is None or first_dash >= 0 or col <= stack[-1][0]:
                return _UNSURE  # metadata or annotations that are not a block mapping
            pending = False
        if first_dash >= 0:
            while stack and stack[-1][0] > first_dash:
                stack.pop()
        if key is None:
            # `- value`: a scalar (or flow) entry of a list.
            if kind == "empty":
                return _UNSURE
            if kind == "block":
                body_min = last_dash + 1  # deeper than the dash
            else:
                limit = last_dash
            last_kind = kind
            last = number
            continue
        while stack and stack[-1][0] > col:
            stack.pop()
        if first_dash >= 0 or not stack or stack[-1][0] < col:
            if first_dash >= 0:
                where = _ELSE
            elif stack:
                parent = stack[-1]
                if not parent[4]:
                    return _UNSURE
                where = _DEEPER.get((parent[2], parent[3]), _ELSE)
            else:
                where = _ROOT
            if stack and stack[-1][0] == col:
                stack.pop()
            top = [col, {key}, where, key, False]
            stack.append(top)
        else:
            top = stack[-1]
            if key in top[1]:
                return _UNSURE  # a key twice: the full reader's walk reports it
            top[1].add(key)
            top[3] = key
            where = top[2]
        top[4] = empty = kind == "empty"
        if where != _ELSE:
            name = key
            if where == _ROOT:
                if name == "apiVersion" or name == "kind":
                    if kind != "scalar":
                        return _UNSURE
                    facts.append((name, number))
                elif name == "metadata":
                    if not empty:
                        return _UNSURE
                    pending = True
            elif where == _META:
                if name == "name" or name == "namespace" or name == "generateName":
                    if kind != "scalar":
                        return _UNSURE
                    facts.append((name, number))
                elif name == "annotations":
                    if not empty:
                        return _UNSURE
                    pending = True
            elif empty:
                ann.append((name, -1))
            elif kind != "scalar":
                return _UNSURE
            else:
                ann.append((name, number))
        if kind == "block":
            body_min = col + 1
        elif not empty:
            limit = col
        last_kind = kind
        last = number
    if pending or start < 0 or last_kind in ("empty", "block"):
        return _UNSURE  # where such an item ends is the composer's to say
    return (start, start_col, last, tuple(facts), tuple(ann))


def _str(fact: Any) -> str:
    return fact[0] if fact is not None and fact[1] else ""


def scan(text: str) -> ResourceList | None:
    """The ResourceList of a kpt/kustomize-shaped input, composing only what could concern the function;
    None where the input is not of that shape (the full reader then reads it)."""
    if not yamlio.C_AVAILABLE or yamlio.backend() != "c" \
            or "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text or "\ufeff" in text:
        return None
    try:
        rl = _scan(text) if text.endswith("\n") else None
        if rl is None:
            # Not `items:` entries at column 0 (a flow or JSON ResourceList, say): found by events.
            rl = _scan_split(text)
            if rl is not None and not text.endswith("\n") and not rl.root.flow_style:
                return None  # a block list that ends without a line break: the full reader's (tail edits)
        return rl
    except _REFUSED:
        return None


def _scan_split(text: str) -> ResourceList | None:
    got = _split_items(text, 0, len(text), 0, 0)
    if got is None:
        return None
    root, seq, items = got
    check_envelope(root)  # an envelope the full reader refuses: it words why
    return _envelope(text, root, seq, items)


_ITEMS = re.compile(r"^items:[ ]*(?:#.*)?\n", re.MULTILINE)
# The same line after a line break: searched fast (the pattern begins with a literal), where `^` with
# MULTILINE tries every position of a text of megabytes.
_ITEMS_AFTER = re.compile(r"\nitems:[ ]*(?:#.*)?\n")
# A `- ` entry, and any other line at column 0 (what ends the list), each after its line break: a pattern
# that begins with a literal is searched fast, one with `^` tries every position.
_ENTRY = re.compile(r"\n-(?=[ \n])")
_OTHER = re.compile(r"\n(?:[^\s#-]|-[^ \n])")


def _scan(text: str) -> ResourceList | None:
    found = _ITEMS.match(text) or _ITEMS_AFTER.search(text)
    if found is not None and found.group()[0] == "\n":
        found = _ITEMS.match(text, found.start() + 1)
    if found is None or _ITEMS_AFTER.search(text, found.end() - 1) is not None:
        return None
    head_end = found.end()
    other = _OTHER.search(text, head_end - 1)
    tail = other.start() + 1 if other else len(text)
    starts = [m.start() + 1 for m in _ENTRY.finditer(text, head_end - 1, tail)]
    if not starts:
        return None
    bounds = starts + [tail]
    return _run_jobs(text, len(starts), lambda i: _item_facts(text, bounds, i), _REFUSED,
                     lambda helper: _scan_with(text, found, head_end, tail, bounds, helper))


# --- two cores for a large text (krm_fn/text/parscan.py): its items (or documents) are the jobs ------------------

def _run_jobs(text: str, n: int, facts_of: Any, refused: tuple, body: Any) -> Any:
    """`body(helper)`, with a worker process forked to validate `text` and find `facts_of(j)` for the last
    of its n jobs where that pays (None otherwise). Whatever happens the worker is gone afterwards."""
    helper = None
    parscan = _parscan(text) if n > 1 else None
    if parscan is not None and parscan.wanted(text):
        helper = parscan.start(n, lambda: _validate(text), facts_of, refused)
    try:
        return body(helper)
    except refused:
        raise
    except Exception:
        if helper is not None:
            # Not what the scanner refuses: what the one-process scan would meet first decides (invalid
            # YAML before anything else).
            helper.close()
            _validate(text)
        raise
    finally:
        if helper is not None:
            helper.close()


def _parscan(text: str) -> Any:
    """krm_fn.text.parscan, imported only for a text long enough for it (start-up of smaller runs): with fewer
    lines than its default THRESHOLD (whoever changes that has imported it) it is not."""
    found = sys.modules.get(__package__ + ".parscan")
    if found is None and len(text) >= 16_384 and text.count("\n") >= 16_384:
        from . import parscan as found
    return found


def _in_order(text: str, n: int, facts_of: Any, helper: parscan.Helper | None, started: float) -> Any:
    """(j, facts of job j) for every job in order: found here, or the worker's where it has done them; and
    the worker's verdict on the text (the text validated here if it has none). Invalid YAML, or a job the
    full reader must read, raises _Fallback."""
    if helper is None:
        for i in range(n):
            yield i, facts_of(i)
        return
    yield from helper.in_order(facts_of)
    valid = helper.verdict(started)
    if valid is None:
        _validate(text)
    elif not valid:
        raise _Fallback


def _validate(text: str) -> None:
    """Everything is YAML (libyaml, in C, nothing built), or yaml.YAMLError."""
    from yaml import _yaml  # type: ignore[attr-defined]
    _yaml.CParser(text).raw_parse()


def _item_facts(text: str, bounds: list[int], i: int) -> dict | None:
    """The facts of the i-th entry (None: it is composed), or _Fallback."""
    lines = text[bounds[i]:bounds[i + 1]].split("\n")
    lines.pop()  # each chunk ends with a line break
    try:
        return _scan_item(lines, bounds[i])
    except _Unsure:
        return None


def _scan_with(text: str, found: re.Match, head_end: int, tail: int, bounds: list[int],
               helper: parscan.Helper | None) -> ResourceList | None:
    started = time.monotonic()
    if helper is None:
        _validate(text)
    # From here on only structure is read.
    starts = bounds[:-1]
    skeleton = text[:head_end] + text[tail:]
    docs = [d for d in yamlio.compose_all(skeleton)
            if d is not None and not (isinstance(d, yaml.ScalarNode) and yamlio.is_null(d))]
    if len(docs) != 1:
        return None
    root = docs[0]
    check_envelope(root)  # an envelope the full reader refuses: it words why
    head_lines = text.count("\n", 0, head_end)
    section_lines = text.count("\n", head_end, tail)
    found_items = None
    shifted: set[int] = set()  # a node the tail's entries share (an anchor and its aliases) moves once
    for k, v in root.value:
        if v.start_mark.index >= head_end:
            _shift(v, tail - head_end, section_lines, seen=shifted, since=head_end)
        if k.start_mark.index >= head_end:
            _shift(k, tail - head_end, section_lines, seen=shifted, since=head_end)
        if isinstance(k, yaml.ScalarNode) and k.value == "items":
            found_items = (k, v)
    if found_items is None or not yamlio.is_null(found_items[1]) or \
            found_items[0].start_mark.index != found.start():
        return None
    if root.end_mark.index >= head_end:
        m = root.end_mark
        root.end_mark = yaml.Mark(m.name, m.index + tail - head_end, m.line + section_lines, m.column, None, None)

    if any(ln.strip(" ") and not ln.lstrip(" ").startswith("#") for ln in text[head_end:starts[0]].split("\n")):
        return None
    items: list[Item] = []
    line = head_lines + text.count("\n", head_end, starts[0])
    kaito = _mentions(text, head_end, tail)
    k = 0
    run: list[tuple[int, int, int, int, bool]] = []  # entries to compose, consecutive
    for i, facts in _in_order(text, len(starts), lambda j: _item_facts(text, bounds, j), helper, started):
        dash, chunk_end = bounds[i], bounds[i + 1]
        while k < len(kaito) and kaito[k] < dash:
            k += 1
        mentions = k < len(kaito) and kaito[k] < chunk_end
        if facts is None:
            run.append((i, dash, chunk_end, line, mentions))
            if len(run) == RUN:
                items += _compose_run(text, run)
                run = []
        else:
            items += _compose_run(text, run)
            run = []
            items.append(_make(i, text, dash, chunk_end, line, facts, mentions))
        line += text.count("\n", dash, chunk_end)
    items += _compose_run(text, run)
    last_end = items[-1].end
    seq_start = yaml.Mark("<unicode string>", starts[0], head_lines + text.count("\n", head_end, starts[0]),
                          0, None, None)
    seq_end = yaml.Mark("<unicode string>", last_end, text.count("\n", 0, last_end), 0, None, None)
    items_node = yaml.SequenceNode(yamlio.loader_class().DEFAULT_SEQUENCE_TAG, [], seq_start, seq_end,
                                   flow_style=False)
    root.value = [(k, items_node if k is found_items[0] else v) for k, v in root.value]
    return _envelope(text, root, items_node, items)


def _mentions(text: str, start: int, end: int) -> list[int]:
    """Where "kaito" occurs in any case (lower() keeps offsets only for ASCII text)."""
    if text.isascii():
        low = text[start:end].lower()
        return [m.start() + start for m in re.finditer("kaito", low)]
    return [m.start() for m in _KAITO.finditer(text, start, end)]


# --- lists the line scanner does not read: entries found by the parser's events ----------------------------
# A flow or JSON list (`kubectl get -o json`, one line or pretty), a list whose entries are not at column 0,
# a `kind: List` among render's documents: the parser's events (libyaml, nothing built) say where the
# `items` sequence and each of its entries begin and end; the entries are composed a run at a time
# (_compose_run), the rest of the document with the sequence blanked out. So no node tree of the whole
# list is ever built (~110 bytes of memory per byte of input).


class _Split:
    """Where the root mapping's `items` sequence of a document is and where each of its entries begins and
    ends (offsets into the document's text)."""

    def __init__(self, start: int, end: int, flow: bool, entries: list[tuple[int, int]], after: int) -> None:
        self.start, self.end, self.flow, self.entries = start, end, flow, entries
        self.after = after  # a block sequence: where the token after it begins


def _split(text: str) -> _Split | None:
    """The root's `items` sequence of the one document of `text`, from the parser's events; None where the
    document is not a mapping with such a sequence of mappings, has an anchor or an alias anywhere (the full
    reader then finds which items they tie together), or is not alone in the text. Invalid YAML raises."""
    Scalar, MapStart, SeqStart = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
    MapEnd, SeqEnd, Alias = yaml.MappingEndEvent, yaml.SequenceEndEvent, yaml.AliasEvent
    events = iter(yamlio.events(text))

    def node_end(event: Any) -> int:
        """Consume the node `event` begins; where its own text ends (a block collection: its last value)."""
        cls = event.__class__
        if cls is Scalar:
            if event.anchor is not None:
                raise _Fallback
            return event.end_mark.index
        if cls is Alias or event.anchor is not None:
            raise _Fallback
        flows = [event.flow_style]
        end = event.end_mark.index
        for ev in events:
            cls = ev.__class__
            if cls is Scalar:
                if ev.anchor is not None:
                    raise _Fallback
                end = ev.end_mark.index
            elif cls is MapStart or cls is SeqStart:
                if ev.anchor is not None:
                    raise _Fallback
                flows.append(ev.flow_style)
            elif cls is MapEnd or cls is SeqEnd:
                if flows.pop():
                    end = ev.end_mark.index
                if not flows:
                    return end
            else:
                raise _Fallback  # an alias
        raise _Fallback

    try:
        next(events)  # the stream's start
        if next(events).__class__ is not yaml.DocumentStartEvent:
            return None
        root = next(events)
        if root.__class__ is not MapStart or root.anchor is not None:
            return None
        found = None
        while True:
            key = next(events)
            if key.__class__ is MapEnd:
                break
            is_items = key.__class__ is Scalar and key.value == "items"
            node_end(key)
            value = next(events)
            if not (is_items and value.__class__ is SeqStart):
                node_end(value)
                continue
            if found is not None or value.anchor is not None:
                return None  # `items` twice: the full reader says so
            entries = []
            for ev in events:
                if ev.__class__ is SeqEnd:
                    break
                if ev.__class__ is not MapStart:
                    return None  # an item that is not a mapping: the full reader's finding
                entries.append((ev.start_mark.index, node_end(ev)))
            found = _Split(value.start_mark.index, ev.end_mark.index, bool(value.flow_style), entries,
                           ev.start_mark.index)
        next(events)  # the document's end
        if next(events).__class__ is not yaml.StreamEndEvent:
            return None  # a second document
    except StopIteration:
        return None
    return found if found is not None and found.entries else None


def _blanked(text: str) -> str:
    """Spaces for every character but the line breaks: what is left composes to nothing, and every position
    after it stays where it was."""
    return "\n".join(" " * len(line) for line in text.split("\n"))


def _dash(text: str, lo: int, start: int) -> int:
    """The `-` of a block sequence entry whose node begins at `start`, after `lo` (where the entry before
    it ends, or where the sequence begins): only blanks and comments lie between them."""
    pos = lo
    while pos < start:
        ch = text[pos]
        if ch == "-":
            if text[yamlio.line_start(text, pos):pos].strip(" "):
                raise _Fallback
            return pos
        if ch == "#":
            pos = text.find("\n", pos, start)
            if pos < 0:
                raise _Fallback
        elif ch not in " \n":
            raise _Fallback
        pos += 1
    raise _Fallback


def _split_items(text: str, start: int, end: int, line: int, first: int) -> tuple[yaml.MappingNode, yaml.SequenceNode, list[Item]] | None:
    """The envelope of the document text[start:end] (its first line numbered `line`) with its `items`
    sequence blanked out (its marks where they are in the text), that sequence's node without entries, and
    its entries' items numbered from `first`; None where `_split` finds no such list."""
    doc = text[start:end] if (start, end) != (0, len(text)) else text
    found = _split(doc)
    if found is None:
        return None
    entries = [(a + start, b + start) for a, b in found.entries]
    seq_start = found.start + start
    if found.flow:
        skeleton = doc[:found.start + 1] + _blanked(doc[found.start + 1:found.end - 1]) + doc[found.end - 1:]
        spans = entries
        seq_end = found.end + start
    else:
        lo, hi = yamlio.line_start(doc, found.start), yamlio.line_end(doc, found.entries[-1][1])
        skeleton = doc[:lo] + _blanked(doc[lo:hi]) + doc[hi:]
        dashes, after = [], seq_start
        for a, b in entries:
            dashes.append(_dash(text, after, a))
            after = b
        # Each entry's text runs to the next one's `-` (or the token after the list): where the full
        # reader's composer ends its mapping.
        ends = dashes[1:] + [max(found.after + start, yamlio.line_end(text, entries[-1][1]))]
        spans = list(zip(dashes, ends))
        seq_end = entries[-1][1]
    root = yamlio.compose(skeleton)
    del skeleton, doc
    if not isinstance(root, yaml.MappingNode):
        return None
    _shift(root, start, line)
    seq = next((v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "items"), None)
    if seq is None or (found.flow and not isinstance(seq, yaml.SequenceNode)) or \
            (not found.flow and not yamlio.is_null(seq)):
        return None
    if not found.flow:
        # The sequence's node, as _scan_with makes it for the list the line scanner reads: its entries are
        # the items.
        def mark(at: int) -> yaml.Mark:
            return yaml.Mark("<unicode string>", at, text.count("\n", 0, at), yamlio.column_of(text, at), None, None)
        seq = yaml.SequenceNode(yamlio.loader_class().DEFAULT_SEQUENCE_TAG, [], mark(seq_start), mark(seq_end),
                                flow_style=False)
        root.value = [(k, seq if isinstance(k, yaml.ScalarNode) and k.value == "items" else v) for k, v in root.value]
    kaito = _mentions(text, seq_start, seq_end)
    items: list[Item] = []
    run: list[tuple[int, int, int, int, bool]] = []
    k = 0
    pos, ln = seq_start, line + text.count("\n", start, seq_start)
    for n, (lo, hi) in enumerate(spans):
        ln += text.count("\n", pos, lo)
        pos = lo
        while k < len(kaito) and kaito[k] < lo:
            k += 1
        run.append((first + n, lo, hi, ln, k < len(kaito) and kaito[k] < hi))
        if len(run) == RUN:
            items += _compose_run(text, run, found.flow)
            run = []
    items += _compose_run(text, run, found.flow)
    return root, seq, items


def _scanned(index: int, text: str, dash: int, chunk_end: int, line: int, facts: dict, entry: bool,
             flow: bool = False) -> Item:
    """An item read from its text: its facts, its region, and how to compose its node when asked for."""
    get = facts.get
    start, end = facts["start"], facts["end"]
    # Per item, what hundreds of thousands of small items have alike is shared: no annotations, the
    # offsets a flow entry has twice, apiVersion and kind.
    item = Item(index, None, text, start, end, _shared(_str(get("apiVersion"))), _shared(_str(get("kind"))),
                _str(get("name")), _shared(_str(get("namespace"))))
    item.scanned_annotations = facts["annotations"] or _NO_ANNOTATIONS
    generate_name = get("generateName")
    item.generate_name = generate_name is not None and generate_name[1]
    item.values_as_written = True  # (an entry composed in a run, _compose_run, is not: its text may escape)
    item.recompose = _compose_flow if flow else _compose_entry if entry else _compose_document
    item.dash = start if dash == start else dash
    item.dash_line = line
    item.chunk_end = end if chunk_end == end else chunk_end
    return item


_NO_ANNOTATIONS: Any = MappingProxyType({})
_SHARED: dict[str, str] = {}


def _shared(value: str) -> str:
    """One string object for each of the few values many items have (apiVersion, kind, namespace)."""
    found = _SHARED.get(value)
    if found is None:
        if len(_SHARED) > 10_000:
            _SHARED.clear()
        found = _SHARED[value] = value
    return found


def _make(index: int, text: str, dash: int, chunk_end: int, line: int, facts: dict | None, kaito: bool,
          entry: bool = True) -> Item:
    if facts is not None:
        item = _scanned(index, text, dash, chunk_end, line, facts, entry)
        if not _interesting(item, kaito):
            return item
    # Composed like the full reader composes it (its region comes from its node).
    node = (_compose_entry if entry else _compose_document)(text, dash, chunk_end, line)
    return make_item(index, node, text)


def _node_facts(node: yaml.Node, start: int, end: int) -> dict | None:
    """The facts of a composed item as the scanner gives them, or None where the item keeps its node (it
    has a key twice, or metadata or annotations that are not what the scanner passes)."""
    if not isinstance(node, yaml.MappingNode) or duplicate_key(node, deep=True) is not None:
        return None
    str_tag, Scalar = yamlio.STR_TAG, yaml.ScalarNode

    def fact(value: yaml.Node | None) -> Any:
        return (value.value, value.tag == str_tag) if value.__class__ is Scalar else None

    child = yamlio.child
    meta = child(node, "metadata")
    ann = child(meta, "annotations")
    if (meta is not None and not isinstance(meta, yaml.MappingNode)) or \
            (ann is not None and not isinstance(ann, yaml.MappingNode)):
        return None
    annotations: dict[str, tuple[str, bool]] = {}
    for k, v in ann.value if ann is not None else ():
        if k.__class__ is not Scalar or v.__class__ is not Scalar:
            return None
        annotations[k.value] = (v.value, v.tag == str_tag)
    return {"start": start, "end": end, "annotations": annotations, "apiVersion": fact(child(node, "apiVersion")),
            "kind": fact(child(node, "kind")), "name": fact(child(meta, "name")),
            "namespace": fact(child(meta, "namespace")), "generateName": fact(child(meta, "generateName"))}


def _kept_or_released(item: Item, dash: int, chunk_end: int, line: int, kaito: bool, entry: bool,
                      flow: bool = False) -> Item:
    """A composed item as it is where a stage may look into it; otherwise its facts without its node
    (composed again only if asked for): a node tree takes ~100 times its text, and a
    flow item (`- {…}`, JSON) is composed, as the scanner reads no flow collection over lines."""
    facts = _node_facts(item.node, item.start, item.end)
    if facts is None:
        return item
    released = _scanned(item.index, item.source, dash, chunk_end, line, facts, entry, flow)
    released.values_as_written = False  # composed, not scanned: its text may escape what its values hold
    if _interesting(released, kaito):
        return item
    return released


def _envelope(text: str, root: yaml.MappingNode, items_node: yaml.SequenceNode, items: list[Item]) -> ResourceList:
    rl = envelope(text, root, items_node, items)
    rl.shared = set()  # no item shares anchors: an alias to another item's anchor sends the input to the full reader
    return rl


# --- render: plain streams of documents at column 0 (kustomize build, helm template, a folder's files) ------

# A line at column 0 that may separate documents: `---`, `...` (with at most a comment after them) or a
# directive; each is searched after its line break (a pattern that begins with a literal is searched fast).
_SEPARATOR = re.compile(r"\n(?:---|\.\.\.|%)")
_MARKER_REST = re.compile(r"(?:[ ]+(?:#.*)?)?")


def _compose_document(text: str, start: int, end: int, line: int) -> yaml.Node | None:
    """The node of the document whose lines are text[start:end] (between its markers), where the full
    reader has it: a document is composed at depth 0 on its own as in the stream (anchors cannot cross
    documents, and the scanner sends streams with directives to the full reader)."""
    node = yamlio.compose(text[start:end])
    if node is not None:
        _shift(node, start, line)
    return node


def _separators(text: str) -> list[tuple[int, int]] | None:
    """(start, end) of every `---`/`...` line at column 0; None for a directive, content after a
    marker (`--- |`, `--- {…}`) or anything else at column 0 that begins like one (`----`)."""
    found = [0] if text.startswith(("---", "...", "%")) else []
    found += [m.start() + 1 for m in _SEPARATOR.finditer(text)]
    out = []
    for start in found:
        end = text.index("\n", start)
        if text[start] == "%" or _MARKER_REST.fullmatch(text, start + 3, end) is None:
            return None
        out.append((start, end + 1))
    return out


def _blank(lines: list[str]) -> bool:
    """Only blank and comment lines: no document (before the first marker), or an empty one."""
    for ln in lines:
        stripped = ln.lstrip(" ")
        if stripped and stripped[0] != "#":
            return False
    return True


def scan_documents(text: str, first: int) -> list[Item] | None:
    """The documents of one source of `render` (items numbered from `first`), composing only what could
    concern the function; None where the text is not a stream of documents at column 0 separated by
    `---` (a List or ResourceList among them, directives, anchors used across items …): the full reader
    then reads it and alone words every error. Same rules as `scan` for what is composed."""
    if not yamlio.C_AVAILABLE or yamlio.backend() != "c" or not text.endswith("\n") \
            or "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text or "\ufeff" in text:
        return None
    try:
        items = _scan_documents(text, first)
    except _REFUSED_DOCUMENTS:
        return None
    return items


_REFUSED_DOCUMENTS = _REFUSED + (_Unsure, AttributeError)


def _scan_documents(text: str, first: int) -> list[Item] | None:
    bounds = _separators(text)
    if bounds is None:
        return None
    # (start, end, line) of each stretch of text between markers
    chunks = []
    start = line = 0
    for marker, after in bounds + [(len(text), len(text))]:
        if marker > start:
            chunks.append((start, marker, line))
            line += text.count("\n", start, marker)
        line += after > marker  # the marker's own line
        start = after
    return _run_jobs(text, len(chunks), lambda i: _document_facts(text, chunks[i]), _REFUSED_DOCUMENTS,
                     lambda helper: _documents_with(text, first, chunks, helper))


def _document_facts(text: str, chunk: tuple[int, int, int]) -> dict | bool | None:
    """The facts of a document (None: it is composed), False for no document (blank lines, comments)."""
    lines = text[chunk[0]:chunk[1]].split("\n")
    lines.pop()  # the chunk ends with a line break
    if _blank(lines):
        return False
    try:
        return _scan_item(lines, chunk[0], dash=False)
    except _Unsure:
        return None


def _may_list(text: str, start: int, end: int) -> bool:
    """Whether a document the scanner could not read may be a List, worth asking the events (a CRD's
    schema has `items:` keys, but not at column 0): `items:` at column 0, or a flow mapping (JSON)."""
    if text.startswith("items", start) or text.find("\nitems", start, end) >= 0:
        return True
    pos = start
    while pos < end:  # the first line that is not blank or a comment
        nl = text.find("\n", pos, end)
        line = text[pos:nl if nl >= 0 else end].lstrip(" ")
        if line and line[0] != "#":
            return line[0] == "{"
        if nl < 0:
            break
        pos = nl + 1
    return False


class _Documents(list):
    """The items of one source of `render`: its documents, and the items of the Lists among them."""

    documents: list[Item]           # the documents that are items themselves (their comments are theirs)
    function_config: yaml.Node | None = None  # of the first List or ResourceList among them, a mapping


def _documents_with(text: str, first: int, chunks: list[tuple[int, int, int]],
                    helper: parscan.Helper | None) -> list[Item] | None:
    started = time.monotonic()
    if helper is None:
        _validate(text)  # everything is YAML: from here on only structure is read
    kaito = _mentions(text, 0, len(text))
    items = _Documents()
    items.documents = []
    k = 0
    number = 0  # of the document, among those that are not empty (as the full reader counts them)
    for i, facts in _in_order(text, len(chunks), lambda j: _document_facts(text, chunks[j]), helper, started):
        if facts is False:
            continue
        start, end, line = chunks[i]
        listed = _str(facts.get("kind")) in (krm.LIST_KIND, krm.RESOURCE_LIST_KIND) if facts is not None \
            else _may_list(text, start, end)
        if listed:
            # A List (`kubectl get -o yaml` or `-o json`) or a ResourceList: its items are the documents.
            got = _split_items(text, start, end, line, first + len(items))
            if got is not None and _is_envelope(got[0]):
                root, _, members = got
                _refuse_duplicates(root, _str((facts or {}).get("kind")) or "List")  # the full reader words it
                fc = yamlio.child(root, "functionConfig")
                if items.function_config is None and isinstance(fc, yaml.MappingNode):
                    items.function_config = fc
                for member in members:
                    member.origin_index = number
                items += members
                number += 1
                continue
            if facts is not None:
                return None  # the full reader unpacks it
        while k < len(kaito) and kaito[k] < start:
            k += 1
        item = _make_document(first + len(items), text, start, end, line, facts, k < len(kaito) and kaito[k] < end)
        if item is None:
            return None
        item.origin_index = number
        number += 1
        items.append(item)
        items.documents.append(item)
    return items


def _make_document(index: int, text: str, start: int, end: int, line: int, facts: dict | None,
                   kaito: bool) -> Item | None:
    if facts is not None:
        item = _make(index, text, start, end, line, facts, kaito, entry=False)
    else:
        node = _compose_document(text, start, end, line)
        if not isinstance(node, yaml.MappingNode):
            return None  # a scalar, a list, an empty document: the full reader's
        item = _kept_or_released(make_item(index, node, text), start, end, line, kaito, False)
    if not item.is_mapping or item.kind in (krm.LIST_KIND, krm.RESOURCE_LIST_KIND):
        return None  # a List's items are the documents: the full reader unpacks it
    return item


__all__ = ["reset", "scan", "scan_documents"]
