from __future__ import annotations

import pytest
import yaml

from krm_fn.checks import inference_configmap
from krm_fn.domain import inference_config
from krm_fn.text import textedit
from krm_fn.domain.inference_config import (DATA_KEY, InferenceConfigError, Inspection, inspect,
    with_speculative_config)


J = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
SC = f"speculative-config: '{J}'"

# (input, expected output): the expected texts are written by hand; `{SC}` is the inserted entry.
TEXT_EDITS = {
    "none": (None, "vllm:\n  {SC}\n"),
    "empty": ("", "vllm:\n  {SC}\n"),
    "blank lines": ("\n\n", "vllm:\n  {SC}\n"),
    "only comments": ("# tuned by hand\n# nothing yet", "# tuned by hand\n# nothing yet\nvllm:\n  {SC}\n"),
    "only document start": ("---\n# empty\n", "---\n# empty\nvllm:\n  {SC}\n"),
    "block mapping": (
        "# KAITO inference config\nvllm:\n  cpu-offload-gb: 0\n  gpu-memory-utilization: 0.95\n"
        "  swap-space: 4\n\nmax_probe_steps: 6  # default\n",
        "# KAITO inference config\nvllm:\n  cpu-offload-gb: 0\n  gpu-memory-utilization: 0.95\n"
        "  swap-space: 4\n  {SC}\n\nmax_probe_steps: 6  # default\n",
    ),
    "trailing comment and quoting": (
        'vllm:\n    max-model-len: "131072"   # long\n    # enforce-eager: true\nother: x\n',
        'vllm:\n    max-model-len: "131072"   # long\n    {SC}\n    # enforce-eager: true\nother: x\n',
    ),
    "last value a literal block": (
        "vllm:\n  chat-template: |\n    {{ messages }}\n\n  # note\nkeep: 1\n",
        "vllm:\n  chat-template: |\n    {{ messages }}\n\n  {SC}\n  # note\nkeep: 1\n",
    ),
    "last value a block at the end": (
        "vllm:\n  chat-template: |-\n    line 1\n    line 2\n",
        "vllm:\n  chat-template: |-\n    line 1\n    line 2\n  {SC}\n",
    ),
    "last value nested": (
        "vllm:\n  hf-overrides:\n    rope_scaling:\n      type: yarn\n    layers:\n    - 1\n# end\n",
        "vllm:\n  hf-overrides:\n    rope_scaling:\n      type: yarn\n    layers:\n    - 1\n  {SC}\n# end\n",
    ),
    "no final newline": ("vllm:\n  max-model-len: 4096", "vllm:\n  max-model-len: 4096\n  {SC}\n"),
    "no final newline, vllm first": (
        "vllm:\n  a: 1\nother: 2", "vllm:\n  a: 1\n  {SC}\nother: 2\n"
    ),
    "null vllm": ("vllm:\nother: 1\n", "vllm:\n  {SC}\nother: 1\n"),
    "null vllm with comments": (
        "vllm:  # flags\n  # max-model-len: 4096\n", "vllm:  # flags\n  {SC}\n  # max-model-len: 4096\n"
    ),
    "tilde vllm": ("vllm: ~  # none yet\nother: 1\n", "vllm:  # none yet\n  {SC}\nother: 1\n"),
    "explicit null vllm": ("a: 1\nvllm: null\n", "a: 1\nvllm:\n  {SC}\n"),
    "empty flow vllm": ("vllm: {}\n", "vllm:\n  {SC}\n"),
    "flow vllm": ("vllm: {max-model-len: 4096}  # c\nother: 1\n", "vllm: {max-model-len: 4096, {SC}}  # c\nother: 1\n"),
    "json-looking flow vllm": ('vllm: {"a": 1}\n', 'vllm: {"a": 1, {SC}}\n'),
    "flow vllm, replaced": ("vllm: {speculative-config: 'x', a: 1}\n", "vllm: {{SC}, a: 1}\n"),
    "no vllm key": (
        "# probes\nmax_probe_steps: 6\n", "# probes\nmax_probe_steps: 6\nvllm:\n  {SC}\n"
    ),
    "no vllm key, last value a block": (
        "a:\n  b: |\n    x\n# tail\n", "a:\n  b: |\n    x\nvllm:\n  {SC}\n# tail\n"
    ),
    "document start": ("---\nvllm:\n  a: 1\n", "---\nvllm:\n  a: 1\n  {SC}\n"),
    "document start and end": ("%YAML 1.1\n---\nx: 1\n...\n", "%YAML 1.1\n---\nx: 1\nvllm:\n  {SC}\n...\n"),
    "indented root": ("  x: 1\n  y: 2\n", "  x: 1\n  y: 2\n  vllm:\n    {SC}\n"),
    "crlf": ("a: 1\r\nvllm:\r\n  x: 1\r\n", "a: 1\r\nvllm:\r\n  x: 1\r\n  {SC}\r\n"),
    "crlf null vllm": ("vllm:\r\nb: 2\r\n", "vllm:\r\n  {SC}\r\nb: 2\r\n"),
    "byte order mark": ("\ufeffvllm:\n  a: é\n", "\ufeffvllm:\n  a: é\n  {SC}\n"),
    "quoted vllm key": ('"vllm":\n  a: 1\n', '"vllm":\n  a: 1\n  {SC}\n'),
    "replace plain": (
        "vllm:\n  speculative-config: old  # mine\n  x: 1\n", "vllm:\n  {SC}  # mine\n  x: 1\n"
    ),
    "replace quoted": (
        "vllm:\n  x: 1\n  speculative-config: \"{\\\"method\\\":\\\"mtp\\\"}\"\n",
        "vllm:\n  x: 1\n  {SC}\n",
    ),
    "replace nested mapping": (
        "vllm:\n  speculative-config:\n    method: mtp\n  x: 1\n", "vllm:\n  {SC}\n  x: 1\n"
    ),
    "replace block scalar": ("vllm:\n  speculative-config: >\n    {}\nz: 1\n", "vllm:\n  {SC}\nz: 1\n"),
    "replace empty": ("vllm:\n  speculative-config:\n", "vllm:\n  {SC}\n"),
    "replace keeps underscore spelling": (
        "vllm:\n  speculative_config: x\n  speculative-config: y\n",
        "vllm:\n  speculative_config: x\n  {SC}\n",
    ),
}

