"""preset-required: speculative decoding needs a preset inference (a model name KAITO can resolve).

PASS:  Workspace with inference.preset.name: "deepseek-r1-0528"
FAIL:  Workspace with inference.template (a custom pod template) or tuning instead of inference
FAIL:  InferenceSet without spec.template.inference.preset.name
FAIL:  MultiRoleInference without spec.model.name
"""
from __future__ import annotations

from .. import kinds
from ..index import Workload

ID = "preset-required"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")


def check(w: Workload) -> str | None:
    if kinds.preset_name(w.spec, w.data) is not None:
        return None
    return w.spec.no_preset_message
