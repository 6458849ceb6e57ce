"""inference-or-tuning: a Workspace either serves (inference) or fine-tunes (tuning), never both.

KAITO rule mirrored (`Workspace.validateCreate`, api/v1beta1/workspace_validation.go):

    if w.Inference != nil && w.Tuning != nil {
        errs = errs.Also(apis.ErrGeneric("Either Inference or Tuning must be specified, but not both", ""))
    }

under `.ViaField("spec")`: KAITO reports the path `spec` (a Workspace has no `spec` field; that is KAITO's
literal path, kept so the result matches what `kubectl apply` prints).

PASS:  a Workspace with inference only
FAIL:  a Workspace with inference and tuning
"""
from __future__ import annotations

from .. import kinds
from ..index import Workload
from ..results import Finding

ID = "inference-or-tuning"
KINDS = ("Workspace",)
FINDINGS = {"SD110": "a Workspace with both inference and tuning"}


def findings(w: Workload, settings: object = None) -> list[Finding]:
    if kinds.get(w.effective, ("inference",)) is not None and kinds.get(w.effective, ("tuning",)) is not None:
        return [Finding("Either Inference or Tuning must be specified, but not both", "spec", id="SD110")]
    return []
