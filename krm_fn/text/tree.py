"""A composed node tree and where it is in the source text.

Nodes keep character offsets (marks, `Mark`); these helpers read a tree (`child`, `scalar`, `is_null`, every
node once: `nodes`) and turn marks into line and node boundaries (`node_end`, `line_start`, `line_end`,
`column_of`), for the reader (item regions), the writer (splices) and textedit (edits of an item or of an
embedded document). Line searches see every YAML line break (`searchable`).
"""

import re
from collections.abc import Iterator
from typing import Any

import yaml

from .go_scalars import NULL_TAG, STR_TAG


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


def position(mark: Any) -> str:
    """'line L, column C' (1-based) for a PyYAML mark."""
    return f"line {mark.line + 1}, column {mark.column + 1}"


# --- reading a tree -------------------------------------------------------------------------------------

def child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value node under `key` of a mapping node, or None."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            found: yaml.Node = v
            return found
    return None


def is_null(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG


def scalar(node: yaml.Node | None) -> str | None:
    """A scalar's string value when it is a string (plain or quoted); None otherwise."""
    if isinstance(node, yaml.ScalarNode) and node.tag == STR_TAG:
        value: str = node.value
        return value
    return None


def children(node: Any) -> list[yaml.Node]:
    """A node's keys and values, or entries (none for a scalar)."""
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        entries: list[yaml.Node] = node.value
        return entries
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
            stack.extend(children(node))


# --- positions in the source text ----------------------------------------------------------------------

# What YAML 1.1 (PyYAML, libyaml, Go's yaml) counts as a line break besides "\n": a bare CR (old Mac files),
# NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. Node marks count lines by them, so every search for a line
# start or end must too.
_ODD_BREAK = "\r(?!\n)|[\x85\u2028\u2029]"


_SEARCHABLE: list[str] = ["", ""]  # the last text asked for and its answer: callers ask again and again for one text


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
            if isinstance(value, yaml.ScalarNode) and unwritten(value.start_mark.index, value.end_mark.index,
                                                                value.value, text):
                node = key  # an explicit key (`? x`) with no value: the mapping ends with the key
                continue
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


def unwritten(start: int, end: int, value: str, text: str) -> bool:
    """Is a scalar an empty value with no text of its own, marked where the next token is? libyaml marks an
    empty value after `:` (or `-`, `?`) there, but the value of an explicit key with no `:` (`? x`) at the
    next token, which may be the next item's `-` inside a later line: no region may reach to it. (libyaml
    0.2.5 src/parser.c:930, yaml_parser_parse_block_mapping_value: `return yaml_parser_process_empty_scalar(
    parser, event, token->start_mark);`.)"""
    return start == end and not value and start > 0 and text[start - 1] not in ":-?"


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
