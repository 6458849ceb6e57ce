"""Table tests for krm_fn.domain.vllm_model: a vLLM model argument onto KAITO's tuned table (SPEC 4.1), aliases
(SPEC 4.2) and fallback. Expected keys are written from the SPEC's tables."""
from __future__ import annotations

import pytest

from krm_fn.domain.presets import DEFAULT_TABLE
from krm_fn.domain.vllm_model import candidates, decide_model, fallback, unknowable

MTP = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'

MODELS = [
    # HF ids, any case
    ("deepseek-ai/DeepSeek-V3.2", "deepseek-ai/deepseek-v3.2", True),
    ("Qwen/Qwen3.5-4B", "qwen/qwen3.5-4b", True),
    ("qwen/qwen3.6-35b-a3b-fp8", "qwen/qwen3.6-35b-a3b-fp8", True),
    ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/deepseek-v4-flash", False),
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/llama-3.1-8b-instruct", False),
    ("Qwen/Qwen3.5-4B/", "qwen/qwen3.5-4b", True),
    # local paths and URIs: the last two components
    ("/models/Qwen/Qwen3.5-4B", "qwen/qwen3.5-4b", True),
    ("/data/hub/XiaomiMiMo/MiMo-7B-Base/", "xiaomimimo/mimo-7b-base", True),
    ("s3://bucket/weights/zai-org/GLM-5.2-FP8", "zai-org/glm-5.2-fp8", True),
    ("./Qwen/Qwen3.5-9B", "qwen/qwen3.5-9b", True),
    ("/models/Qwen3.5-4B", "qwen/qwen3.5-4b", True),   # no org folder: the one tuned model of that name (#22)
    ("unsloth/Qwen3.5-4B", "unsloth/qwen3.5-4b", False),   # an HF id names its org: another model
    ("/mnt/models", "mnt/models", False),
    # a snapshot in a Hugging Face cache
    ("/root/.cache/huggingface/hub/models--Qwen--Qwen3.5-4B/snapshots/0123abcd", "qwen/qwen3.5-4b", True),
    ("/data/hub/models--meta-llama--Llama-3.1-8B", "meta-llama/llama-3.1-8b", False),
    # legacy short names (SPEC 4.2), bare or as a path's last component
    ("deepseek-r1-0528", "deepseek-ai/deepseek-r1-0528", True),
    ("/models/deepseek-v3-0324", "deepseek-ai/deepseek-v3-0324", True),
    ("phi-4", "microsoft/phi-4", False),
    ("gpt2", "gpt2", False),
]


@pytest.mark.parametrize("model,key,tuned", MODELS, ids=[m[0] for m in MODELS])
def test_decide_model(model, key, tuned):
    decision = decide_model(model)
    assert decision.key == key
    assert decision.resolution.tuned is tuned
    assert decision.resolution.json == (MTP if tuned else NGRAM)


def test_a_path_tries_the_two_components_before_the_alias():
    assert candidates("/models/deepseek-r1-0528") == ["models/deepseek-r1-0528", "deepseek-ai/deepseek-r1-0528"]
    assert candidates("org/name") == ["org/name"]


def test_extra_tuned_presets_and_fallback_of_the_function_config():
    table = DEFAULT_TABLE.extended({"Org/Model": {"method": "eagle3", "model": "org/eagle",
                                                  "num_speculative_tokens": 3}},
                                   fallback={"method": "suffix", "num_speculative_tokens": 24})
    assert decide_model("/w/org/model", table).resolution.method == "eagle3"
    assert decide_model("x/y", table).resolution.json == '{"method":"suffix","num_speculative_tokens":24}'
    assert fallback(table).json == '{"method":"suffix","num_speculative_tokens":24}'
    assert fallback().json == NGRAM and not fallback().tuned


@pytest.mark.parametrize("model,why", [
    ("$(MODEL)", "an environment variable"), ("${MODEL:-a/b}", "an environment variable"),
    ("/m/$NAME", "an environment variable"), ("{{ .Values.modelURL }}", "a template placeholder"),
    ("`cat /m`", "a command substitution"), ("Qwen/Qwen3.5-4B", None),
])
def test_unknowable(model, why):
    assert unknowable(model) == why
