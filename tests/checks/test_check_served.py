"""served (SD146), and what KAITO v0.10.0 admits otherwise (issue #30): replicas 0 (SD147) and a preset name
in another case (SD112), each held against the release that changed it."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, mri, settings, ws
from krm_fn.checks import preset_supported, replicas, served

V10, V11 = settings(kaitoVersion="v0.10.0"), settings(kaitoVersion="v0.11.0")


@pytest.mark.parametrize("text, setting", [
    (iset(), V11), (mri(), V11), (iset(), None), (mri(), None),
    (iset(api="kaito.sh/v1alpha1"), V10),
])
def test_pass(text: str, setting) -> None:
    assert served.findings(make_workload(text), setting) == []


@pytest.mark.parametrize("text, kind, api", [
    (iset(), "InferenceSet", "kaito.sh/v1beta1"), (mri(), "MultiRoleInference", "kaito.sh/v1alpha1"),
])
def test_fail(text: str, kind: str, api: str) -> None:
    assert [f[:3] for f in served.findings(make_workload(text), V10)] == [(
        f"KAITO v0.10.0 serves no {kind} {api} (v1beta1 InferenceSets and MultiRoleInferences come in v0.11.0): "
        "the API server refuses it; use kaito.sh/v1alpha1 InferenceSets, or set kaitoVersion to your cluster's", "apiVersion", "SD146")]


def _iset_replicas(value: str) -> str:
    return iset(api="kaito.sh/v1alpha1").replace("spec:\n", f"spec:\n  replicas: {value}\n", 1)


def test_v0_10_refuses_replicas_0() -> None:
    # api/v1alpha1/inferenceset_validation.go:54-56 at v0.10.0: `if is.Spec.Replicas < 1`
    assert [f[:3] for f in replicas.findings(make_workload(_iset_replicas("0")), V10)] == [
        ("invalid value: 0: must be at least 1", "spec.replicas", "SD147")]
    assert replicas.findings(make_workload(_iset_replicas("0")), V11) == []
    assert replicas.findings(make_workload(_iset_replicas("1")), V10) == []


def test_v0_10_compares_preset_names_as_written() -> None:
    # pkg/utils/plugin/plugin.go:79-91 at v0.10.0: `KaitoModelRegister.Has(preset)`, no lower-casing
    upper = make_workload(ws(inference="  preset:\n    name: Phi-4\n"))
    assert [f.id for f in preset_supported.findings(upper, V10)] == ["SD112"]
    assert preset_supported.findings(upper, V11) == []
    assert preset_supported.findings(make_workload(ws()), V10) == []
    assert preset_supported.findings(make_workload(ws(inference="  preset:\n    name: microsoft/Phi-4\n")), V10) == []


def test_v0_10_registers_the_falcon_presets() -> None:
    # presets/workspace/models/falcon/model.go at v0.10.0; gone in v0.11.0
    falcon = make_workload(ws(inference="  preset:\n    name: falcon-7b-instruct\n"))
    assert preset_supported.findings(falcon, V10) == []
    assert [f.id for f in preset_supported.findings(falcon, V11)] == ["SD112"]
