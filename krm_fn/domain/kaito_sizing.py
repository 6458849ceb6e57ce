"""How many nodes KAITO gives one replica of a vLLM workload, where that can be known offline.

Mirrors KAITO's node estimator (kaito-project/kaito main at 056b8280, 2026-08-21, after v0.12.0:
pkg/workspace/estimator/nodesestimator/estimator.go, which `UpdateWorkspaceTargetNodeCount` runs for every
vLLM Workspace, also those an InferenceSet or a MultiRoleInference creates):

    modelSize := float64(totalGPUMemRequired.Value()) * weightExpansionFactor          // 1.02
    gpuMemPerGPU := float64(gpuConfig.GPUMem.Value() / int64(gpuConfig.GPUCount))
    availGPUMem := gpuMemPerGPU * gpuMemoryUtilization                                // 0.84
    kvCache := float64(maxModelLen*inferParams.BytesPerToken) / float64(gpuConfig.GPUCount)
    fixedReserve := baseOverhead + kvCache                                            // 2.3 GiB + kvCache
    availMemPerGPU := (availGPUMem - fixedReserve) / (1 + overheadWeightFactor)       // 0.05
    minGPUs := int(modelSize/availMemPerGPU) + 1
    nodeCountPerReplica = (minGPUs + gpuConfig.GPUCount - 1) / gpuConfig.GPUCount

What it needs and where it comes from here:
- the GPU configuration of the instance type: KAITO's SKU tables (pkg/sku/azure_sku_handler.go,
  aws_sku_handler.go, arc_sku_handker.go; looked up case-insensitively, as `GetGPUConfigBySKU`). With node
  auto-provisioning off (BYO nodes) KAITO reads the nodes' labels instead: not knowable offline.
- the model's weight size and KV-cache bytes per token: KAITO's model catalog
  (presets/workspace/models/model_catalog.yaml: `modelFileSize`; bytes per token as the preset generator's
  `calculateKVCacheTokenSize` computes them). A name is lower-cased and legacy short names mapped to their
  Hugging Face id (`GetModelByNameWithToken`), then matched case-insensitively (`loadFromCatalog`). A Hugging
  Face model outside the catalog is sized from Hugging Face at run time: not knowable offline.
- `max-model-len` from the referenced ConfigMap's inference_config.yaml, read as KAITO's
  `ParseExplicitMaxModelLen` reads it (a line under `vllm:`, a bare positive integer), else 2048.
Where the estimator raises (GPU memory too small, a MIG slice) KAITO refuses the workload; None here.
"""

from typing import NamedTuple
import re

from .presets import canonical

GIB = 1 << 30
GPU_MEMORY_UTILIZATION = 0.84
WEIGHT_EXPANSION_FACTOR = 1.02
BASE_OVERHEAD_GIB = 2.3
OVERHEAD_WEIGHT_FACTOR = 0.05
DEFAULT_MAX_MODEL_LEN = 2048

