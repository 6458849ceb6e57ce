"""JSON Patch operations applied as small text edits to one item's source region.

The patch is the single source of truth: jsonpatch computes the intended object, the text edits try
to produce it while leaving every other byte alone, and a re-parse checks that they did. Where an edit
cannot be made safely (flow style, block scalars, odd layouts), the item is emitted whole instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonpatch
import yaml

from . import pointer, yamlio
from .reader import Item
from .yamlio import column_of, ends_line, line_end, line_start, node_end


class Unsupported(Exception):
    """This edit cannot be made as a text edit; the caller falls back to emitting the item."""


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str
    seq: int


def _find(node: yaml.Node, parts: list[str]) -> tuple[yaml.Node | None, yaml.Node | None, yaml.Node | None]:
    """(parent node, key node, value node) for a pointer; value None when the last key is absent."""
    parent: yaml.Node | None = None
    key_node: yaml.Node | None = None
    cur: yaml.Node | None = node
    for i, part in enumerate(parts):
        parent, key_node = cur, None
        if isinstance(cur, yaml.MappingNode):
            nxt = None
            for k, v in cur.value:
                if isinstance(k, yaml.ScalarNode) and k.value == part:
                    key_node, nxt = k, v
            cur = nxt
        elif isinstance(cur, yaml.SequenceNode) and part.isdigit() and int(part) < len(cur.value):
            cur = cur.value[int(part)]
        else:
            cur = None
        if cur is None and i < len(parts) - 1:
            raise Unsupported("parent path does not exist in the source")
    return parent, key_node, cur


def _is_block_scalar(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.style in ("|", ">")


def _block(value: Any, indent: int) -> str:
    """A collection as block YAML, every line indented, starting on a new line."""
    body = yamlio.dump(value)
    pad = " " * indent
    return "\n" + "".join(pad + line if line.strip() else line for line in body.splitlines(True)).rstrip("\n")


def _value_text(value: Any, indent: int, style: str | None = None) -> str:
    """Text that follows `key:` for a new value (leading space or newline included)."""
    if isinstance(value, (dict, list)):
        if not value:
            return " {}" if isinstance(value, dict) else " []"
        return _block(value, indent)
    if isinstance(value, str) and "\n" in value:
        raise Unsupported("multi-line string")
    return " " + yamlio.scalar_text(value, style)


def _key_column(text: str, mapping: yaml.MappingNode) -> int:
    return column_of(text, mapping.value[0][0].start_mark.index)


def _after_colon(text: str, key_node: yaml.Node) -> int:
    pos = text.find(":", key_node.end_mark.index)
    if pos < 0:
        raise Unsupported("no colon after key")
    return pos + 1


def _edits_for(text: str, root: yaml.Node, op: dict, seq: int) -> list[Edit]:
    kind = op["op"]
    parts = pointer.parse(op["path"])
    if not parts or parts == [""]:
        raise Unsupported("whole-document operation")
    parent, key_node, value_node = _find(root, parts)
    if not isinstance(parent, yaml.MappingNode):
        raise Unsupported("parent is not a mapping")
    if parent.flow_style:
        return _flow_edits(text, parent, key_node, value_node, kind, parts[-1], op.get("value"), seq)
    if kind in ("add", "replace") and value_node is not None:
        new = op["value"]
        if isinstance(value_node, yaml.ScalarNode) and not _is_block_scalar(value_node):
            if isinstance(new, (dict, list)) and new:
                start = _after_colon(text, key_node)
                return [Edit(start, value_node.end_mark.index,
                             _value_text(new, _key_column(text, parent) + 2), seq)]
            style = value_node.style if value_node.style in ('"', "'") else None
            return [Edit(value_node.start_mark.index, value_node.end_mark.index,
                         _value_text(new, 0, style).lstrip(" "), seq)]
        if isinstance(value_node, (yaml.MappingNode, yaml.SequenceNode)) and value_node.flow_style \
                and not value_node.value and isinstance(new, (dict, list)):
            start = _after_colon(text, key_node)
            return [Edit(start, value_node.end_mark.index,
                         _value_text(new, _key_column(text, parent) + 2), seq)]
        raise Unsupported("replacing a collection or block scalar")
    if kind == "add":
        if not parent.value:
            raise Unsupported("empty mapping")
        col = _key_column(text, parent)
        at = line_end(text, node_end(parent, text))
        prefix = "" if at == 0 or ends_line(text[at - 1]) else "\n"
        line = " " * col + yamlio.scalar_text(parts[-1]) + ":" + _value_text(op["value"], col + 2) + "\n"
        return [Edit(at, at, prefix + line, seq)]
    if kind == "remove":
        if value_node is None or key_node is None:
            raise Unsupported("nothing to remove")
        if len(parent.value) == 1:
            # Removing the last key must leave `{}`, not a null.
            owner_parts = parts[:-1]
            if not owner_parts:
                raise Unsupported("emptying the item")
            _, owner_key, _ = _find(root, owner_parts)
            if owner_key is None:
                raise Unsupported("emptying a sequence entry")
            return [Edit(_after_colon(text, owner_key), node_end(parent, text), " {}", seq)]
        begin = line_start(text, key_node.start_mark.index)
        if text[begin:key_node.start_mark.index].strip():
            raise Unsupported("key does not start its line")
        return [Edit(begin, line_end(text, node_end(value_node, text)), "", seq)]
    raise Unsupported(f"operation {kind!r}")


def _flow_text(value: Any, json_style: bool = False) -> str:
    """A value inside a flow collection: `{k: v, …}`, `[a, …]`, scalars quoted when flow syntax needs it
    (and every string double-quoted in a JSON-styled document)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow_text(k, json_style)}: {_flow_text(v, json_style)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow_text(v, json_style) for v in value) + "]"
    if isinstance(value, str) and (json_style or any(c in value for c in ",[]{}#:\"'\n")
                                   or value != value.strip()):
        return yamlio.scalar_text(value, '"')
    return yamlio.scalar_text(value)


