"""preset-required (SD103, SD104): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, mri, ws
from krm_fn.checks import preset_required

WS_FIELD = "metadata.annotations[kaito.sh/enable-speculative-decoding]"
IS_FIELD = "spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]"


@pytest.mark.parametrize("text", [
    ws(), iset("phi-4"), mri("phi-4"),
    ws(inference="  preset:\n    name: 123\n"),  # no string: string-fields' finding, not a missing preset
])
def test_pass(text: str) -> None:
    assert preset_required.check(make_workload(text)) is None


@pytest.mark.parametrize("text, id, message, field", [
    (ws(inference="  template:\n    spec: {}\n"), "SD103", "kaito.sh/enable-speculative-decoding requires a preset inference; remove the annotation or set inference.preset.name", WS_FIELD),
    (ws(inference=None, extra="tuning:\n  preset:\n    name: phi-4\n"), "SD103", "kaito.sh/enable-speculative-decoding requires a preset inference; remove the annotation or set inference.preset.name", WS_FIELD),
    # A v1beta1 InferenceSet is refused in the words of the Workspace it projects; a v1alpha1 one in its own.
    (iset(None), "SD103", "kaito.sh/enable-speculative-decoding requires a preset inference; remove the annotation or set inference.preset.name", IS_FIELD),
    (iset(None, api="kaito.sh/v1alpha1"), "SD103", "kaito.sh/enable-speculative-decoding requires a preset inference; remove the annotation or set spec.template.inference.preset.name", IS_FIELD),
    (mri(None), "SD104", "kaito.sh/enable-speculative-decoding requires spec.model.name", WS_FIELD),
])
def test_fail(text: str, id: str, message: str, field: str) -> None:
    assert preset_required.check(make_workload(text))[:3] == (message, field, id)
