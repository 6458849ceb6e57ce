"""preset-and-template: a preset inference and a custom template cannot be combined.

KAITO rule mirrored (`InferenceSpec.validateCreate`, api/v1beta1/workspace_validation.go):

    if i.Preset != nil && i.Template != nil {
        errs = errs.Also(apis.ErrGeneric("Preset and Template cannot be set at the same time"))
    }

under `.ViaField("inference")`: path `inference` on a Workspace, `spec.template.inference` on an
InferenceSet (validated as the Workspace it projects).

PASS:  inference.preset alone, or inference.template alone
FAIL:  inference.preset and inference.template both set
"""
from __future__ import annotations

from .. import kinds
from ..index import Workload
from ..results import Finding

ID = "preset-and-template"
KINDS = ("Workspace", "InferenceSet")
FINDINGS = {"SD111": "an inference with both a preset and a template"}


def findings(w: Workload, settings: object = None) -> list[Finding]:
    if w.spec.inference is None:
        return []
    inference = kinds.get(w.effective, w.spec.inference)
    if isinstance(inference, dict) and inference.get("preset") is not None \
            and inference.get("template") is not None:
        return [Finding("Preset and Template cannot be set at the same time", kinds.dotted(w.spec.inference), id="SD111")]
    return []
