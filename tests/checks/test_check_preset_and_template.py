"""preset-and-template (SD111, SD132): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, ws
from krm_fn.checks import preset_and_template


@pytest.mark.parametrize("text", [ws(), ws(inference="  template:\n    spec: {}\n")])
def test_pass(text: str) -> None:
    assert preset_and_template.findings(make_workload(text)) == []


@pytest.mark.parametrize("text, field", [
    (ws(inference="  preset:\n    name: phi-4\n  template:\n    spec: {}\n"), "inference"),
    (iset("phi-4", inference_extra="      template:\n        spec: {}\n"), "spec.template.inference"),
])
def test_fail(text: str, field: str) -> None:
    assert [f[:3] for f in preset_and_template.findings(make_workload(text))] == [
        ("Preset and Template cannot be set at the same time", field, "SD111")]


NEITHER = "missing field(s): {}.Preset or Template must be specified"


@pytest.mark.parametrize("text, field", [
    (ws(inference="  config: my-config\n"), "inference"),
    (ws(inference="  {}\n"), "inference"),
    (iset(None).replace("      preset: {}\n", "      config: c\n"), "spec.template.inference"),
    # no spec.template.inference at all: the projected Workspace's inference is a struct, validated anyway
    (iset(None).replace("    inference:\n      preset: {}\n", ""), "spec.template.inference"),
])
def test_neither(text: str, field: str) -> None:
    assert [f[:3] for f in preset_and_template.findings(make_workload(text))] == [
        (NEITHER.format(field), field, "SD132")]


@pytest.mark.parametrize("text", [
    ws(inference=""),  # no inference: validateCreate is not called (inference-or-tuning's SD131)
    iset(None, api="kaito.sh/v1alpha1").replace("      preset: {}\n", "      config: c\n"),  # no projection
])
def test_neither_not_checked(text: str) -> None:
    assert preset_and_template.findings(make_workload(text)) == []
