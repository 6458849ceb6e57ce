"""kaito_sizing: KAITO's node estimator, its SKU table and model catalog, as far as they are knowable offline."""
from __future__ import annotations

import pytest

from krm_fn.domain.kaito_sizing import (GIB, GPUs, Model, bytes_per_token, explicit_max_model_len, gpus_of, model_of,
    nodes_per_replica, one_node_instance_type, quantity_bytes)


def test_quantities_round_up_to_whole_bytes_as_kubernetes_does():
    assert quantity_bytes("24Gi") == 24 * GIB
    assert quantity_bytes("641.30Gi") == 688590631732  # ceil(641.30 x 2**30), computed exactly


def test_instance_types_are_looked_up_case_insensitively_in_every_cloud_table():
    assert gpus_of("standard_nc24ads_a100_v4") == GPUs("Standard_NC24ads_A100_v4", "azure", 1, 80 * GIB)
    assert gpus_of("p5.48xlarge").gpu_count == 8 and gpus_of("Standard_NC4_A2").cloud == "arc"
    assert gpus_of("Standard_NX_Future_v9") is None


def test_models_by_legacy_name_or_any_case_of_their_id():
    assert model_of("deepseek-r1-0528") == model_of("DeepSeek-AI/DeepSeek-R1-0528")
    assert model_of("deepseek-r1-0528").name == "deepseek-ai/DeepSeek-R1-0528"
    assert model_of("someone/not-in-the-catalog") is None


@pytest.mark.parametrize("args,expected", [
    ((7168, 61, 128, 128, 0, 512, 64), (512 + 64) * 61 * 2),   # MLA: the compressed latent per layer
    ((5120, 40, 40, 10, 0, -1, 0), 2 * 10 * 128 * 40 * 2),     # GQA, head dim from hidden / heads
    ((2560, 32, 16, 4, 256, -1, 0), 2 * 4 * 256 * 32 * 2),     # an explicit head dim
])
def test_bytes_per_token_as_kaitos_generator_computes_them(args, expected):
    assert bytes_per_token(*args) == expected


def test_the_estimate_follows_kaitos_formula():
    # By hand: 641.30 GiB x 1.02 of weights; per A100 80 GiB x 0.84 - 2.3 GiB - 2048 x 70272 bytes of KV cache,
    # / 1.05 = 61.71 GiB for weights -> int(654.13 / 61.71) + 1 = 11 GPUs -> 11 one-GPU nodes, 2 eight-GPU ones.
    deepseek = model_of("deepseek-r1-0528")
    assert nodes_per_replica(deepseek, gpus_of("Standard_NC24ads_A100_v4")) == 11
    assert nodes_per_replica(deepseek, gpus_of("Standard_ND96isr_H100_v5")) == 2
    assert nodes_per_replica(deepseek, gpus_of("Standard_ND96isr_H200_v5")) == 1
    assert one_node_instance_type(deepseek, gpus_of("Standard_NC24ads_A100_v4")) == "Standard_ND96isr_H200_v5"
    assert nodes_per_replica(model_of("phi-4"), gpus_of("Standard_NC24ads_A100_v4")) == 1


def test_a_longer_context_takes_kv_cache_memory_and_can_tip_the_estimate():
    model = Model("m", 55 * GIB, 1 << 20)   # 1 MiB of KV cache per token: 2 GiB at 2048, 8 GiB at 8192
    gpus = GPUs("g", "azure", 1, 80 * GIB)
    assert nodes_per_replica(model, gpus) == 1 and nodes_per_replica(model, gpus, 8192) == 2


def test_gpus_too_small_for_the_fixed_reserve_are_kaitos_error_not_an_estimate():
    assert nodes_per_replica(Model("m", GIB, 0), GPUs("g", "azure", 1, 2 * GIB)) is None


@pytest.mark.parametrize("text,expected", [
    ("vllm:\n  max-model-len: 8192\n", 8192),
    ("vllm:\n  max-model-len: \"8192\"\n", None),         # KAITO's line parser takes bare integers only
    ("vllm:\n  gpu-memory-utilization: 0.9\nmax-model-len: 9\n", None),  # outside the vllm block
    ("# x\nvllm:\n  # c\n  max-model-len: 0\n", None),
    (None, None),
])
def test_max_model_len_as_kaitos_parser_reads_it(text, expected):
    assert explicit_max_model_len(text) == expected


def test_a_max_model_len_no_int64_holds_is_not_explicit():
    assert explicit_max_model_len("vllm:\n  max-model-len: " + "9" * 5000 + "\n") is None
    assert explicit_max_model_len("vllm:\n  max-model-len: 0008192\n") == 8192