# Layouts the text edit does not handle (or whose edit fails the check): the whole document is
# re-emitted, so comments go but every value stays.
FALLBACKS = {
    "flow root": ("{a: 1, vllm: {b: 2}}\n", "a: 1\nvllm:\n  b: 2\n  {SC}\n"),
    "explicit null root": ("~\n", "vllm:\n  {SC}\n"),
    "vllm an alias": ("base: &b\n  x: 1\nvllm: *b\n", "base:\n  x: 1\nvllm:\n  x: 1\n  {SC}\n"),
    # Inserting under `vllm:` would also change `copy`: the check catches it.
    "vllm anchored and shared": ("vllm: &v\n  x: 1\ncopy: *v\n", "vllm:\n  x: 1\n  {SC}\ncopy:\n  x: 1\n"),
    # PyYAML puts merged keys first.
    "vllm through a merge key": (
        "base: &b\n  vllm:\n    x: 1\n<<: *b\n", "vllm:\n  x: 1\n  {SC}\nbase:\n  vllm:\n    x: 1\n"
    ),
}


def _cases(table):
    return [pytest.param(text, want.replace("{SC}", SC), id=name) for name, (text, want) in table.items()]


@pytest.mark.parametrize("text, want", _cases(TEXT_EDITS) + _cases(FALLBACKS))
def test_with_speculative_config(text, want):
    got = with_speculative_config(text, J)
    assert got == want
    assert yaml.load(got.lstrip("\ufeff"), Loader=yaml.CSafeLoader)["vllm"]["speculative-config"] == J
    # Idempotent: the second run replaces the value with itself.
    assert with_speculative_config(got, J) == got


@pytest.mark.parametrize("text, _", _cases(TEXT_EDITS))
def test_text_edits_never_take_the_fallback(text, _, monkeypatch):
    monkeypatch.setattr(textedit, "emit_document", lambda doc: pytest.fail("fallback taken"))
    with_speculative_config(text, J)


def test_tabs_as_separators():
    # libyaml and KAITO's webhook (yaml.v2) accept tabs after `:`; KAITO's inference server reads the file
    # with yaml.safe_load (pure PyYAML), which does not: the function refuses it, naming the place
    # (issue 19 class 7: with libyaml the edit went through, and the pod would fail at start).
    text = "vllm:\t# flags\n  a:\t1\t# t\n"
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)
    with pytest.raises(InferenceConfigError) as err:
        with_speculative_config(text, J)
    assert (err.value.line, err.value.column) == (1, 6)
    assert "yaml.safe_load" in str(err.value) and "the pod fails" in str(err.value)


@pytest.mark.parametrize("text", [
    "vllm:\n  max-model-len:\t4096\n",           # the tab of issue 19 class 7
    "vllm:\n  max-model-len: 4096\t\n",          # after the value
    "vllm: {max-model-len:\t4096}\n",             # in a flow mapping
])
def test_a_tab_the_inference_server_refuses_is_sd125(text):
    from krm_fn.checks.inference_configmap import problem
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)  # KAITO's inference server: inference_api.py, KaitoConfig.from_yaml
    found = problem({"data": {"inference_config.yaml": text}}, "cfg", "Workspace", "ws")
    assert found is not None and found.id == "SD125", found
    assert "yaml.safe_load" in found.message


