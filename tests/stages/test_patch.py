"""patch.apply_ops: the one way the function applies JSON Patch to data (the plan, materialize, the editor's
verifier), the same on every jsonpatch release the package allows."""
from __future__ import annotations

from krm_fn.text.patch import apply_ops


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
