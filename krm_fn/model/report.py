"""What every result needs: a value quoted as KAITO quotes it, and the item a result is about."""

import re
from typing import Any, TypedDict

import yaml

from ..text import krm
from ..text.items import Item
from ..text.yamlio import load
from ..text.tree import child
from ..text.results import Finding, Result
from .index import ref_of

_STEP = r"\.?([^.\[\]]+)|\[([^\]]*)\]"


def field_node(node: yaml.Node | None, field: str) -> yaml.Node | None:
    """The node at a result's field path (`spec.roles[0].runtimeConfig`, `metadata.annotations[a/b]`)."""
    for m in re.finditer(_STEP, field):
        key = m.group(1) if m.group(1) is not None else m.group(2)
        if isinstance(node, yaml.SequenceNode) and key.isascii() and key.isdigit() and int(key) < len(node.value):
            node = node.value[int(key)]
        else:
            node = child(node, key)
        if node is None:
            return None
    return node


STDIN = "<stdin>"


def origin_file(item: Item) -> str:
    """The source kustomize's origin annotation names: `path` (as `REPO//path?ref=REF` for a remote base),
    or for a generated object the kustomization it was `configuredIn`; "" without one."""
    text = item.annotation(krm.ORIGIN_ANNOTATION)
    if not text:
        return ""
    try:
        origin = load(text)
    except Exception:  # a hand-written annotation that is not YAML: no source, the line of stdin stays
        return ""
    if not isinstance(origin, dict):
        return ""
    fields = {k: v for k, v in origin.items() if isinstance(k, str) and isinstance(v, str) and v}
    path = fields.get("path") or fields.get("configuredIn") or ""
    if path and fields.get("repo"):
        ref = f"?ref={fields['ref']}" if fields.get("ref") else ""
        return f"{fields['repo']}//{path}{ref}"
    return path


class Where(TypedDict):
    """A Result's file fields (`**where(item)`)."""

    file_path: str
    file_index: int | None
    file_line: int | None


def where(item: Item, field: str = "") -> Where:
    """The file fields of a result about `item`: kpt's path and index, or (render) the file it was read
    from with the line of the field (or of the item) there."""
    path, index = item.file()
    line = None
    if item.origin == STDIN and path == STDIN:
        source = origin_file(item)
        if source:  # kustomize records the file, not the line: better the source file than a line of stdin
            return {"file_path": source, "file_index": None, "file_line": None}
    if item.origin and path == item.origin:
        at = field_node(item.passing_node(), field) if field else None
        line = at.start_mark.line + 1 if at is not None else item.line + 1
    return {"file_path": path, "file_index": index, "file_line": line}


def about(found: Finding, item: Item, **values: Any) -> Result:
    """`found` placed on `item`: `about(finding("SDnnn", field, …), item, current_value=…)`; its line is that
    of `found.at` when given (KAITO's `inference.presetName` names no field: its line is that of
    `inference.preset.name`). `values`: the Result's other fields."""
    return Result(found.severity, found.message, ref_of(item), field_path=found.field, id=found.id,
                  **where(item, found.at or found.field), **values)