# (cloud, instance type, GPUs, GPU memory of the node) from KAITO's SKU tables, in their order.
SKUS: tuple[tuple[str, str, int, str], ...] = (
    ('azure', 'Standard_NV36ads_A10_v5', 1, '24Gi'),
    ('azure', 'Standard_NV72ads_A10_v5', 2, '48Gi'),
    ('azure', 'Standard_NC24ads_A100_v4', 1, '80Gi'),
    ('azure', 'Standard_NC48ads_A100_v4', 2, '160Gi'),
    ('azure', 'Standard_NC96ads_A100_v4', 4, '320Gi'),
    ('azure', 'Standard_ND96asr_A100_v4', 8, '320Gi'),
    ('azure', 'Standard_ND96amsr_A100_v4', 8, '640Gi'),
    ('azure', 'Standard_NC40ads_H100_v5', 1, '94Gi'),
    ('azure', 'Standard_NC80adis_H100_v5', 2, '188Gi'),
    ('azure', 'Standard_ND96isr_H100_v5', 8, '640Gi'),
    ('azure', 'Standard_NCC40ads_H100_v5', 1, '94Gi'),
    ('azure', 'Standard_ND96isr_H200_v5', 8, '1128Gi'),
    ('azure', 'Standard_NG32ads_V620_v1', 1, '32Gi'),
    ('azure', 'Standard_NG32adms_V620_v1', 1, '32Gi'),
    ('aws', 'p4d.24xlarge', 8, '320Gi'),
    ('aws', 'p4de.24xlarge', 8, '640Gi'),
    ('aws', 'p5.48xlarge', 8, '640Gi'),
    ('aws', 'p5e.48xlarge', 8, '1128Gi'),
    ('aws', 'p5en.48xlarge', 8, '1128Gi'),
    ('aws', 'g6.xlarge', 1, '24Gi'),
    ('aws', 'g6.2xlarge', 1, '24Gi'),
    ('aws', 'g6.4xlarge', 1, '24Gi'),
    ('aws', 'g6.8xlarge', 1, '24Gi'),
    ('aws', 'g6.16xlarge', 1, '24Gi'),
    ('aws', 'gr6.4xlarge', 1, '24Gi'),
    ('aws', 'gr6.8xlarge', 1, '24Gi'),
    ('aws', 'g6.12xlarge', 4, '96Gi'),
    ('aws', 'g6.24xlarge', 4, '96Gi'),
    ('aws', 'g6.48xlarge', 8, '192Gi'),
    ('aws', 'g5.xlarge', 1, '24Gi'),
    ('aws', 'g5.2xlarge', 1, '24Gi'),
    ('aws', 'g5.4xlarge', 1, '24Gi'),
    ('aws', 'g5.8xlarge', 1, '24Gi'),
    ('aws', 'g5.12xlarge', 4, '96Gi'),
    ('aws', 'g5.16xlarge', 1, '24Gi'),
    ('aws', 'g5.24xlarge', 4, '96Gi'),
    ('aws', 'g5.48xlarge', 8, '192Gi'),
    ('aws', 'g4ad.xlarge', 1, '8Gi'),
    ('aws', 'g4ad.2xlarge', 1, '8Gi'),
    ('aws', 'g4ad.4xlarge', 1, '8Gi'),
    ('aws', 'g4ad.8xlarge', 2, '16Gi'),
    ('aws', 'g4ad.16xlarge', 4, '32Gi'),
    ('aws', 'trn1.2xlarge', 1, '32Gi'),
    ('aws', 'trn1.32xlarge', 16, '512Gi'),
    ('aws', 'trn1n.32xlarge', 16, '512Gi'),
    ('aws', 'inf2.xlarge', 1, '32Gi'),
    ('aws', 'inf2.8xlarge', 1, '32Gi'),
    ('aws', 'inf2.24xlarge', 6, '192Gi'),
    ('aws', 'inf2.48xlarge', 12, '384Gi'),
    ('arc', 'Standard_NC4_A2', 1, '16Gi'),
    ('arc', 'Standard_NC8_A2', 1, '16Gi'),
    ('arc', 'Standard_NC16_A2', 2, '32Gi'),
    ('arc', 'Standard_NC32_A2', 2, '32Gi'),
    ('arc', 'Standard_NC4_A16', 1, '16Gi'),
    ('arc', 'Standard_NC8_A16', 1, '16Gi'),
    ('arc', 'Standard_NC16_A16', 2, '32Gi'),
    ('arc', 'Standard_NC32_A16', 2, '32Gi'),
)

