"""adapters (SD138, SD139): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, ws
from krm_fn.checks import adapters


def _ws(names: list[str], preset: str = "phi-3-mini-128k-instruct", api: str = "kaito.sh/v1beta1") -> str:
    listed = "".join(f"  - source:\n      name: {n}\n      image: r/a:{i}\n" for i, n in enumerate(names))
    return ws(inference=f"  preset:\n    name: {preset}\n  adapters:\n{listed}", api=api)


@pytest.mark.parametrize("text", [
    ws(), _ws(["a"]), _ws(["a", "b"]), _ws([f"a{i}" for i in range(10)]),
    _ws([f"a{i}" for i in range(11)], preset="falcon-7b"),  # KAITO returns at the unknown preset first
    ws(inference="  preset:\n    name: phi-4\n  adapters:\n  - strength: '0.5'\n  - strength: '0.5'\n"),  # no source
    iset(api="kaito.sh/v1alpha1", inference_extra="      adapters:\n      - source: {name: a}\n      - source: {name: a}\n"),
])
def test_pass(text: str) -> None:
    assert adapters.findings(make_workload(text)) == []


@pytest.mark.parametrize("text, expected", [
    (_ws([f"a{i}" for i in range(11)]), [("Number of Adapters exceeds the maximum limit, maximum of 10 allowed", "inference.adapters", "SD138")]),
    (_ws(["a", "b", "a", "a"]), [("Duplicate adapter source name found: a", "inference.adapters[2].source.name", "SD139")]),
    (_ws(["a", "b", "b", "a"], api="kaito.sh/v1alpha1"), [
        ("Duplicate adapter source name found: b", "inference.adapters[2].source.name", "SD139"),
        ("Duplicate adapter source name found: a", "inference.adapters[3].source.name", "SD139")]),
    (ws(inference="  template: {}\n  adapters:\n  - source: {}\n  - source: {name: null}\n"),
     [("Duplicate adapter source name found: ", "inference.adapters[1].source.name", "SD139")]),
    (iset(inference_extra="      adapters:\n      - source: {name: a}\n      - source: {name: a}\n"),
     [("Duplicate adapter source name found: a", "spec.template.inference.adapters[1].source.name", "SD139")]),
])
def test_fail(text: str, expected: list) -> None:
    assert [f[:3] for f in adapters.findings(make_workload(text))] == expected
