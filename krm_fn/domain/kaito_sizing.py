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
import functools
import re

from .presets import canonical, kaito_catalog

GIB = 1 << 30
GPU_MEMORY_UTILIZATION = 0.84
WEIGHT_EXPANSION_FACTOR = 1.02
BASE_OVERHEAD_GIB = 2.3
OVERHEAD_WEIGHT_FACTOR = 0.05
DEFAULT_MAX_MODEL_LEN = 2048

# KAITO's SKU tables and model catalog, rows of the data file tools/kaito_catalog.py writes (presets.kaito_catalog),
# read on the first sizing (a run that sizes no model never converts them):
#   Sku:          (cloud, instance type, GPUs, GPU memory of the node) from KAITO's SKU tables, in their order.
#   CatalogModel: (name, modelFileSize, hiddenSize, numHiddenLayers, numAttentionHeads, numKeyValueHeads,
#                 headDim (0: none), kvLoraRank (-1: none), qkRopeHeadDim) from KAITO's model catalog, in its order.
Sku = tuple[str, str, int, str]
CatalogModel = tuple[str, str, int, int, int, int, int, int, int]


class Tables(NamedTuple):
    skus: dict[str, Sku]                # by lower-cased instance type, in KAITO's order
    models: dict[str, CatalogModel]     # by lower-cased name, in the catalog's order


@functools.cache
def tables() -> Tables:
    """KAITO's SKU tables and model catalog, from the data file on the first call."""
    data = kaito_catalog()
    skus: dict[str, Sku] = {name.lower(): (cloud, name, gpus, memory) for cloud, name, gpus, memory in data["skus"]}
    models: dict[str, CatalogModel] = {row[0].lower(): (row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7],
                                                        row[8]) for row in data["models"]}
    return Tables(skus, models)


_QUANTITY = r"([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti)?"
_UNITS: dict[str | None, int] = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}


def quantity_bytes(text: str) -> int:
    """A Kubernetes binary quantity (`641.30Gi`) in bytes, rounded up as resource.Quantity.Value() does."""
    m = re.fullmatch(_QUANTITY, text)
    if m is None:
        raise ValueError(f"not a quantity: {text!r}")
    whole, _, fraction = m.group(1).partition(".")
    unit = _UNITS[m.group(2)]
    scale: int = 10 ** len(fraction)  # int ** int is typed Any (a negative exponent makes a float)
    # exact, as resource.Quantity is (integers only: no float rounding)
    return int(whole) * unit + -(-int(fraction or "0") * unit // scale)


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
    found = tables().skus.get(instance_type.lower()) if isinstance(instance_type, str) else None
    return None if found is None else GPUs(found[1], found[0], found[2], quantity_bytes(found[3]))


def model_of(preset: str) -> Model | None:
    found = tables().models.get(canonical(preset).lower()) if isinstance(preset, str) else None
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
    fits = [(quantity_bytes(memory), count, name) for cloud, name, count, memory in tables().skus.values()
            if cloud == gpus.cloud and nodes_per_replica(model, GPUs(name, cloud, count, quantity_bytes(memory)),
                                                         max_model_len) == 1]
    return min(fits)[2] if fits else None
