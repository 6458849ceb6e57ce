"""preset-required: speculative decoding needs a preset inference (a model name KAITO can resolve).

KAITO rule mirrored (v0.13.0 webhook): without a preset name the opt-in is refused.
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

from ..domain import kaito_releases
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding
from . import string_fields

ID = "preset-required"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN


def check(w: Workload, settings: Settings | None = None) -> Finding | None:
    if kinds.preset_name(w.spec, w.effective) is not None or string_fields.not_a_string(w.effective, w.spec.preset):
        return None  # a name that is no string is string-fields' finding, not a missing preset
    field = w.spec.annotation_field
    if w.spec is kinds.MULTIROLEINFERENCE:
        return finding("SD104", field)
    # A v1beta1 InferenceSet is refused in the words of the Workspace it projects (at spec.template.…).
    projected = w.spec is kinds.INFERENCESET and w.item.api_version == "kaito.sh/v1beta1"
    name_field = kinds.dotted((kinds.WORKSPACE if projected else w.spec).preset)
    return finding("SD103", field, preset_field=name_field)
