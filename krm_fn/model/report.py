"""What every result needs: a value quoted as KAITO quotes it, and the item a result is about."""

import re
from typing import Any, TypedDict

import yaml

from ..text.items import Home, Item
from ..text.tree import child
from ..text.results import Finding, Result
from .index import ref_of
from .origins import origin_file

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


class Where(TypedDict):
    """A Result's file fields (`**where(item)`)."""

    file_path: str
    file_index: int | None
    file_line: int | None


def where(item: Item, field: str = "") -> Where:
    """The file fields of a result about `item`: kpt's path and index, or (render) the file it was read
    from with the line of the field (or of the item) there."""
    if item.home is not None:
        return _at_home(item, item.home, field)
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


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _same_value(home: yaml.Node, built: yaml.Node | None) -> bool:
    """The field in the repository file has the value built (a mapping or list counts as the same)."""
    if not isinstance(home, yaml.ScalarNode) or not isinstance(built, yaml.ScalarNode):
        return True
    return bool(home.value == built.value)


def _at_home(item: Item, home: Home, field: str) -> Where:
    """A built object's finding in the repository: the overlay patch that set the field to the value built
    (outermost first), else the field in the base's document, else (a field the build added or changed
    elsewhere: a namespace, a name prefix, a JSON 6902 patch) the base document's first line."""
    if home.node is None:
        return {"file_path": home.path, "file_index": None, "file_line": None}
    built = field_node(item.passing_node(), field) if field else None
    for path, node in home.patches:
        at = field_node(node, field) if field else None
        if isinstance(at, yaml.ScalarNode) and _same_value(at, built):
            return {"file_path": path, "file_index": None, "file_line": _line(at)}
    at = field_node(home.node, field) if field else None
    line = _line(at) if at is not None and _same_value(at, built) else _line(home.node)
    return {"file_path": home.path, "file_index": None, "file_line": line}


def about(found: Finding, item: Item, **values: Any) -> Result:
    """`found` placed on `item`: `about(finding("SDnnn", field, …), item, current_value=…)`; its line is that
    of `found.at` when given (KAITO's `inference.presetName` names no field: its line is that of
    `inference.preset.name`). `values`: the Result's other fields."""
    return Result(found.severity, found.message, ref_of(item), field_path=found.field, id=found.id,
                  **where(item, found.at or found.field), **values)

