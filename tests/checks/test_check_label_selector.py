"""label-selector (SD129, SD130, SD140, SD141): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, mri, settings, ws
from krm_fn.checks import label_selector


def _with(selector: str | None) -> str:
    text = mri()
    return text if selector is None else text.replace("spec:\n", f"spec:\n  labelSelector:{selector}\n", 1)


@pytest.mark.parametrize("selector", [
    "\n    matchLabels:\n      apps: m",
    "\n    matchExpressions:\n    - {key: apps, operator: In, values: [m]}",
    "\n    matchLabels: {}\n    matchExpressions:\n    - {key: apps, operator: Exists}",
    " x",  # not a mapping: the CRD schema's error, not this check's
])
def test_pass(selector: str) -> None:
    assert label_selector.findings(make_workload(_with(selector))) == []


@pytest.mark.parametrize("selector, expected", [
    (None, ("missing field(s): spec.labelSelector", "spec.labelSelector", "SD129")),
    (" null", ("missing field(s): spec.labelSelector", "spec.labelSelector", "SD129")),
    (" {}", ("labelSelector must have at least one matchLabels or matchExpressions entry", "spec.labelSelector", "SD130")),
    ("\n    matchLabels: {}\n    matchExpressions: []",
     ("labelSelector must have at least one matchLabels or matchExpressions entry", "spec.labelSelector", "SD130")),
    ("\n    matchLabels:", ("labelSelector must have at least one matchLabels or matchExpressions entry", "spec.labelSelector", "SD130")),
])
def test_fail(selector: str | None, expected: tuple) -> None:
    assert [f[:3] for f in label_selector.findings(make_workload(_with(selector)))] == [expected]


def test_without_spec() -> None:
    text = "apiVersion: kaito.sh/v1alpha1\nkind: MultiRoleInference\nmetadata:\n  name: m\n"
    assert [f.id for f in label_selector.findings(make_workload(text))] == ["SD129"]


def _ws_selector(selector: str, preset: str = "phi-4", api: str = "kaito.sh/v1beta1") -> str:
    return ws(inference=f"  preset:\n    name: {preset}\n", api=api,
              extra=f"resource:\n  labelSelector:\n{selector}")


@pytest.mark.parametrize("text", [
    ws(), _ws_selector("    matchLabels: {apps: phi-4}\n"),
    _ws_selector("    matchExpressions:\n    - {key: apps, operator: In, values: [phi-4]}\n"),
    _ws_selector("    matchLabels: {kaito.sh/workspace: w, apps: phi-4}\n"),
    _ws_selector("    matchLabels: {kaito.sh/workspace: w}\n", api="kaito.sh/v1alpha1"),  # v1beta1's rule
    _ws_selector("    matchExpressions:\n    - {key: apps, operator: Exists}\n", preset="falcon-7b"),  # KAITO returns first
    ws(inference="", extra="tuning: {}\nresource:\n  labelSelector:\n    matchExpressions:\n    - {key: a, operator: Exists}\n"),
    iset(api="kaito.sh/v1alpha1").replace("spec:\n", "spec:\n  labelSelector:\n    matchExpressions:\n    - {key: a, operator: Exists}\n", 1),
])
def test_workspace_selector_pass(text: str) -> None:
    assert label_selector.findings(make_workload(text)) == []


AT = "resource.labelSelector.matchExpressions[{}]"


@pytest.mark.parametrize("text, expected", [
    (_ws_selector("    matchExpressions:\n    - {key: apps, operator: In, values: [a]}\n    - {key: gpu, operator: NotIn, values: [t4]}\n    - {key: x, operator: Foo}\n"),
     ('operator "NotIn" cannot be converted into the old label selector format', AT.format(1), "SD140")),
    (_ws_selector("    matchExpressions:\n    - {key: apps, operator: Exists}\n", api="kaito.sh/v1alpha1"),
     ('operator "Exists" cannot be converted into the old label selector format', AT.format(0), "SD140")),
    (_ws_selector("    matchExpressions:\n    - {key: apps, operator: In, values: [a, b]}\n"),
     ('operator "In" without a single value cannot be converted into the old label selector format', AT.format(0), "SD140")),
    (_ws_selector("    matchExpressions:\n    - {key: apps, operator: in, values: [a]}\n"),
     ('"in" is not a valid selector operator', AT.format(0), "SD140")),
    (_ws_selector("    matchLabels: {kaito.sh/workspace: w, karpenter.kaito.sh/inferenceset: s}\n"),
     ("matchLabels must contain at least one non-reserved label", "resource.labelSelector.matchLabels", "SD141")),
    (iset().replace("spec:\n", "spec:\n  labelSelector:\n    matchExpressions:\n    - {key: a, operator: DoesNotExist}\n", 1),
     ('operator "DoesNotExist" cannot be converted into the old label selector format', "spec.labelSelector.matchExpressions[0]", "SD140")),
])
def test_workspace_selector_fail(text: str, expected: tuple) -> None:
    assert [f[:3] for f in label_selector.findings(make_workload(text))] == [expected]


@pytest.mark.parametrize("selector, finding", [(None, "SD129"), (" {}", "SD130")])
def test_the_crd_refuses_it_without_the_controller_too(selector: str | None, finding: str) -> None:
    """The MultiRoleInference CRD requires labelSelector and repeats the entry rule in CEL: the API server
    refuses it even when KAITO installs no MultiRoleInference webhook (enableMultiRoleInferenceController=false)."""
    off = settings(featureGates="enableMultiRoleInferenceController=false")
    assert [f.id for f in label_selector.findings(make_workload(_with(selector)), off)] == [finding]
