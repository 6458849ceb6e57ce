"""preset-supported (SD112, SD113): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, mri, ws
from krm_fn.checks import preset_supported


def _named(name: str) -> str:
    return ws(inference=f"  preset:\n    name: {name}\n")


@pytest.mark.parametrize("name", ["phi-4", "PHI-4", "deepseek-r1-0528", "microsoft/Phi-4-mini-instruct",
                                  "org/name/with/slashes"])
def test_pass(name: str) -> None:
    assert preset_supported.findings(make_workload(_named(name))) == []


@pytest.mark.parametrize("text, expected", [
    (_named("falcon-7b"), [("Unsupported inference preset name falcon-7b", "inference.presetName", "SD112")]),
    (_named("/x"), [("Unsupported inference preset name /x", "inference.presetName", "SD112")]),
    (_named('" phi-4"'), [('Unsupported inference preset name  phi-4 (the name as written: " phi-4") (closest presets: phi-4)', "inference.presetName", "SD112")]),
    (_named('"phi\\nx"'), [('Unsupported inference preset name "phi\\nx" (quoted: the name holds a line break) (closest presets: phi-4)', "inference.presetName", "SD112")]),
    (_named("PHI-2"), [("Model phi-2 is deprecated and no longer supported", "resource.presetName", "SD113"),
                       ("Unsupported inference preset name PHI-2 (closest presets: phi-4)", "inference.presetName", "SD112")]),
    (iset("qwen3.5-4b"), [("Unsupported inference preset name qwen3.5-4b (closest presets: Qwen/Qwen3.5-4B, Qwen/Qwen3.5-9B, Qwen/Qwen3.5-2B)", "spec.template.inference.presetName", "SD112")]),
    (mri("falcon-7b"), [("Unsupported inference preset name falcon-7b", "spec.model.name", "SD112")]),
])
def test_fail(text: str, expected: list) -> None:
    assert [f[:3] for f in preset_supported.findings(make_workload(text))] == expected