def test_a_tab_in_a_block_scalars_indentation_is_what_the_webhook_refuses():
    # The other way round: yaml.safe_load (pure PyYAML) reads `\t--x` as the block's text, yaml.v2
    # (libyaml's rules) refuses a tab where the block's indentation spaces are still being counted.
    text = "vllm:\n  served-model-name: |\n     \tx\n"
    assert yaml.safe_load(text) == {"vllm": {"served-model-name": "\tx\n"}}
    from krm_fn.checks.inference_configmap import problem
    found = problem({"data": {"inference_config.yaml": text}}, "cfg", "Workspace", "ws")
    assert found is not None and found.id == "SD125", found
    assert "yaml.safe_load" not in found.message


def test_replace_with_a_new_value():
    first = with_speculative_config("vllm:\n  a: 1  # keep\n", J)
    assert with_speculative_config(first, '{"method":"mtp","num_speculative_tokens":1}') == (
        "vllm:\n  a: 1  # keep\n  speculative-config: '{\"method\":\"mtp\",\"num_speculative_tokens\":1}'\n"
    )


def test_single_quote_in_json_is_doubled():
    got = with_speculative_config("", '{"model":"it\'s"}')
    assert got == "vllm:\n  speculative-config: '{\"model\":\"it''s\"}'\n"
    assert yaml.safe_load(got) == {"vllm": {"speculative-config": '{"model":"it\'s"}'}}


def test_value_that_cannot_be_single_line_takes_the_fallback():
    got = with_speculative_config("vllm:\n  a: 1  # c\n", "line 1\nline 2")
    assert "# c" not in got
    assert yaml.safe_load(got) == {"vllm": {"a": 1, "speculative-config": "line 1\nline 2"}}


@pytest.mark.parametrize(
    "text, message",
    [
        ("- a\n- b\n", "inference_config.yaml: the document must be a mapping, got a sequence"),
        ("just text\n", "inference_config.yaml: the document must be a mapping, got a string"),
        ("vllm: 3\n", "inference_config.yaml: `vllm` must be a mapping, got an integer"),
        ("vllm:\n- a\n", "inference_config.yaml: `vllm` must be a mapping, got a sequence"),
        ("vllm: ''\n", "inference_config.yaml: `vllm` must be a mapping, got a string"),
    ],
)
def test_wrong_shapes_raise(text, message):
    for call in (inspect, lambda t: with_speculative_config(t, J)):
        with pytest.raises(InferenceConfigError) as err:
            call(text)
        assert str(err.value) == message


@pytest.mark.parametrize(
    "text, line, column",
    [
        ("vllm: [1\n", 2, 1),
        ("vllm:\n\ta: 1\n", 2, 1),
        ("a: 1\n a: 2\nb\n", None, None),
    ],
)
def test_bad_yaml_raises(text, line, column):
    for call in (inspect, lambda t: with_speculative_config(t, J)):
        with pytest.raises(InferenceConfigError) as err:
            call(text)
        assert str(err.value).startswith(f"{DATA_KEY}: not valid YAML: ")
        if line is not None:
            assert (err.value.line, err.value.column) == (line, column)
        assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    "text, want",
    [
        (None, Inspection(False, None, False)),
        ("", Inspection(False, None, False)),
        ("# nothing\n", Inspection(False, None, False)),
        ("max_probe_steps: 6\n", Inspection(False, None, False)),
        ("vllm:\n", Inspection(False, None, False)),
        ("vllm:\n  a: 1\n", Inspection(False, None, False)),
        (f"vllm:\n  {SC}\n", Inspection(True, J, False)),
        ("vllm:\n  speculative-config:\n    method: mtp\n", Inspection(True, {"method": "mtp"}, False)),
        ("vllm:\n  speculative-config:\n", Inspection(True, None, False)),
        ("vllm:\n  speculative_config: '{}'\n", Inspection(False, None, True, ("speculative_config",), "{}")),
        ("vllm:\n  speculative_config: a\n  speculative-config: b\n",
         Inspection(True, "b", True, ("speculative_config",), "a")),
        ("vllm:\n  speculative-config.method: ngram\n", Inspection(False, None, False, ("speculative-config.method",))),
        # KAITO (yaml.v2) reads the first document only.
        ("vllm: {a: 1}\n---\nvllm:\n  speculative-config: x\n", Inspection(False, None, False)),
        ("speculative-config: x\n", Inspection(False, None, False)),
        # Timestamps are strings to the program's loader (as to Kubernetes): an impossible date is no error.
        ("a: 2001-13-01\n", Inspection(False, None, False)),
    ],
)
def test_inspect(text, want):
    assert inspect(text) == want


