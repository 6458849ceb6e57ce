"""workspace-annotations: KAITO's own Workspace annotations hold one of the values KAITO knows.

KAITO rule mirrored (api/v1beta1/workspace_validation.go; on the Workspace and on the Workspace a v1beta1
InferenceSet projects, whose annotations are its `spec.template.metadata.annotations`):

- `Workspace.validateCreate` -> `validateNodeImageFamilyAnnotation` (also api/v1alpha1):

      if _, valid := consts.NormalizeSupportedNodeImageFamily(nodeImageFamily); !valid {
          return apis.ErrInvalidValue(
              fmt.Sprintf("unsupported node image family %q, supported values are azurelinux, ubuntu",
                  nodeImageFamily), ...

  where `NormalizeSupportedNodeImageFamily` (pkg/utils/consts/consts.go) compares
  `strings.ToLower(strings.TrimSpace(value))` with "ubuntu" and "azurelinux".

- `Workspace.validateAnnotations` (v1beta1 only; api/v1alpha1 has no such function):

      if v, ok := annotations[AnnotationPerformanceMode]; ok { switch v {
          case PerformanceModeBalanced, PerformanceModeInteractivity, PerformanceModeThroughput:
          default: errs = errs.Also(apis.ErrInvalidValue(
              fmt.Sprintf("%q is not a valid performance mode; choose one of: balanced, interactivity, throughput",
                  v), ...
      if v, ok := annotations[AnnotationUseLocalWeights]; ok { if v != "true" && v != "false" {
          errs = errs.Also(apis.ErrInvalidValue(fmt.Sprintf("%q must be \\"true\\" or \\"false\\"", v), ...

  (`kaito.sh/performance-mode`, `kaito.sh/use-local-weights`: exact values, case and blanks count.)

The field is the annotation's own path (`metadata.annotations[kaito.sh/performance-mode]`,
`spec.template.metadata.annotations[…]` on an InferenceSet), as for the opt-in annotation. A value that is
no string is refused by the API server before any webhook (annotations are a string map); a value with a
Flux `${VAR}` in it is filled in after the function ran and left alone (`checks/flux.py`).

KAITO brought the rules in v0.9.0 (node-image-family), v0.10.0 (performance-mode) and v0.12.0
(use-local-weights, and the check of the Workspace an InferenceSet projects): an older `kaitoVersion` is
not checked for them.

PASS:  kaito.sh/node-image-family: " Ubuntu ", kaito.sh/performance-mode: throughput,
       kaito.sh/use-local-weights: "false"
FAIL:  kaito.sh/node-image-family: mariner, kaito.sh/performance-mode: Throughput or fast,
       kaito.sh/use-local-weights: "yes"
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from .flux import substituted_later
from .gostrings import go_lower, go_trim_space
from .releases import older

ID = "workspace-annotations"
KINDS = ("Workspace", "InferenceSet")
SINCE = kaito_releases.FIRST_KNOWN
NODE_IMAGE_FAMILY = "kaito.sh/node-image-family"
PERFORMANCE_MODE = "kaito.sh/performance-mode"
USE_LOCAL_WEIGHTS = "kaito.sh/use-local-weights"

def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    v1beta1 = w.item.api_version == "kaito.sh/v1beta1"
    if w.spec is kinds.INFERENCESET and (
            not v1beta1 or older(settings, kaito_releases.INFERENCESET_PROJECTS_WORKSPACE)):
        return []  # a v1alpha1 InferenceSet's webhook projects no Workspace (nor a v1beta1 one's before v0.12.0)
    annotations = kinds.get(w.effective, w.spec.annotations)
    if not isinstance(annotations, dict):
        return []
    at = kinds.dotted(w.spec.annotations)
    # A Flux `${VAR}` is filled in after the function ran (checks/flux.py).
    annotations = {k: v for k, v in annotations.items() if not substituted_later(v)}
    out = []
    family = annotations.get(NODE_IMAGE_FAMILY)
    if isinstance(family, str) and not older(settings, kaito_releases.NODE_IMAGE_FAMILY) \
            and go_lower(go_trim_space(family)) not in ("ubuntu", "azurelinux"):
        out.append(finding("SD135", f"{at}[{NODE_IMAGE_FAMILY}]", family=family))
    if not v1beta1:
        return out  # validateAnnotations is v1beta1's
    mode = annotations.get(PERFORMANCE_MODE)
    if isinstance(mode, str) and not older(settings, kaito_releases.PERFORMANCE_MODE) \
            and mode not in ("balanced", "interactivity", "throughput"):
        out.append(finding("SD136", f"{at}[{PERFORMANCE_MODE}]", mode=mode))
    local = annotations.get(USE_LOCAL_WEIGHTS)
    if isinstance(local, str) and not older(settings, kaito_releases.USE_LOCAL_WEIGHTS) \
            and local not in ("true", "false"):
        out.append(finding("SD137", f"{at}[{USE_LOCAL_WEIGHTS}]", value=local))
    return out
