"""JSON Patch as JSON means it, in one place, the only module that imports jsonpatch: the plan, materialize's
working copy, the writer and the text editor's verifier apply ops with `apply_ops`; the stages that regenerate
an object edited by hand get the ops from `diff`; `same` is the equality both answer to.

jsonpatch itself is not used to apply: before 1.34 its `add` and `replace` put the op's own `value` object
into the document, so a later op that edits inside that value edits the op too (and every plan that shares
it). Here each value is copied in, and only the collections on each op's path are copied, so `data` and
whatever it shares (aliases, an item's data as read) are never changed.
"""

import copy
import math
from collections.abc import Iterable
from typing import Any

import jsonpatch

from . import pointer

Op = dict[str, Any]  # one JSON Patch operation: {"op": "add", "path": "/a/b", "value": …}


def apply_ops(data: Any, ops: Iterable[Op]) -> Any:
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


def diff(src: Any, dst: Any) -> list[Op]:
    """The ops that turn `src` into `dst` (both untouched), as `apply_ops` applies them and `same` compares.

    jsonpatch's diff: a `replace`, `add` or `remove` where they differ, a `move` where a value only changed
    place. Its mappings' keys are taken in the data's order, not a set's (jsonpatch's own order changes
    with the hash seed, and with it the order of the lines the text editor adds); its scalars are compared
    by type and value, so a date or a byte string is no error; and the ops' values are copies, sharing
    nothing with `dst`. Where its ops would not give `dst` (inside a list it takes 1 for True), the one
    op is a whole-document `replace`."""
    try:
        # DiffBuilder's underscore methods are jsonpatch's own (1.33, requirements/pins.txt): a release that
        # renamed them gets the whole-document replace below, correct if not minimal, never an error.
        builder = _OrderedDiff(src, dst, dumps=_typed)
        builder._compare_values("", None, src, dst)
        ops = [{**op, "value": copy.deepcopy(op["value"])} if "value" in op else dict(op) for op in builder.execute()]
        if same(apply_ops(src, ops), dst):
            return ops
    except (AttributeError, TypeError, jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
        pass
    return [{"op": "replace", "path": "", "value": copy.deepcopy(dst)}]


class _OrderedDiff(jsonpatch.DiffBuilder):  # type: ignore[misc]  # jsonpatch has no types: DiffBuilder is Any
    def _compare_dicts(self, path: str, src: dict[str, Any], dst: dict[str, Any]) -> None:
        """DiffBuilder's own, with the keys in the mappings' order instead of a set's."""
        for key in [k for k in src if k not in dst]:
            self._item_removed(path, str(key), src[key])
        for key in [k for k in dst if k not in src]:
            self._item_added(path, str(key), dst[key])
        for key in [k for k in src if k in dst]:
            self._compare_values(path, key, src[key], dst[key])


def _typed(value: Any) -> tuple[type, str]:
    # What DiffBuilder compares two scalars by (json.dumps by default: an error for a date).
    return type(value), repr(value)


def same(a: Any, b: Any, _seen: set[tuple[int, int]] | None = None) -> bool:
    """Deep equality that also tells 1 from 1.0 from True (YAML writes them differently; `==` does not
    tell them apart), and lets NaN equal NaN (`.nan` is one value to YAML).

    Each pair of shared collections is compared once: aliases make a document a graph, and an alias bomb
    walked as a tree would take forever (any difference still makes the whole answer False)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (dict, list)):
        seen = set() if _seen is None else _seen
        if (id(a), id(b)) in seen:
            return True
        seen.add((id(a), id(b)))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k], seen) for k in a)
        return len(a) == len(b) and all(same(x, y, seen) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)
