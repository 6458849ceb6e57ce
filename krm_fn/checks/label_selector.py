"""label-selector: a MultiRoleInference has a labelSelector with at least one entry.

KAITO rule mirrored (`MultiRoleInference.validateCreate`, api/v1alpha1/multiroleinference_validation.go,
errors under `.ViaField("spec")`):

    // Validate labelSelector is not nil and not empty.
    if m.Spec.LabelSelector == nil {
        errs = errs.Also(apis.ErrMissingField("labelSelector"))
    } else if len(m.Spec.LabelSelector.MatchLabels) == 0 && len(m.Spec.LabelSelector.MatchExpressions) == 0 {
        errs = errs.Also(apis.ErrInvalidValue("labelSelector must have at least one matchLabels or matchExpressions entry", "labelSelector"))
    }

The webhook checks it on create only, but the CRD (config/crd/bases/kaito.sh_multiroleinferences.yaml)
makes the same demand on every write, before any webhook: `required: [labelSelector, model, roles]` and a
CEL rule on `labelSelector` with the message above. So, like the other create-time rules, it is checked
always. The selector is what the MultiRoleInference propagates to its InferenceSets and Workspaces and what
its InferencePool selects pods by.

PASS:  spec.labelSelector: {matchLabels: {apps: qwen35-4b}}   (or one matchExpressions entry)
FAIL:  no spec.labelSelector, or `labelSelector: null`
FAIL:  labelSelector: {}, or {matchLabels: {}, matchExpressions: []}
(A selector that is no mapping at all is refused by the API server's schema; not this check's finding.)
"""
from __future__ import annotations

from .. import kinds
from ..index import Workload
from ..results import Finding

ID = "label-selector"
KINDS = ("MultiRoleInference",)
FINDINGS = {
    "SD129": "a MultiRoleInference without spec.labelSelector",
    "SD130": "a MultiRoleInference whose labelSelector has no matchLabels or matchExpressions entry",
}


def findings(w: Workload, settings: object = None) -> list[Finding]:
    selector = kinds.get(w.data, ("spec", "labelSelector"))
    if selector is None:
        return [Finding("missing field(s): spec.labelSelector", "spec.labelSelector", id="SD129")]
    if isinstance(selector, dict) and not _entries(selector.get("matchLabels")) \
            and not _entries(selector.get("matchExpressions")):
        return [Finding("labelSelector must have at least one matchLabels or matchExpressions entry", "spec.labelSelector", id="SD130")]
    return []


def _entries(value: object) -> int:
    """Go's `len` of a decoded map or slice: 0 for null or absent (any other value is the schema's error)."""
    return len(value) if isinstance(value, (dict, list)) else 0 if value is None else 1
