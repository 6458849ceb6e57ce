"""roles (SD114 to SD118): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import make_workload, mri
from krm_fn.checks import roles


def test_pass() -> None:
    assert roles.findings(make_workload(mri())) == []


@pytest.mark.parametrize("text, expected", [
    (mri(None), [("missing field(s): spec.model.name", "spec.model.name", "SD114")]),
    (mri(roles="  - type: prefill\n"), [("exactly 2 roles required (one prefill, one decode), got 1", "spec.roles", "SD115")]),
    (mri(roles="  - type: prefill\n  - type: prefill\n"), [
        ("duplicate prefill role", "spec.roles[1].type", "SD116"),
        ("missing field(s): spec.roles (missing decode role)", "spec.roles", "SD118")]),
    (mri(roles="  - type: prefill\n  - type: encode\n"), [
        ('unsupported role type "encode", must be prefill or decode', "spec.roles[1].type", "SD117"),
        ("missing field(s): spec.roles (missing decode role)", "spec.roles", "SD118")]),
])
def test_fail(text: str, expected: list) -> None:
    assert [f[:3] for f in roles.findings(make_workload(text))] == expected
