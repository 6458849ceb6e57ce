"""JSON Patch applied as JSON means it, in one place: the plan, materialize's working copy and the text
editor's verifier all patch data through `apply_ops`.

jsonpatch itself is not used to apply: before 1.34 its `add` and `replace` put the op's own `value` object
into the document, so a later op that edits inside that value edits the op too (and every plan that shares
it). Here each value is copied in, and only the collections on each op's path are copied, so `data` and
whatever it shares (aliases, an item's data as read) are never changed.
"""

import copy
from collections.abc import Iterable
from typing import Any

import jsonpatch

from . import pointer


def apply_ops(data: Any, ops: Iterable[dict]) -> Any:
    """The data with the JSON Patch applied, `data` itself untouched. A value that aliases share elsewhere
    in `data` keeps its old content there: the result is a tree, as JSON means it."""
    for op in ops:
        kind = op["op"]
        parts = pointer.parse(op["path"])
        if kind in ("add", "replace"):
            op = {**op, "value": copy.deepcopy(op["value"])}
            if not parts:
                data = op["value"]
                continue
        elif kind not in ("remove", "test"):
            data = jsonpatch.apply_patch(data, [op])  # move, copy: a `from` path too; a deep copy is simplest
            continue
        data = jsonpatch.apply_patch(_copied_along(data, parts[:-1]), [op], in_place=True)
    return data


def _copied_along(data: Any, parts: list[str]) -> Any:
    top = _shallow(data)
    cur = top
    for part in parts:
        key: Any = int(part) if isinstance(cur, list) and part.isascii() and part.isdigit() else part
        try:
            cur[key] = _shallow(cur[key])
        except (KeyError, IndexError, TypeError):
            break  # jsonpatch names what is missing
        cur = cur[key]
    return top


def _shallow(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else value
