"""name-label: a Workspace's, InferenceSet's or MultiRoleInference's name is a DNS-1123 label.

KAITO rule mirrored (first lines of `Workspace.Validate`, api/v1beta1/workspace_validation.go and
api/v1alpha1/workspace_validation.go; `InferenceSet.Validate`, api/v1beta1/inferenceset_validation.go and
api/v1alpha1/inferenceset_validation.go; `MultiRoleInference.Validate`,
api/v1alpha1/multiroleinference_validation.go; on create and on update):

    errmsgs := validation.IsDNS1123Label(w.Name)
    if len(errmsgs) > 0 {
        errs = errs.Also(apis.ErrInvalidValue(strings.Join(errmsgs, ", "), "name"))
    }

with `IsDNS1123Label` of k8s.io/apimachinery v0.35.0 (KAITO's go.mod pins it by a `replace`),
pkg/util/validation/validation.go:

    if len(value) > DNS1123LabelMaxLength { errs = append(errs, MaxLenError(DNS1123LabelMaxLength)) }
    if !dns1123LabelRegexp.MatchString(value) {
        if dns1123SubdomainRegexp.MatchString(value) { errs = append(errs, "must not contain dots") }
        else { errs = append(errs, RegexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc")) } }

(`MaxLenError(63)` is "must be no more than 63 characters"; the length is Go's, in UTF-8 bytes.) The API
server itself only asks a custom resource's name to be a DNS-1123 subdomain (253 characters, dots allowed),
so `my.workspace` or a 64-character name is stored by a cluster without KAITO's webhook and refused by one
with it. The message is the joined `errmsgs`, as `preset-supported` gives KAITO's invalid value without
knative's `invalid value: ` prefix; the field is `metadata.name` (KAITO writes `name`), which is where the
value is and where `render` finds its line.

A name with a Flux `${VAR}` in it is left alone (`checks/flux.py`): Flux fills it in after the function
ran. An object named by `metadata.generateName` gets its name from the API server before the validating
webhooks see it: the prefix (cut to 58 bytes) and five random lowercase letters or digits. Whether that name
is a label does not depend on the letters drawn, so the generated name is checked (field
`metadata.generateName`): `generateName: phi.4-` is refused every time. An object with neither a name nor a
generateName (or a name that is no string) is `SD003`'s finding, not this check's. A MultiRoleInference is
only checked when KAITO runs its controller (the `enableMultiRoleInferenceController` gate): without it
KAITO's chart installs no MultiRoleInference webhook, and the CRD alone admits any DNS-1123 subdomain.

PASS:  phi-4-workspace, 123-abc, a name of 63 characters; generateName: phi-4- (or of 70 characters)
FAIL:  My-Workspace, ws_1, -ws, ws- (the regex); phi.4 ("must not contain dots"); 64 characters;
       generateName: phi.4-
"""

import re
from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from .flux import substituted_later

ID = "name-label"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"  # dns1123LabelFmt, which SD128's message names
# Go's MatchString with ^…$ anchors the whole text (Python's `$` would also take a final line break).
_LABEL = re.compile(_LABEL_FMT)
_SUBDOMAIN = re.compile(_LABEL_FMT + r"(\." + _LABEL_FMT + ")*")
_MAX_LENGTH = 63
# apiserver's names.SimpleNameGenerator: the prefix cut to 63 - 5 bytes, then 5 of "bcdfghjklmnpqrstvwxz2456789".
_GENERATED_PREFIX_MAX = 58
_GENERATED_SUFFIX = "bcdfg"


def not_a_label(value: str, field: str = "metadata.name") -> Finding | None:
    """`validation.IsDNS1123Label(value)`: apimachinery's messages, in its order, joined as KAITO joins them
    (the variants of SD128); None for a label."""
    too_long = len(value.encode("utf-8", "surrogatepass")) > _MAX_LENGTH
    if _LABEL.fullmatch(value):
        return finding("SD128.too-long", field) if too_long else None
    if _SUBDOMAIN.fullmatch(value):
        return finding("SD128.too-long-dots", field) if too_long else finding("SD128.dots", field)
    if too_long:
        return finding("SD128.too-long-not-a-label", field, pattern=_LABEL_FMT)
    return finding("SD128.not-a-label", field, pattern=_LABEL_FMT)


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    if w.spec is kinds.MULTIROLEINFERENCE and settings is not None and not settings.mri_controller:
        return []  # no MultiRoleInference webhook without the controller
    name, field = w.name, "metadata.name"
    if not name:
        prefix = kinds.get(w.data, ("metadata", "generateName"))
        if not (isinstance(prefix, str) and prefix):
            return []  # no name at all: SD003
        cut = prefix.encode("utf-8", "surrogatepass")[:_GENERATED_PREFIX_MAX].decode("utf-8", "ignore")
        name, field = cut + _GENERATED_SUFFIX, "metadata.generateName"
    if substituted_later(name):
        return []  # a Flux postBuild variable: the name is made after the function ran
    refused = not_a_label(name, field)
    if refused is not None:
        return [refused]
    if w.spec is kinds.MULTIROLEINFERENCE:
        return _child_names(w, name)
    return []


def _child_names(w: Workload, name: str) -> list[Finding]:
    """A MultiRoleInference of 56-63 characters is admitted, but its controller names a role's InferenceSet
    `fmt.Sprintf("%s-%s", mri.Name, role.Type)` (pkg/controllers/multiroleinference/controller.go, v0.12.0,
    409) and the InferenceSet webhook's `validation.IsDNS1123Label(is.Name)` (api/v1beta1/
    inferenceset_validation.go, 39) refuses one over 63 characters: that role never runs."""
    roles = kinds.get(w.data, ("spec", "roles"))
    out = []
    for role in roles if isinstance(roles, list) else []:
        kind = role.get("type") if isinstance(role, dict) else None
        child = f"{name}-{kind}"
        if isinstance(kind, str) and kind and len(child.encode("utf-8", "surrogatepass")) > _MAX_LENGTH:
            out.append(finding("SD145", "metadata.name", child=child, length=len(child),
                               most=_MAX_LENGTH - len(kind) - 1))
            break
    return out
