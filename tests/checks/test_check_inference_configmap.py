"""inference-configmap (SD120 to SD127): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

import pytest

from krm_fn.checks import inference_configmap

DATA = "data[inference_config.yaml]"
BINARY = "binaryData[inference_config.yaml]"
REFERENCE = ("cfg", "Workspace", "ws")  # the ConfigMap's name, and the workload that references it
SAID = 'ConfigMap "cfg" referenced by Workspace "ws": '  # what every message of these findings starts with


@pytest.mark.parametrize("configmap, max_model_len", [
    ({"data": {"inference_config.yaml": "vllm:\n  max-model-len: 4096\n"}}, True),
    ({"data": {"inference_config.yaml": None}}, True),  # `inference_config.yaml:` with nothing: ""
    ({"data": {"inference_config.yaml": "vllm:\n  max-model-len: auto\n"}}, False),  # v1alpha1 Workspace
])
def test_pass(configmap: dict, max_model_len: bool) -> None:
    assert inference_configmap.problem(configmap, *REFERENCE, max_model_len=max_model_len) is None


@pytest.mark.parametrize("configmap, expected", [
    ({"data": ["x"]}, ("the ConfigMap's data is not a mapping", DATA, "SD120")),
    ({"data": {"inference_config.yaml": "vllm: {}"}, "binaryData": {"inference_config.yaml": "eA=="}},
     ("inference_config.yaml is under both data and binaryData, which the API server refuses; keep it under data only", BINARY, "SD121")),
    ({"binaryData": {"inference_config.yaml": "eA=="}},
     ("missing field(s): inference_config.yaml in ConfigMap (it is under binaryData, and KAITO reads only data: move it to data)", BINARY, "SD122")),
    ({"data": {"other": "x"}}, ("missing field(s): inference_config.yaml in ConfigMap", DATA, "SD123")),
    ({"data": {"inference_config.yaml": 5}},
     ("inference_config.yaml is not a string (quote it or write it as a block: `|`)", DATA, "SD124")),
    ({"data": {"inference_config.yaml": "vllm:\n  speculative-config: {method: ngram}\n"}},
     ("Failed to parse inference_config.yaml: yaml: unmarshal errors: line 2: cannot unmarshal !!map into string (vllm.speculative-config) (write each vllm value as one quoted string)", DATA, "SD126")),
    ({"data": {"inference_config.yaml": "vllm:\n  max-model-len: 4k\n"}},
     ('max-model-len must be an integer: strconv.Atoi: parsing "4k": invalid syntax', DATA, "SD127")),
])
def test_fail(configmap: dict, expected: tuple) -> None:
    message, *rest = expected
    assert inference_configmap.problem(configmap, *REFERENCE)[:3] == (SAID + message, *rest)


def test_fail_not_yaml() -> None:
    """The parser's own words (libyaml's) inside the message's frame, which is checked here with the id."""
    message, field, id, *_ = inference_configmap.problem({"data": {"inference_config.yaml": "vllm: [\n"}}, *REFERENCE)
    assert message.startswith(SAID + "Failed to parse inference_config.yaml: not valid YAML: ")
    assert message.endswith("(line 2, column 1)") and (field, id) == (DATA, "SD125")
