"""label-selector: a MultiRoleInference has a labelSelector with an entry; a Workspace's is one KAITO reads.

KAITO rule mirrored (`MultiRoleInference.validateCreate`, api/v1alpha1/multiroleinference_validation.go,
errors under `.ViaField("spec")`):

    // Validate labelSelector is not nil and not empty.
    if m.Spec.LabelSelector == nil {
        errs = errs.Also(apis.ErrMissingField("labelSelector"))
    } else if len(m.Spec.LabelSelector.MatchLabels) == 0 && len(m.Spec.LabelSelector.MatchExpressions) == 0 {
        errs = errs.Also(apis.ErrInvalidValue(
            "labelSelector must have at least one matchLabels or matchExpressions entry", "labelSelector"))
    }

The webhook checks it on create only, but the CRD (config/crd/bases/kaito.sh_multiroleinferences.yaml)
makes the same demand on every write, before any webhook: `required: [labelSelector, model, roles]` and a
CEL rule on `labelSelector` with the message above. So, like the other create-time rules, it is checked
always. The selector is what the MultiRoleInference propagates to its InferenceSets and Workspaces and what
its InferencePool selects pods by.

A Workspace's `resource.labelSelector` (and the `spec.labelSelector` a v1beta1 InferenceSet gives the
Workspaces it projects) is read the old way, as a plain map (`ResourceSpec.validateCreateWithInference`,
api/v1beta1/workspace_validation.go and api/v1alpha1/workspace_validation.go, under `.ViaField("resource")`,
after the preset checks, which return early for a preset KAITO does not know):

    if _, err := metav1.LabelSelectorAsMap(r.LabelSelector); err != nil {
        errs = errs.Also(apis.ErrInvalidValue(err.Error(), "labelSelector")) ... }

`LabelSelectorAsMap` (k8s.io/apimachinery v0.35.0, pkg/apis/meta/v1/helpers.go) admits `In` with exactly
one value and refuses every other expression, the first it meets:
`operator %q without a single value cannot be converted into the old label selector format`,
`operator %q cannot be converted into the old label selector format` (NotIn, Exists, DoesNotExist),
`%q is not a valid selector operator`. Then (v1beta1 only):

    if r.LabelSelector != nil && len(r.LabelSelector.MatchLabels) > 0 &&
        len(SanitizedMatchLabels(r.LabelSelector)) == 0 {
        errs = errs.Also(apis.ErrInvalidValue(
            "matchLabels must contain at least one non-reserved label", "labelSelector.matchLabels"))

with the reserved keys of api/v1beta1/labels.go (`reservedSelectorLabelKeys`): kaito.sh/workspace,
kaito.sh/ragengine, kaito.sh/workspacenamespace, kaito.sh/ragenginenamespace and karpenter.kaito.sh/
workspace-name, workspace-namespace, inferenceset, inferenceset-namespace. KAITO brought that rule in
v0.11.0 and the check of the Workspace an InferenceSet projects in v0.12.0: not checked for an older
`kaitoVersion`.

PASS:  spec.labelSelector: {matchLabels: {apps: qwen35-4b}}   (or one matchExpressions entry)
FAIL:  no spec.labelSelector, or `labelSelector: null`
FAIL:  labelSelector: {}, or {matchLabels: {}, matchExpressions: []}
PASS:  resource.labelSelector: {matchExpressions: [{key: apps, operator: In, values: [phi-4]}]}
FAIL:  resource.labelSelector: {matchExpressions: [{key: apps, operator: Exists}]}
FAIL:  resource.labelSelector: {matchLabels: {kaito.sh/workspace: other}}   (only reserved keys, v1beta1)
(A selector that is no mapping at all is refused by the API server's schema; not this check's finding.)
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from .preset_supported import is_valid_preset
from .releases import older

ID = "label-selector"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN
RESERVED = frozenset(("kaito.sh/workspace", "kaito.sh/ragengine", "kaito.sh/workspacenamespace",
                      "kaito.sh/ragenginenamespace", "karpenter.kaito.sh/workspace-name",
                      "karpenter.kaito.sh/workspace-namespace", "karpenter.kaito.sh/inferenceset",
                      "karpenter.kaito.sh/inferenceset-namespace"))


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    if w.spec is not kinds.MULTIROLEINFERENCE:
        return _workspace_selector(w, settings)
    selector = kinds.get(w.data, ("spec", "labelSelector"))
    if selector is None:
        return [finding("SD129", "spec.labelSelector")]
    if isinstance(selector, dict) and not _entries(selector.get("matchLabels")) \
            and not _entries(selector.get("matchExpressions")):
        return [finding("SD130", "spec.labelSelector")]
    return []


def _workspace_selector(w: Workload, settings: Settings | None) -> list[Finding]:
    v1beta1 = w.item.api_version == "kaito.sh/v1beta1"
    if w.spec is kinds.INFERENCESET and (
            not v1beta1 or older(settings, kaito_releases.INFERENCESET_PROJECTS_WORKSPACE)):
        return []  # a v1alpha1 InferenceSet's webhook projects no Workspace (nor a v1beta1 one's before v0.12.0)
    inference = kinds.get(w.effective, w.spec.inference) if w.spec.inference is not None else None
    if not isinstance(inference, dict) and w.spec is kinds.WORKSPACE:
        return []  # validateCreateWithInference runs only with an inference
    preset = inference.get("preset") if isinstance(inference, dict) else None
    name = preset.get("name") if isinstance(preset, dict) else None
    if preset is not None and not (isinstance(name, str) and is_valid_preset(name)):
        return []  # KAITO returns at the preset checks (preset-supported's findings)
    path = ("resource", "labelSelector") if w.spec is kinds.WORKSPACE else ("spec", "labelSelector")
    selector = kinds.get(w.data, path)
    if not isinstance(selector, dict):
        return []
    field = kinds.dotted(path)
    expressions = selector.get("matchExpressions")
    for i, expr in enumerate(expressions if isinstance(expressions, list) else []):
        operator = expr.get("operator") if isinstance(expr, dict) else None
        if not isinstance(operator, str):
            continue  # the CRD schema's error (operator is a required string)
        values = expr.get("values")
        at = f"{field}.matchExpressions[{i}]"
        if operator == "In":
            if not (isinstance(values, list) and len(values) == 1):
                return [finding("SD140.in-without-one-value", at, operator=operator)]
        elif operator in ("NotIn", "Exists", "DoesNotExist"):
            return [finding("SD140.not-convertible", at, operator=operator)]
        else:
            return [finding("SD140.unknown-operator", at, operator=operator)]
    labels = selector.get("matchLabels")
    if v1beta1 and not older(settings, kaito_releases.RESERVED_LABELS) and isinstance(labels, dict) and labels \
            and all(key in RESERVED for key in labels):
        return [finding("SD141", f"{field}.matchLabels")]
    return []


def _entries(value: object) -> int:
    """Go's `len` of a decoded map or slice: 0 for null or absent (any other value is the schema's error)."""
    return len(value) if isinstance(value, (dict, list)) else 0 if value is None else 1
