"""roles: a MultiRoleInference has a model and exactly one prefill and one decode role.

KAITO rule mirrored (`MultiRoleInference.validateCreate` / `validateRoles`,
api/v1alpha1/multiroleinference_validation.go, errors under `.ViaField("spec")`):

    if m.Spec.Model.Name == "" { errs = errs.Also(apis.ErrMissingField("model.name")) }
    if len(m.Spec.Roles) != 2 { errs = errs.Also(apis.ErrInvalidValue(
        fmt.Sprintf("exactly 2 roles required (one prefill, one decode), got %d", len(m.Spec.Roles)), "roles")) }
    ... "duplicate prefill role" / "duplicate decode role" at roles[i].type,
    fmt.Sprintf("unsupported role type %q, must be prefill or decode", role.Type) at roles[i].type,
    apis.ErrMissingField("roles", "missing prefill role") / ("roles", "missing decode role")

The missing model is reported beside the opt-in's own `requires spec.model.name`, as KAITO's webhooks
report both.

PASS:  roles: [{type: prefill}, {type: decode}] and spec.model.name set
FAIL:  one role, three roles, two prefill roles, a role of another type, no spec.model.name
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding

ID = "roles"
KINDS = ("MultiRoleInference",)
SINCE = kaito_releases.FIRST_KNOWN


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    out: list[Finding] = []
    model = kinds.get(w.data, ("spec", "model", "name"))
    if model is None or model == "":
        out.append(finding("SD114", "spec.model.name"))
    roles = kinds.get(w.data, ("spec", "roles"))
    roles = roles if isinstance(roles, list) else []
    if len(roles) != 2:
        out.append(finding("SD115", "spec.roles", count=len(roles)))
        return out
    seen: set[str] = set()
    for i, role in enumerate(roles):
        kind = role.get("type") if isinstance(role, dict) else None
        field = f"spec.roles[{i}].type"
        if kind in ("prefill", "decode"):
            if kind in seen:
                out.append(finding("SD116", field, role=kind))
            seen.add(kind)
        else:
            shown = kind if isinstance(kind, str) else "" if kind is None else str(kind)
            out.append(finding("SD117", field, role=shown))
    for kind in ("prefill", "decode"):
        if kind not in seen:
            out.append(finding("SD118", "spec.roles", role=kind))
    return out
