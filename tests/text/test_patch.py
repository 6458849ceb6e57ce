"""text/patch.py: JSON Patch in one module. apply_ops is the one way the function applies JSON Patch to data
(the plan, materialize, the writer, the editor's verifier), the same on every jsonpatch release the package
allows; diff the one way it makes a patch (an object regenerated after a hand edit); no other module imports
jsonpatch."""
from __future__ import annotations

import ast
import datetime
from pathlib import Path

from krm_fn.text.patch import apply_ops, diff, same

KRM_FN = Path(__file__).resolve().parent.parent.parent / "krm_fn"


def test_an_ops_value_is_copied_in_so_later_ops_do_not_change_the_op():
    # jsonpatch 1.33 (the image's pin) inserts the op's own value object; a later op then edits the op.
    first = {"op": "add", "path": "/labels", "value": {"x": "1"}}
    out = apply_ops({}, [first, {"op": "add", "path": "/labels/y", "value": "2"}])
    assert out == {"labels": {"x": "1", "y": "2"}}
    assert first["value"] == {"x": "1"}
    assert apply_ops({}, [first]) == {"labels": {"x": "1"}}


def test_a_whole_document_replacement_is_a_copy_too():
    value = {"a": [1]}
    out = apply_ops({"old": 1}, [{"op": "replace", "path": "", "value": value}, {"op": "add", "path": "/a/-", "value": 2}])
    assert out == {"a": [1, 2]} and value == {"a": [1]}


def test_remove_and_test_leave_the_input_alone():
    data = {"a": {"b": 1, "c": 2}}
    assert apply_ops(data, [{"op": "test", "path": "/a/b", "value": 1}, {"op": "remove", "path": "/a/b"}]) == {"a": {"c": 2}}
    assert data == {"a": {"b": 1, "c": 2}}


def _importers(library: str, root: Path = KRM_FN) -> list[str]:
    """The modules under `root` that import `library` (or a module of it), in any form, at any depth."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(n == library or n.startswith(library + ".") for n in names):
                found.add(path.relative_to(root.parent).as_posix())
    return sorted(found)


def test_only_text_patch_imports_jsonpatch():
    # Applied anywhere else, jsonpatch 1.33 would put an op's own value into the data (see patch.py).
    assert _importers("jsonpatch") == ["krm_fn/text/patch.py"]
    assert _importers("jsonpointer") == []  # text/pointer.py parses pointers, jsonpatch resolves them


def test_the_importer_finder_sees_every_form(tmp_path):
    forms = ["import jsonpatch", "import jsonpatch as jp", "from jsonpatch import make_patch",
             "import os, jsonpatch", "def f():\n    import jsonpatch\n", "from jsonpatch.x import y"]
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for n, form in enumerate(forms):
        (pkg / f"m{n}.py").write_text(form + "\n")
    (pkg / "quiet.py").write_text("# import jsonpatch\nfrom .jsonpatch import x\nimport jsonpatchy\n")
    assert _importers("jsonpatch", pkg) == [f"pkg/m{n}.py" for n in range(len(forms))]


def test_diff_gives_the_target_and_leaves_both_alone():
    src = {"a": 1, "l": [1, 2, 3], "m": {"x": {"deep": [1]}, "gone": 2}, "moved": {"v": 1}}
    dst = {"a": 2, "l": [1, 3], "m": {"x": {"deep": [1, 2]}, "new": {"n": 1}}, "there": {"v": 1}}
    src_before, dst_before = repr(src), repr(dst)
    ops = diff(src, dst)
    assert same(apply_ops(src, ops), dst)
    assert (repr(src), repr(dst)) == (src_before, dst_before)
    assert {"op": "move", "from": "/moved", "path": "/there"} in ops


def test_diff_values_share_nothing_with_the_target():
    dst = {"a": {"b": [1]}}
    ops = diff({}, dst)
    assert ops == [{"op": "add", "path": "/a", "value": {"b": [1]}}]
    ops[0]["value"]["b"].append(2)
    assert dst == {"a": {"b": [1]}}


def test_diff_adds_keys_in_the_targets_order_whatever_the_hash_seed():
    # jsonpatch takes the keys from a set: their order, and the lines the editor adds, changed from run to run.
    keys = [f"key-{n}" for n in range(12)]
    # (Each value its own: a value removed at one key and added at another is a move.)
    src = {"kept": 0, **{k: n + 1 for n, k in enumerate(keys[::-1])}}
    ops = diff(src, {"kept": 0, **{k + "!": -n - 1 for n, k in enumerate(keys)}})
    assert [op["path"] for op in ops if op["op"] == "remove"] == [f"/{k}" for k in keys[::-1]]
    assert [op["path"] for op in ops if op["op"] == "add"] == [f"/{k}!" for k in keys]


def test_diff_tells_1_from_true_from_1_0():
    assert diff({"a": 1}, {"a": True}) == [{"op": "replace", "path": "/a", "value": True}]
    assert diff({"a": 1}, {"a": 1.0}) == [{"op": "replace", "path": "/a", "value": 1.0}]
    # Inside a list jsonpatch takes 1 for True (`==`): the whole document is replaced instead.
    assert diff({"a": [1]}, {"a": [True]}) == [{"op": "replace", "path": "", "value": {"a": [True]}}]
    assert diff({"a": float("nan")}, {"a": float("nan")}) == []


def test_diff_takes_values_json_has_no_word_for():
    day = datetime.date(2024, 1, 1)
    assert diff({"a": day}, {"a": "2024-01-01"}) == [{"op": "replace", "path": "/a", "value": "2024-01-01"}]
    assert diff({"a": day, "b": b"x"}, {"a": day, "b": b"x"}) == []