def _flow_edits(text: str, parent: yaml.MappingNode, key_node: yaml.Node | None, value_node: yaml.Node | None,
                kind: str, key: str, value: Any, seq: int) -> list[Edit]:
    """Edits inside a flow mapping (`{a: 1, b: 2}`): the same operations, in flow syntax."""
    json_style = bool(parent.value) and parent.value[0][0].style == '"'
    if kind in ("add", "replace") and value_node is not None:
        if isinstance(value_node, yaml.ScalarNode) and not isinstance(value, (dict, list)):
            style = value_node.style if value_node.style in ('"', "'") else None
            new = yamlio.scalar_text(value, style) if style else _flow_text(value, json_style)
        else:
            new = _flow_text(value, json_style)
        return [Edit(value_node.start_mark.index, node_end(value_node, text), new, seq)]
    if kind == "add":
        entry = f"{_flow_text(key, json_style)}: {_flow_text(value, json_style)}"
        if not parent.value:
            close = parent.end_mark.index - 1
            if text[close] != "}":
                raise Unsupported("odd empty flow mapping")
            return [Edit(close, close, entry, seq)]
        at = node_end(parent.value[-1][1], text)
        return [Edit(at, at, ", " + entry, seq)]
    if kind == "remove" and value_node is not None and key_node is not None:
        entries = parent.value
        i = next(n for n, (k, _) in enumerate(entries) if k is key_node)
        if len(entries) == 1:
            return [Edit(parent.start_mark.index, parent.end_mark.index, "{}", seq)]
        if i == 0:
            return [Edit(key_node.start_mark.index, entries[1][0].start_mark.index, "", seq)]
        return [Edit(node_end(entries[i - 1][1], text), node_end(value_node, text), "", seq)]
    raise Unsupported(f"flow operation {kind!r}")


def apply_text_edits(text: str, root: yaml.Node, ops: list[dict], start: int, end: int,
                     extra: list[tuple[int, int, str]] = ()) -> str:  # type: ignore[assignment]
    """The region text[start:end] with ops applied (positions as in `root`), and `extra` (start, end,
    text) edits; raises Unsupported."""
    edits: list[Edit] = [Edit(a, b, new, -1) for a, b, new in extra]
    for seq, op in enumerate(ops):
        edits.extend(_edits_for(text, root, op, seq))
    edits.sort(key=lambda e: (e.start, e.seq), reverse=True)
    out = text[start:end]
    last_start = end + 1
    for e in edits:
        if e.end > last_start or e.start < start or e.end > end:
            raise Unsupported("overlapping edits or edits outside the item")
        out = out[:e.start - start] + e.text + out[e.end - start:]
        last_start = e.start
    return out


def _last_scalar(node: yaml.Node) -> yaml.Node | None:
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        node = node.value[-1][1] if isinstance(node, yaml.MappingNode) else node.value[-1]
    return node if isinstance(node, yaml.ScalarNode) else None


def tail_edits(text: str, node: yaml.Node) -> list[tuple[int, int, str]]:
    """Edits that keep the value of a block scalar ending `text` without a final line break, for when
    something is written after it: the line break that starts the next line would become part of it.

    A clip (`|`) or keep (`|+`) scalar whose value has no trailing line break becomes strip (`|-`), which
    means the same; a keep scalar whose last line is only blanks loses those blanks (they count as a
    line break as soon as one follows). Everything else already means the same with a line break after it.
    """
    if not text or ends_line(text):
        return []
    last = _last_scalar(node)
    if last is None or last.style not in ("|", ">") or last.end_mark.index != len(text):
        return []
    at = last.start_mark.index
    if text[at:at + 1] not in ("|", ">"):
        return []
    header = at + 1
    while header < len(text) and text[header] in "+-123456789":
        header += 1
    chomp = text[at + 1:header]
    if "-" in chomp:
        return []
    if not last.value.endswith("\n"):
        return [(at + 1, header, chomp.replace("+", "") + "-")]
    if "+" in chomp:
        begin = line_start(text, len(text))
        if not text[begin:].strip(" \t"):
            return [(begin, len(text), "")]
    return []


def emit_item(data: Any, column: int, trailing_newline: bool) -> str:
    """A whole item by the safe emitter, laid out to continue at `column` after a `- `."""
    lines = yamlio.dump(data).splitlines(True)
    body = lines[0] + "".join(" " * column + ln if ln.strip() else ln for ln in lines[1:])
    return body if trailing_newline else body.rstrip("\n")


def _parses_to(region: str, column: int, target: Any) -> bool:
    try:
        return yamlio.load(" " * column + region) == target
    except yaml.YAMLError:
        return False


def edit_item(item: Item, ops: list[dict], followed: bool = False) -> str:
    """The item's new region text: text edits when they verify, else the item emitted whole.

    `followed`: something is written after the region (its last value must mean the same then)."""
    target = jsonpatch.apply_patch(item.data(), ops)
    extra = tail_edits(item.source, item.node) if followed and item.end == len(item.source) else []
    try:
        region = apply_text_edits(item.source, item.node, ops, item.start, item.end, extra)
        if _parses_to(region + ("\n" if followed else ""), item.column, target):
            return region
    except Unsupported:
        pass
    return emit_item(target, item.column, ends_line(item.region))
