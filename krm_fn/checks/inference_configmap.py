"""inference-configmap: a referenced ConfigMap in the list must be one KAITO can read.

KAITO rule mirrored (`Workspace.validateInferenceConfig`, api/v1beta1/inference_config_validation.go; for the
vLLM runtime, on every Workspace and on the Workspace an InferenceSet projects):

    inferenceConfigYAML, ok := cm.Data["inference_config.yaml"]
    if !ok { return apis.ErrMissingField("inference_config.yaml in ConfigMap") }
    var inferenceConfig InferenceConfig   // VLLM map[string]string `yaml:"vllm"`
    if err := yaml.Unmarshal([]byte(inferenceConfigYAML), &inferenceConfig); err != nil {
        return apis.ErrGeneric(fmt.Sprintf("Failed to parse inference_config.yaml: %v", err), ...) }
    val, err := strconv.Atoi(strings.TrimSpace(rawMaxModelLen))
    if err != nil { ... fmt.Sprintf("max-model-len must be an integer: %v", err) ... }

Only `data` is read (a key under `binaryData` is missing to KAITO, so the function derives nothing from it
either); only the first YAML document counts; any scalar is a string to KAITO, a mapping or a list under a
`vllm:` key is not.

PASS:  data: {inference_config.yaml: "vllm:\n  max-model-len: 4096\n"}
FAIL:  no inference_config.yaml under data (or only under binaryData, or under both)
FAIL:  vllm: {speculative-config: {method: ngram}}   (a mapping, not a string)
FAIL:  vllm: {max-model-len: 4k}   (not on a v1alpha1 Workspace: its webhook does not parse max-model-len)
"""
from __future__ import annotations

from typing import Any

from ..inference_config import DATA_KEY, kaito_problem

ID = "inference-configmap"
KINDS = ("ConfigMap",)


def problem(configmap: Any, max_model_len: bool = True) -> tuple[str, str] | None:
    """(message, field path) for a ConfigMap KAITO would refuse as a workload's inference config.

    `max_model_len=False` for a v1alpha1 Workspace: its webhook (api/v1alpha1/inference_config_validation.go)
    does not parse max-model-len (it only requires one on small multi-GPU SKUs), so `max-model-len: auto`,
    which KAITO itself passes to vLLM, is admitted and runs."""
    data = configmap.get("data") if isinstance(configmap, dict) else None
    if data is not None and not isinstance(data, dict):
        return "the ConfigMap's data is not a mapping", f"data[{DATA_KEY}]"
    text = data.get(DATA_KEY) if isinstance(data, dict) else None
    binary = configmap.get("binaryData") if isinstance(configmap, dict) else None
    if isinstance(data, dict) and DATA_KEY in data and isinstance(binary, dict) and DATA_KEY in binary:
        # The API server refuses a key in both; a derived copy would carry the same conflict.
        return (f"{DATA_KEY} is under both data and binaryData, which the API server refuses; keep it under "
                "data only", f"binaryData[{DATA_KEY}]")
    if text is None or (isinstance(data, dict) and DATA_KEY not in data):
        if isinstance(binary, dict) and DATA_KEY in binary:
            return (f"missing field(s): {DATA_KEY} in ConfigMap (it is under binaryData, and KAITO reads only "
                    f"data: move it to data)", f"binaryData[{DATA_KEY}]")
        if text is None and isinstance(data, dict) and DATA_KEY in data:
            return None  # `inference_config.yaml:` with nothing: an empty string to KAITO
        return f"missing field(s): {DATA_KEY} in ConfigMap", f"data[{DATA_KEY}]"
    if not isinstance(text, str):
        return f"{DATA_KEY} is not a string (quote it or write it as a block: `|`)", f"data[{DATA_KEY}]"
    message = kaito_problem(text, max_model_len)
    return (message, f"data[{DATA_KEY}]") if message else None
