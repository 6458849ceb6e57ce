"""label-selector (SD129, SD130): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import make_workload, mri
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
    assert [tuple(f) for f in label_selector.findings(make_workload(_with(selector)))] == [expected]


def test_without_spec() -> None:
    text = "apiVersion: kaito.sh/v1alpha1\nkind: MultiRoleInference\nmetadata:\n  name: m\n"
    assert [f.id for f in label_selector.findings(make_workload(text))] == ["SD129"]
