"""inference-or-tuning: a Workspace either serves (inference) or fine-tunes (tuning): one of them, not both.

KAITO rule mirrored (`Workspace.validateCreate`, api/v1beta1/workspace_validation.go and
api/v1alpha1/workspace_validation.go):

    if w.Inference == nil && w.Tuning == nil {
        errs = errs.Also(apis.ErrGeneric("Either Inference or Tuning must be specified, not neither", ""))
    }
    if w.Inference != nil && w.Tuning != nil {
        errs = errs.Also(apis.ErrGeneric("Either Inference or Tuning must be specified, but not both", ""))
    }

under `.ViaField("spec")`: KAITO reports the path `spec` (a Workspace has no `spec` field; that is KAITO's
literal path, kept so the result matches what `kubectl apply` prints).

A Workspace without either (or with `inference: null`) also gets the opt-in's own `requires a preset
inference`, as KAITO's webhooks report both. (The Workspace a v1beta1 InferenceSet projects always has an
inference: `spec.template.inference` is a struct, not a pointer, in KAITO's types.)

PASS:  a Workspace with inference only (or tuning only)
FAIL:  a Workspace with inference and tuning; a Workspace with neither
"""

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding

ID = "inference-or-tuning"
KINDS = ("Workspace",)
SINCE = kaito_releases.FIRST_KNOWN


def findings(w: Workload, settings: Settings | None = None) -> list[Finding]:
    inference, tuning = kinds.get(w.effective, ("inference",)), kinds.get(w.effective, ("tuning",))
    if inference is None and tuning is None:
        return [finding("SD131", "spec")]
    if inference is not None and tuning is not None:
        return [finding("SD110", "spec")]
    return []
