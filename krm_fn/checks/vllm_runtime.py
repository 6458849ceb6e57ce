"""vllm-runtime: speculative decoding needs the vLLM runtime.

The runtime is "transformers" only when the runtime annotation (kaito.sh/runtime) is exactly
"transformers"; any other value, or none, means vLLM.

PASS:  no kaito.sh/runtime annotation, or kaito.sh/runtime: "vllm", or an unknown value
FAIL:  kaito.sh/runtime: "transformers"
"""
from __future__ import annotations

from .. import constants as C
from .. import kinds
from ..index import Workload

ID = "vllm-runtime"
KINDS = ("Workspace", "InferenceSet", "MultiRoleInference")


def check(w: Workload) -> str | None:
    if kinds.runtime(w.spec, w.data) != C.RUNTIME_TRANSFORMERS:
        return None
    preset = kinds.preset_name(w.spec, w.data)
    return ("kaito.sh/enable-speculative-decoding requires the vLLM runtime; effective runtime resolves to "
            f'"transformers" (preset "{preset}")')
