"""vllm-runtime: speculative decoding needs the vLLM runtime.

KAITO rule mirrored (`GetWorkspaceRuntimeName`, api/v1beta1/labels.go): with the `vLLM` feature gate off
the runtime is always transformers; otherwise it is transformers only when the runtime annotation
(kaito.sh/runtime) is exactly "transformers", and vLLM for any other value or none.

PASS:  no kaito.sh/runtime annotation, or kaito.sh/runtime: "vllm", or an unknown value
FAIL:  kaito.sh/runtime: "transformers"
FAIL:  any workload when the featureGates setting says vLLM=false
"""

from ..domain import kaito_releases
from ..domain import constants as C
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..text.results import Finding, finding

ID = "vllm-runtime"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")
SINCE = kaito_releases.FIRST_KNOWN


def check(w: Workload, settings: Settings | None = None) -> Finding | None:
    gate = getattr(settings, "vllm_gate", True)
    if kinds.runtime(w.spec, w.effective, gate) != C.RUNTIME_TRANSFORMERS:
        return None
    preset = kinds.preset_name(w.spec, w.effective) or ""
    if not gate:
        return finding("SD106", w.spec.annotation_field, preset=preset)
    return finding("SD105", w.spec.annotation_field, preset=preset)