# (name, modelFileSize, hiddenSize, numHiddenLayers, numAttentionHeads, numKeyValueHeads, headDim (0: none),
#  kvLoraRank (-1: none), qkRopeHeadDim) from KAITO's model catalog, in its order.
MODELS: tuple[tuple[str, str, int, int, int, int, int, int, int], ...] = (
    ('microsoft/phi-4', '27.31Gi', 5120, 40, 40, 10, 0, -1, 0),
    ('microsoft/Phi-4-mini-instruct', '7.15Gi', 3072, 32, 24, 8, 0, -1, 0),
    ('deepseek-ai/DeepSeek-R1-Distill-Llama-8B', '14.96Gi', 4096, 32, 32, 8, 0, -1, 0),
    ('deepseek-ai/DeepSeek-R1-Distill-Qwen-14B', '27.51Gi', 5120, 48, 40, 8, 0, -1, 0),
    ('microsoft/Phi-3-mini-4k-instruct', '7.12Gi', 3072, 32, 32, 32, 0, -1, 0),
    ('microsoft/Phi-3-mini-128k-instruct', '7.12Gi', 3072, 32, 32, 32, 0, -1, 0),
    ('microsoft/Phi-3-medium-4k-instruct', '26.00Gi', 5120, 40, 40, 10, 0, -1, 0),
    ('microsoft/Phi-3-medium-128k-instruct', '26.00Gi', 5120, 40, 40, 10, 0, -1, 0),
    ('microsoft/Phi-3.5-mini-instruct', '7.12Gi', 3072, 32, 32, 32, 0, -1, 0),
    ('Qwen/Qwen2.5-Coder-7B-Instruct', '14.19Gi', 3584, 28, 28, 4, 0, -1, 0),
    ('Qwen/Qwen2.5-Coder-32B-Instruct', '61.03Gi', 5120, 64, 40, 8, 0, -1, 0),
    ('openai/gpt-oss-20b', '25.63Gi', 2880, 24, 64, 8, 64, -1, 0),
    ('openai/gpt-oss-120b', '121.54Gi', 2880, 36, 64, 8, 64, -1, 0),
    ('meta-llama/Llama-3.1-8B-Instruct', '14.96Gi', 4096, 32, 32, 8, 0, -1, 0),
    ('meta-llama/Llama-3.3-70B-Instruct', '131.42Gi', 8192, 80, 64, 8, 0, -1, 0),
    ('mistralai/Mistral-7B-v0.3', '13.50Gi', 4096, 32, 32, 8, 0, -1, 0),
    ('mistralai/Mistral-7B-Instruct-v0.3', '13.50Gi', 4096, 32, 32, 8, 0, -1, 0),
    ('mistralai/Ministral-3-3B-Instruct-2512', '4.35Gi', 3072, 26, 32, 8, 128, -1, 0),
    ('mistralai/Ministral-3-8B-Instruct-2512', '9.70Gi', 4096, 34, 32, 8, 0, -1, 0),
    ('mistralai/Ministral-3-14B-Instruct-2512', '14.65Gi', 5120, 40, 32, 8, 128, -1, 0),
    ('google/gemma-3-4b-it', '8.01Gi', 2560, 34, 8, 4, 256, -1, 0),
    ('google/gemma-3-27b-it', '51.10Gi', 5376, 62, 32, 16, 128, -1, 0),
    ('deepseek-ai/DeepSeek-R1-0528', '641.30Gi', 7168, 61, 128, 128, 0, 512, 64),
    ('deepseek-ai/DeepSeek-V3-0324', '641.30Gi', 7168, 61, 128, 128, 0, 512, 64),
    ('mistralai/Mistral-Large-3-675B-Instruct-2512', '634.70Gi', 7168, 61, 128, 128, 192, 512, 64),
    ('nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16', '230.25Gi', 4096, 88, 32, 2, 0, -1, 0),
    ('nvidia/Nemotron-Cascade-2-30B-A3B', '58.82Gi', 2688, 52, 32, 2, 128, -1, 0),
    ('nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16', '58.82Gi', 2688, 52, 32, 2, 128, -1, 0),
    ('nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16', '24.55Gi', 5120, 62, 40, 8, 0, -1, 0),
    ('nvidia/NVIDIA-Nemotron-Nano-9B-v2', '16.56Gi', 4480, 56, 40, 8, 128, -1, 0),
    ('nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16', '7.40Gi', 3136, 42, 40, 8, 128, -1, 0),
    ('Qwen/Qwen3-8B-AWQ', '5.68Gi', 4096, 36, 32, 8, 0, -1, 0),
    ('google/gemma-4-31B-it', '58.25Gi', 5376, 60, 32, 16, 256, -1, 0),
    ('google/gemma-4-26B-A4B-it', '48.07Gi', 2816, 30, 16, 8, 256, -1, 0),
    ('google/gemma-4-E4B-it', '14.89Gi', 2560, 42, 8, 2, 256, -1, 0),
    ('google/gemma-4-E2B-it', '9.54Gi', 1536, 35, 8, 1, 256, -1, 0),
    ('mistralai/Mistral-Small-4-119B-2603', '112.63Gi', 4096, 36, 32, 32, 0, 256, 64),
    ('mistralai/Mistral-Small-4-119B-2603-NVFP4', '65.95Gi', 4096, 36, 32, 32, 0, 256, 64),
    ('Qwen/Qwen3.5-2B', '4.24Gi', 2048, 24, 8, 2, 0, -1, 0),
    ('Qwen/Qwen3.5-4B', '8.68Gi', 2560, 32, 16, 4, 256, -1, 0),
    ('Qwen/Qwen3.5-9B', '17.98Gi', 4096, 32, 16, 4, 0, -1, 0),
    ('Qwen/Qwen3.5-122B-A10B-GPTQ-Int4', '73.47Gi', 3072, 48, 32, 2, 256, -1, 0),
    ('Qwen/Qwen3.5-122B-A10B', '232.99Gi', 3072, 48, 32, 2, 256, -1, 0),
    ('Qwen/Qwen3.6-35B-A3B-FP8', '34.90Gi', 2048, 40, 16, 2, 256, -1, 0),
    ('Qwen/Qwen3.6-35B-A3B', '66.97Gi', 2048, 40, 16, 2, 256, -1, 0),
    ('Qwen/Qwen3.6-27B', '51.75Gi', 5120, 64, 24, 4, 256, -1, 0),
    ('Qwen/Qwen3.5-397B-A17B-GPTQ-Int4', '219.56Gi', 4096, 60, 32, 2, 256, -1, 0),
    ('moonshotai/Kimi-K2.5', '554.32Gi', 7168, 61, 64, 64, 0, 512, 64),
    ('moonshotai/Kimi-K2.6', '554.32Gi', 7168, 61, 64, 64, 0, 512, 64),
    ('MiniMaxAI/MiniMax-M2.7', '214.34Gi', 3072, 62, 48, 8, 128, -1, 0),
    ('mistralai/Mistral-Medium-3.5-128B', '124.43Gi', 12288, 88, 96, 8, 0, -1, 0),
    ('deepseek-ai/DeepSeek-V4-Flash-0731', '155.43Gi', 4096, 43, 64, 1, 512, -1, 64),
    ('deepseek-ai/DeepSeek-V4-Pro', '805.34Gi', 7168, 61, 128, 1, 512, -1, 64),
    ('google/gemma-4-12B-it', '22.28Gi', 3840, 48, 16, 8, 256, -1, 0),
    ('zai-org/GLM-5.2-FP8', '703.75Gi', 6144, 78, 64, 64, 192, 512, 64),
    ('moonshotai/Kimi-K2.7-Code', '554.32Gi', 7168, 61, 64, 64, 0, 512, 64),
    ('nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4', '328.13Gi', 8192, 108, 64, 2, 0, -1, 0),
    ('deepseek-ai/DeepSeek-V3.2', '642.14Gi', 7168, 61, 128, 128, 0, 512, 64),
    ('ibm-granite/granite-4.1-8b', '16.38Gi', 4096, 40, 32, 8, 0, -1, 0),
    ('Qwen/Qwen3.8-27B', '51.75Gi', 5120, 64, 24, 4, 256, -1, 0),
)

