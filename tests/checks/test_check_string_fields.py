"""string-fields (SD107, SD108): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import make_workload, mri, ws
from krm_fn.checks import string_fields


@pytest.mark.parametrize("text", [ws(), ws(inference='  preset:\n    name: phi-4\n  config: "5"\n'),
                                  ws(inference='  preset:\n    name: phi-4\n  config: "2024-01-01"\n')])
def test_pass(text: str) -> None:
    assert string_fields.findings(make_workload(text)) == []


@pytest.mark.parametrize("text, expected", [
    (ws(inference="  preset:\n    name: 123\n"),
     [("inference.preset.name has invalid value 123 (unquoted, YAML reads it as a number; the API server refuses anything but a string here: write it in quotes)", "inference.preset.name", "SD108")]),
    (ws(inference="  preset:\n    name: phi-4\n  config: 0x1F\n"),
     [("inference.config has invalid value 0x1F (unquoted, YAML reads it as a number; the API server refuses anything but a string here: write it in quotes)", "inference.config", "SD108")]),
    (ws(inference="  preset:\n    name: [phi-4]\n"),
     [("inference.preset.name is a list; the API server refuses anything but a string here", "inference.preset.name", "SD107")]),
    (ws(inference="  preset:\n    name: phi-4\n  config: 2024-01-01\n"),
     [("inference.config 2024-01-01 is unquoted: kubectl reads the text, kustomize and kpt a timestamp they write back in another form; write it in quotes", "inference.config", "SD108")]),
    (mri("true"),
     [("spec.model.name has invalid value true (unquoted, YAML reads it as a boolean; the API server refuses anything but a string here: write it in quotes)", "spec.model.name", "SD108")]),
])
def test_fail(text: str, expected: list) -> None:
    assert [f[:3] for f in string_fields.findings(make_workload(text))] == expected
