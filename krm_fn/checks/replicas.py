"""replicas: an InferenceSet's replicas are not negative; a MultiRoleInference role's, when set, at least 1.

KAITO rule mirrored (two rules):

- `InferenceSet.validateCreate`, api/v1beta1/inferenceset_validation.go and
  api/v1alpha1/inferenceset_validation.go, under `.ViaField("spec")`:

      if is.Spec.Replicas != nil && *is.Spec.Replicas < 0 {
          errs = errs.Also(apis.ErrInvalidValue(*is.Spec.Replicas, "replicas", "must be non-negative"))
      }

- `MultiRoleInference.validateRoles`, api/v1alpha1/multiroleinference_validation.go (on create and update,
  after the check for exactly two roles, which returns early), under `.ViaField("spec")`:

      // Validate replicas >= 1 when specified (nil means autoscaling).
      if role.Replicas != nil && *role.Replicas < 1 {
          errs = errs.Also(apis.ErrInvalidValue(*role.Replicas, field+".replicas", "must be at least 1"))
      }

knative prints `invalid value: -1: spec.replicas` and the details on the next line; here the path is the
result's field and the message is one line: `invalid value: -1: must be non-negative`. The CRDs say the same
(`minimum: 0`, `minimum: 1`). A value that is no integer is the CRD schema's error, not this check's.

PASS:  spec.replicas: 0 or 2 (or none); roles[*].replicas: 1 (or none: autoscaling)
FAIL:  spec.replicas: -1; roles[0].replicas: 0
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from .releases import older

ID = "replicas"
KINDS = ("InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN


def _int32(value: object) -> int | None:
    """The value as Go decodes an `*int32` field (None: not set, or not one the schema admits); `2.0` or
    `-1.0` is the integer kubectl sends (kinds.integer)."""
    number = kinds.integer(value)
    if number is not None and -2**31 <= number < 2**31:
        return number
    return None


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    if w.spec is kinds.INFERENCESET:
        replicas = _int32(kinds.get(w.data, ("spec", "replicas")))
        if replicas is not None and replicas < 1 and older(settings, kaito_releases.ZERO_REPLICAS):
            return [finding("SD147", "spec.replicas", replicas=replicas)]
        if replicas is not None and replicas < 0:
            return [finding("SD133", "spec.replicas", replicas=replicas)]
        return []
    roles = kinds.get(w.data, ("spec", "roles"))
    if not isinstance(roles, list) or len(roles) != 2:
        return []  # KAITO stops at "exactly 2 roles required" (roles' SD115)
    out = []
    for i, role in enumerate(roles):
        replicas = _int32(role.get("replicas")) if isinstance(role, dict) else None
        if replicas is not None and replicas < 1:
            out.append(finding("SD134", f"spec.roles[{i}].replicas", replicas=replicas))
    return out