@pytest.mark.parametrize("text, problem", [
    ("vllm:\n  max-model-len: 4096\n", None),
    ("vllm:\n  max-model-len: ' -12 '\n", None),
    ("vllm:\n  max-model-len: ~\n", None),  # yaml.v2: "" , which KAITO skips
    ("vllm:\n  max-model-len: 4k\n", 'max-model-len must be an integer: strconv.Atoi: parsing "4k": invalid syntax'),
    ("vllm:\n  max-model-len: 0x10\n", 'max-model-len must be an integer: strconv.Atoi: parsing "0x10": invalid syntax'),
    ("vllm:\n  max-model-len: 99999999999999999999\n",
     'max-model-len must be an integer: strconv.Atoi: parsing "99999999999999999999": value out of range'),
    ("vllm:\n  a: {b: 1}\n", "Failed to parse inference_config.yaml: yaml: unmarshal errors: line 2: cannot "
                              "unmarshal !!map into string (vllm.a) (write each vllm value as one quoted string)"),
    ("vllm:\n  a: true\n  b: 1.5\n  c: ~\n", None),  # scalars are text to KAITO
    ("- a\n", "Failed to parse inference_config.yaml: yaml: unmarshal errors: line 1: cannot unmarshal !!seq "
              "into v1beta1.InferenceConfig"),
    ("vllm: {}\n---\n[broken\n", None),  # KAITO reads the first document only
    ("vllm:\n  <<: {a: {b: 1}}\n", "Failed to parse inference_config.yaml: yaml: unmarshal errors: line 2: "
                                  "cannot unmarshal !!map into string (vllm.a) (write each vllm value as one quoted "
                                  "string)"),
    ("base: &b {x: '1'}\nvllm:\n  <<: *b\n  y: 2\n", None),
    ("vllm:\n  ? [complex]\n  : 1\n", "Failed to parse inference_config.yaml: yaml: unmarshal errors: line 2: "
                                    "cannot unmarshal !!seq into string (a key under vllm)"),
    ("\ufeffvllm:\r\n  max-model-len: 4k\r\n",
     'max-model-len must be an integer: strconv.Atoi: parsing "4k": invalid syntax'),
])
def test_kaito_problem(text, problem):
    # What the inference-configmap check says of a ConfigMap holding `text`, in KAITO's words.
    found = inference_configmap.problem({"data": {DATA_KEY: text}}, "cfg", "Workspace", "ws")
    assert (found and found.message) == (problem and f'ConfigMap "cfg" referenced by Workspace "ws": {problem}')


def test_edit_keeps_later_documents():
    got = with_speculative_config("vllm:\n  a: 1\n---\nb: [2\n", J)
    assert got == f"vllm:\n  a: 1\n  {SC}\n---\nb: [2\n"


@pytest.mark.parametrize("text, want", [
    (f"vllm:\n  a: 1  # c\n  {SC}\n# end\n", "vllm:\n  a: 1  # c\n# end\n"),
    # the last key: `{}` stays (the comment at the end of its line too, as in items)
    (f"vllm:\n  {SC}  # ours\nz: 1\n", "vllm: {}  # ours\nz: 1\n"),
    (f"vllm: {{a: 1, {SC}}}  # c\n", "vllm: {a: 1}  # c\n"),
    ("vllm:\n  speculative_config: x\n", "vllm:\n  speculative_config: x\n"),  # not ours to remove: unchanged
    ("# nothing\n", "# nothing\n"),
])
def test_without_speculative_config(text, want):
    assert inference_config.without_speculative_config(text) == want


def test_set_and_remove_ops():
    assert inference_config.set_ops(None, J) == [{"op": "add", "path": "", "value": {"vllm": {SC_KEY: J}}}]
    assert inference_config.set_ops({"vllm": None}, J) == [{"op": "add", "path": "/vllm", "value": {SC_KEY: J}}]
    assert inference_config.set_ops({"vllm": {"a": 1}}, J) == [{"op": "add", "path": "/vllm/speculative-config",
                                                                "value": J}]
    assert inference_config.remove_ops({"vllm": {SC_KEY: J}}) == [{"op": "remove", "path": "/vllm/speculative-config"}]
    assert inference_config.remove_ops({"vllm": {"a": 1}}) == [] == inference_config.remove_ops(None)


SC_KEY = "speculative-config"


@pytest.mark.parametrize("raw,expected", [
    ("9" * 5000, "value out of range"),               # no int64; Python would refuse to convert it
    ("0" * 5000 + "12", None),                        # leading zeros: Atoi reads 12
    ("-9223372036854775808", None), ("9223372036854775808", "value out of range"),
])
def test_atoi_of_very_long_numbers(raw, expected):
    from krm_fn.domain.inference_config import atoi_error
    found = atoi_error(raw)
    assert (found is None) if expected is None else found.endswith(expected)
