"""replicas (SD133, SD134): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, mri
from krm_fn.checks import replicas


def _iset(value: str) -> str:
    return iset().replace("spec:\n", f"spec:\n  replicas: {value}\n", 1)


def _roles(prefill: str, decode: str) -> str:
    return mri(roles=f"  - type: prefill\n    replicas: {prefill}\n  - type: decode\n    replicas: {decode}\n")


@pytest.mark.parametrize("text", [
    iset(), _iset("0"), _iset("3"), _iset('"-1"'), _iset("true"), _iset("-1.5"),  # no int: the schema's error
    mri(), _roles("1", "4"), _roles("null", "2"),  # null: autoscaling
    mri(roles="  - type: prefill\n    replicas: 0\n"),  # one role: KAITO stops at "exactly 2 roles required"
])
def test_pass(text: str) -> None:
    assert replicas.findings(make_workload(text)) == []


@pytest.mark.parametrize("text, expected", [
    (_iset("-1"), [("invalid value: -1: must be non-negative", "spec.replicas", "SD133")]),
    (iset(api="kaito.sh/v1alpha1").replace("spec:\n", "spec:\n  replicas: -3\n", 1),
     [("invalid value: -3: must be non-negative", "spec.replicas", "SD133")]),
    (_roles("0", "1"), [("invalid value: 0: must be at least 1", "spec.roles[0].replicas", "SD134")]),
    (_roles("-2", "0"), [("invalid value: -2: must be at least 1", "spec.roles[0].replicas", "SD134"),
                         ("invalid value: 0: must be at least 1", "spec.roles[1].replicas", "SD134")]),
])
def test_fail(text: str, expected: list) -> None:
    assert [f[:3] for f in replicas.findings(make_workload(text))] == expected
