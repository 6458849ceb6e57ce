"""What every result needs: a value quoted as KAITO quotes it, and the item a result is about."""
from __future__ import annotations

import re
import json

import yaml

from .index import ref_of
from .quoting import goquote
from .reader import Item, child
from .results import Result, Severity

__all__ = ["about", "goquote", "q"]


def q(value: object) -> str:
    """A value in a message, quoted as KAITO quotes it (Go's `%q`)."""
    return goquote(value) if isinstance(value, str) else json.dumps(value)


_STEP = re.compile(r"\.?([^.\[\]]+)|\[([^\]]*)\]")


def field_node(node: yaml.Node, field: str) -> yaml.Node | None:
    """The node at a result's field path (`spec.roles[0].runtimeConfig`, `metadata.annotations[a/b]`)."""
    for m in _STEP.finditer(field):
        key = m.group(1) if m.group(1) is not None else m.group(2)
        if isinstance(node, yaml.SequenceNode) and key.isascii() and key.isdigit() and int(key) < len(node.value):
            node = node.value[int(key)]
        else:
            node = child(node, key)
        if node is None:
            return None
    return node


def where(item: Item, field: str = "") -> dict:
    """The file fields of a result about `item`: kpt's path and index, or (render) the file it was read
    from with the line of the field (or of the item) there."""
    path, index = item.file()
    line = None
    if item.origin and path == item.origin:
        at = field_node(item.node, field) if field else None
        line = (at or item.node).start_mark.line + 1
    return {"file_path": path, "file_index": index, "file_line": line}


def about(severity: Severity, message: str, item: Item, field: str = "", **values) -> Result:
    return Result(severity, message, ref_of(item), field_path=field, **where(item, field), **values)

