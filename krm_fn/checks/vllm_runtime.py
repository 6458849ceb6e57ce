"""vllm-runtime: speculative decoding needs the vLLM runtime.

KAITO rule mirrored (`GetWorkspaceRuntimeName`, api/v1beta1/labels.go): with the `vLLM` feature gate off
the runtime is always transformers; otherwise it is transformers only when the runtime annotation
(kaito.sh/runtime) is exactly "transformers", and vLLM for any other value or none.

PASS:  no kaito.sh/runtime annotation, or kaito.sh/runtime: "vllm", or an unknown value
FAIL:  kaito.sh/runtime: "transformers"
FAIL:  any workload when the featureGates setting says vLLM=false
"""

from ..domain import constants as C
from ..domain import kinds
from ..model.config import Settings
from ..model.index import Workload
from ..model.report import goquote
from ..text.results import Finding

ID = "vllm-runtime"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")


def check(w: Workload, settings: Settings | None = None) -> Finding | None:
    gate = getattr(settings, "vllm_gate", True)
    if kinds.runtime(w.spec, w.effective, gate) != C.RUNTIME_TRANSFORMERS:
        return None
    preset = goquote(kinds.preset_name(w.spec, w.effective) or "")
    field = w.spec.annotation_field
    if not gate:
        return Finding(f'kaito.sh/enable-speculative-decoding requires the vLLM runtime; effective runtime resolves to "transformers" (preset {preset}): KAITO runs with the feature gate vLLM=false (featureGates setting)', field, id="SD106")
    return Finding(f'kaito.sh/enable-speculative-decoding requires the vLLM runtime; effective runtime resolves to "transformers" (preset {preset})', field, id="SD105")
