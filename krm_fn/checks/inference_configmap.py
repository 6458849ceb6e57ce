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

from typing import Any


from ..domain.inference_config import DATA_KEY, InferenceConfigError, atoi_error, kaito_values
from ..text.results import Finding

ID = "inference-configmap"


def problem(configmap: Any, max_model_len: bool = True) -> Finding | None:
    """What KAITO says of a ConfigMap it would refuse as a workload's inference config, or None.

    `max_model_len=False` for a v1alpha1 Workspace: its webhook (api/v1alpha1/inference_config_validation.go)
    does not parse max-model-len (it only requires one on small multi-GPU SKUs), so `max-model-len: auto`,
    which KAITO itself passes to vLLM, is admitted and runs."""
    data = configmap.get("data") if isinstance(configmap, dict) else None
    if data is not None and not isinstance(data, dict):
        return Finding("the ConfigMap's data is not a mapping", f"data[{DATA_KEY}]", id="SD120")
    text = data.get(DATA_KEY) if isinstance(data, dict) else None
    binary = configmap.get("binaryData") if isinstance(configmap, dict) else None
    if isinstance(data, dict) and DATA_KEY in data and isinstance(binary, dict) and DATA_KEY in binary:
        # The API server refuses a key in both; a derived copy would carry the same conflict.
        return Finding(f"{DATA_KEY} is under both data and binaryData, which the API server refuses; keep it under data only", f"binaryData[{DATA_KEY}]", id="SD121")
    if text is None or (isinstance(data, dict) and DATA_KEY not in data):
        if isinstance(binary, dict) and DATA_KEY in binary:
            return Finding(f"missing field(s): {DATA_KEY} in ConfigMap (it is under binaryData, and KAITO reads only data: move it to data)", f"binaryData[{DATA_KEY}]", id="SD122")
        if text is None and isinstance(data, dict) and DATA_KEY in data:
            return None  # `inference_config.yaml:` with nothing: an empty string to KAITO
        return Finding(f"missing field(s): {DATA_KEY} in ConfigMap", f"data[{DATA_KEY}]", id="SD123")
    if not isinstance(text, str):
        return Finding(f"{DATA_KEY} is not a string (quote it or write it as a block: `|`)", f"data[{DATA_KEY}]", id="SD124")
    return _unreadable(text, max_model_len)


def _unreadable(text: str, max_model_len: bool) -> Finding | None:
    """KAITO's `yaml.Unmarshal` into its `vllm` string map, then its max-model-len check, in its words."""
    field = f"data[{DATA_KEY}]"
    try:
        values, errors = kaito_values(text)
    except InferenceConfigError as exc:
        where = f" (line {exc.line}, column {exc.column})" if exc.line is not None else ""
        return Finding(f"Failed to parse {DATA_KEY}: {exc.message}{where}", field, id="SD125")
    if errors:
        hint = (" (write each vllm value as one quoted string)"
                if any(e.endswith(")") and "into string (vllm." in e for e in errors) else "")
        return Finding(f"Failed to parse {DATA_KEY}: yaml: unmarshal errors: {'; '.join(errors)}{hint}", field, id="SD126")
    raw = values.get("max-model-len", "").strip()
    refused = atoi_error(raw) if raw and max_model_len else None
    if refused:
        return Finding(f"max-model-len must be an integer: {refused}", field, id="SD127")
    return None
