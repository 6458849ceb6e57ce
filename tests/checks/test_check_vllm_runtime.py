"""vllm-runtime (SD105, SD106): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from checktables import make_workload, settings, ws
from krm_fn.checks import vllm_runtime

FIELD = "metadata.annotations[kaito.sh/enable-speculative-decoding]"


def _runtime(value: str) -> str:
    return ws(f'"true"\n    kaito.sh/runtime: {value}')


@pytest.mark.parametrize("text", [ws(), _runtime('"vllm"'), _runtime('"something-new"'), _runtime('"Transformers"')])
def test_pass(text: str) -> None:
    assert vllm_runtime.check(make_workload(text), settings()) is None


def test_fail_transformers_annotation() -> None:
    assert vllm_runtime.check(make_workload(_runtime('"transformers"')), settings())[:3] == (
        'kaito.sh/enable-speculative-decoding requires the vLLM runtime; effective runtime resolves to "transformers" (preset "phi-4")', FIELD, "SD105")


def test_fail_feature_gate_off() -> None:
    assert vllm_runtime.check(make_workload(ws()), settings(featureGates="vLLM=false"))[:3] == (
        'kaito.sh/enable-speculative-decoding requires the vLLM runtime; effective runtime resolves to "transformers" (preset "phi-4"): KAITO runs with the feature gate vLLM=false (featureGates setting)', FIELD, "SD106")
