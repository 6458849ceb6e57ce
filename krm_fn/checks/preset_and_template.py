"""preset-and-template: an inference has a preset or a custom template: one of them, not both.

KAITO rule mirrored (`InferenceSpec.validateCreate`, api/v1beta1/workspace_validation.go and
api/v1alpha1/workspace_validation.go):

    if i.Preset == nil && i.Template == nil {
        errs = errs.Also(apis.ErrMissingField("Preset or Template must be specified"))
    }
    if i.Preset != nil && i.Template != nil {
        errs = errs.Also(apis.ErrGeneric("Preset and Template cannot be set at the same time"))
    }

under `.ViaField("inference")`: path `inference` on a Workspace, `spec.template.inference` on an
InferenceSet (validated as the Workspace it projects).

The missing one is knative's `missing field(s): <path>` with KAITO's sentence as the path, under
`inference` (`spec.template.inference` on an InferenceSet). It runs where KAITO calls `validateCreate`: on a
Workspace's `inference` when there is one, and always on the Workspace a v1beta1 InferenceSet projects (its
`inference` is a struct); a v1alpha1 InferenceSet's webhook projects nothing. Beside it the opt-in's own
`requires a preset inference`, as KAITO reports both. The missing one is checked on an InferenceSet only
from KAITO v0.12.0 on (`kaitoVersion`): before it, its webhook did not check the Workspace it projects.

PASS:  inference.preset alone, or inference.template alone
FAIL:  inference.preset and inference.template both set
FAIL:  inference: {config: my-config} (neither); a v1beta1 InferenceSet without spec.template.inference
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from .releases import older

ID = "preset-and-template"
KINDS = ("Workspace", "InferenceSet")
SINCE = kaito_releases.FIRST_KNOWN


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    if w.spec.inference is None:
        return []
    inference = kinds.get(w.effective, w.spec.inference)
    field = kinds.dotted(w.spec.inference)
    # KAITO validates an InferenceSet's inference through the Workspace a v1beta1 one projects.
    # (Since v0.12.0: before it, an InferenceSet's webhook did not check the Workspace it projects.)
    projected = w.spec is kinds.INFERENCESET and w.item.api_version == "kaito.sh/v1beta1" \
        and not older(settings, kaito_releases.INFERENCESET_PROJECTS_WORKSPACE)
    if (projected or w.spec is kinds.WORKSPACE) and (inference is None and projected or isinstance(inference, dict)
                                                     and inference.get("preset") is None
                                                     and inference.get("template") is None):
        return [finding("SD132", field, path=field)]
    if isinstance(inference, dict) and inference.get("preset") is not None \
            and inference.get("template") is not None:
        return [finding("SD111", field)]
    return []