_SKUS = {name.lower(): (cloud, name, gpus, memory) for cloud, name, gpus, memory in SKUS}
_MODELS = {m[0].lower(): m for m in MODELS}
_QUANTITY = r"([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti)?"
_UNITS = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}


def quantity_bytes(text: str) -> int:
    """A Kubernetes binary quantity (`641.30Gi`) in bytes, rounded up as resource.Quantity.Value() does."""
    m = re.fullmatch(_QUANTITY, text)
    if m is None:
        raise ValueError(f"not a quantity: {text!r}")
    whole, _, fraction = m.group(1).partition(".")
    unit = _UNITS[m.group(2)]
    # exact, as resource.Quantity is (integers only: no float rounding)
    return int(whole) * unit + -(-int(fraction or "0") * unit // 10 ** len(fraction))


class GPUs(NamedTuple):
    instance_type: str   # as KAITO's table spells it
    cloud: str
    gpu_count: int
    memory: int          # bytes, the whole node


class Model(NamedTuple):
    name: str            # as the catalog spells it
    size: int            # weight bytes (modelFileSize)
    bytes_per_token: int


def gpus_of(instance_type: str) -> GPUs | None:
    found = _SKUS.get(instance_type.lower()) if isinstance(instance_type, str) else None
    return None if found is None else GPUs(found[1], found[0], found[2], quantity_bytes(found[3]))


def model_of(preset: str) -> Model | None:
    found = _MODELS.get(canonical(preset).lower()) if isinstance(preset, str) else None
    if found is None:
        return None
    name, size, hidden, layers, heads, kv_heads, head_dim, kv_lora_rank, qk_rope = found
    return Model(name, quantity_bytes(size), bytes_per_token(hidden, layers, heads, kv_heads, head_dim, kv_lora_rank,
                                                             qk_rope))


def bytes_per_token(hidden: int, layers: int, heads: int, kv_heads: int, head_dim: int, kv_lora_rank: int,
                    qk_rope: int) -> int:
    """KAITO's calculateKVCacheTokenSize: MLA caches the compressed latent, others 2 x kv heads x head dim;
    fp16 (2 bytes) per element, per layer."""
    if head_dim == 0 and heads > 0:
        head_dim = hidden // heads
    if kv_heads == 0 and heads > 0:
        kv_heads = heads
    if kv_lora_rank != -1:
        elements = kv_lora_rank + qk_rope
    elif heads > 0 and kv_heads > 0 and head_dim > 0:
        elements = 2 * kv_heads * head_dim
    else:
        elements = 0
    return elements * layers * 2


def explicit_max_model_len(content: str | None) -> int | None:
    """KAITO's ParseExplicitMaxModelLen: the first `max-model-len:` line inside the `vllm:` block, when its
    value is a bare positive integer (a quoted "4096" is not)."""
    if not isinstance(content, str):
        return None
    in_vllm, base = False, ""
    for line in content.split("\n"):
        trim = line.strip()
        if not in_vllm:
            if trim.startswith("vllm:"):
                in_vllm = True
                base = line[: len(line) - len(line.lstrip(" \t"))] + "  "
            continue
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if trim and not trim.startswith("#") and len(indent) < len(base):
            break
        if trim.startswith("max-model-len:"):
            value = trim[len("max-model-len:"):].strip()
            digits = value.lstrip("+").lstrip("0")
            # strconv.Atoi: an optional sign and digits that fit an int64 (Python refuses past 4300 digits)
            if re.fullmatch(r"[+]?[0-9]+", value) and 0 < len(digits) <= 19 and int(digits) < 2 ** 63:
                return int(digits)
            break
    return None


def nodes_per_replica(model: Model, gpus: GPUs, max_model_len: int | None = None) -> int | None:
    """KAITO's estimate of the nodes one replica needs; None where KAITO's estimator refuses the workload
    (the GPUs cannot hold even the fixed reserve)."""
    if gpus.gpu_count <= 0 or gpus.memory <= 0:
        return None
    model_size = float(model.size) * WEIGHT_EXPANSION_FACTOR
    per_gpu = float(gpus.memory // gpus.gpu_count)
    available = per_gpu * GPU_MEMORY_UTILIZATION
    kv_cache = float((max_model_len or DEFAULT_MAX_MODEL_LEN) * model.bytes_per_token) / float(gpus.gpu_count)
    reserve = BASE_OVERHEAD_GIB * GIB + kv_cache
    if available <= reserve:
        return None
    per_gpu_for_weights = (available - reserve) / (1 + OVERHEAD_WEIGHT_FACTOR)
    min_gpus = int(model_size / per_gpu_for_weights) + 1
    return (min_gpus + gpus.gpu_count - 1) // gpus.gpu_count


def one_node_instance_type(model: Model, gpus: GPUs, max_model_len: int | None = None) -> str | None:
    """The instance type of the same cloud with the least GPU memory on which one node holds the model."""
    fits = [(quantity_bytes(memory), count, name) for cloud, name, count, memory in SKUS
            if cloud == gpus.cloud and nodes_per_replica(model, GPUs(name, cloud, count, quantity_bytes(memory)),
                                                         max_model_len) == 1]
    return min(fits)[2] if fits else None
