"""preset-required: speculative decoding needs a preset inference (a model name KAITO can resolve).

KAITO rule mirrored (v0.13.0 webhook, SPEC.md section 3): without a preset name the opt-in is refused.
A v1beta1 InferenceSet is validated by KAITO through the Workspace it projects
(`inferenceset.ValidateWorkspaceForInferenceSet`: `NewWorkspaceForInferenceSet(is).ValidateCreate(ctx)`, its
errors `.ViaField("spec", "template")`), so its message is the Workspace's; a v1alpha1 InferenceSet has no
such projection and keeps its own wording.

PASS:  Workspace with inference.preset.name: "deepseek-r1-0528"
FAIL:  Workspace with inference.template (a custom pod template) or tuning instead of inference
FAIL:  InferenceSet without spec.template.inference.preset.name
FAIL:  MultiRoleInference without spec.model.name
(A name that is there but no string, `name: 123`, is string-fields' finding.)
"""
from __future__ import annotations

from .. import kinds
from ..index import Workload
from . import string_fields

ID = "preset-required"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")


def check(w: Workload, settings: object = None) -> str | None:
    if kinds.preset_name(w.spec, w.effective) is not None or string_fields.not_a_string(w.effective, w.spec.preset):
        return None  # a name that is no string is string-fields' finding, not a missing preset
    if w.spec is kinds.INFERENCESET and w.item.api_version == "kaito.sh/v1beta1":
        return kinds.WORKSPACE.no_preset_message  # the projected Workspace's words, at spec.template.…
    return w.spec.no_preset_message
