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
from ..text.results import Finding, finding

ID = "inference-configmap"


def problem(configmap: Any, name: str, kind: str, workload: str, max_model_len: bool = True) -> Finding | None:
    """What KAITO says of a ConfigMap it would refuse as a workload's inference config, or None: the
    ConfigMap `name`, referenced by the `kind` named `workload`, which the finding names.

    `max_model_len=False` for a v1alpha1 Workspace: its webhook (api/v1alpha1/inference_config_validation.go)
    does not parse max-model-len (it only requires one on small multi-GPU SKUs), so `max-model-len: auto`,
    which KAITO itself passes to vLLM, is admitted and runs."""
    where = {"configmap": name, "kind": kind, "workload": workload}
    data = configmap.get("data") if isinstance(configmap, dict) else None
    if data is not None and not isinstance(data, dict):
        return finding("SD120", f"data[{DATA_KEY}]", **where)
    text = data.get(DATA_KEY) if isinstance(data, dict) else None
    binary = configmap.get("binaryData") if isinstance(configmap, dict) else None
    if isinstance(data, dict) and DATA_KEY in data and isinstance(binary, dict) and DATA_KEY in binary:
        # The API server refuses a key in both; a derived copy would carry the same conflict.
        return finding("SD121", f"binaryData[{DATA_KEY}]", **where)
    if text is None or (isinstance(data, dict) and DATA_KEY not in data):
        if isinstance(binary, dict) and DATA_KEY in binary:
            return finding("SD122", f"binaryData[{DATA_KEY}]", **where)
        if text is None and isinstance(data, dict) and DATA_KEY in data:
            return None  # `inference_config.yaml:` with nothing: an empty string to KAITO
        return finding("SD123", f"data[{DATA_KEY}]", **where)
    if not isinstance(text, str):
        return finding("SD124", f"data[{DATA_KEY}]", **where)
    return _unreadable(text, max_model_len, where)


def _unreadable(text: str, max_model_len: bool, where: dict[str, str]) -> Finding | None:
    """KAITO's `yaml.Unmarshal` into its `vllm` string map, then its max-model-len check, in its words."""
    field = f"data[{DATA_KEY}]"
    try:
        values, errors = kaito_values(text)
    except InferenceConfigError as exc:
        if exc.line is None:
            return finding("SD125.unlocated", field, error=exc.message, **where)
        return finding("SD125.located", field, error=exc.message, line=exc.line, column=exc.column, **where)
    if errors:
        if any(e.endswith(")") and "into string (vllm." in e for e in errors):
            return finding("SD126.vllm-value", field, errors="; ".join(errors), **where)
        return finding("SD126.other", field, errors="; ".join(errors), **where)
    raw = values.get("max-model-len", "").strip()
    refused = atoi_error(raw) if raw and max_model_len else None
    if refused:
        return finding("SD127", field, error=refused, **where)
    return None
