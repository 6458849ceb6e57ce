"""Bad input of any kind: an error result, exit 1, never a traceback, never a partial ResourceList (SPEC 6).

stdout is either empty (nothing could be read) or the input ResourceList, every item unchanged, with the
error result appended.
"""
from __future__ import annotations

import subprocess

import pytest
import yaml

from runner import failed_code, run

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
WS = ("- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws\n    annotations:\n"
      "      kaito.sh/enable-speculative-decoding: \"true\"\n  inference:\n    preset:\n      name: phi-4\n")
ITEMS = "items:\n" + WS + "- apiVersion: v1\n  kind: Service\n  metadata: {name: svc} # keep me\n"


def fc(data: str, kind: str = "ConfigMap", key: str = "data") -> str:
    return f"functionConfig:\n  apiVersion: v1\n  kind: {kind}\n  metadata:\n    name: function-input\n  {key}:\n" \
           + "".join(f"    {ln}\n" for ln in data.splitlines())


# (id, input bytes, the words the one error message must hold); stdout must be empty.
UNREADABLE = [
    ("not-yaml", b"apiVersion: v1\nkind: ResourceList\nitems: [a, b\n",
     ["input is not valid YAML", "(line 4, column 1)"]),
    ("not-yaml-mapping-values", b"a: b\nc: d: e\n", ["input is not valid YAML", "(line 2, column 5)"]),
    ("not-yaml-tab", b"items:\n\t- a\n", ["input is not valid YAML", "(line 2, column 1)"]),
    ("control-character", "apiVersion: config.kubernetes.io/v1 # é😀\nitems: [\x01]\n".encode(),
     ["input is not valid YAML", "unacceptable character #x0001", "(line 2, column 9)"]),
    ("not-utf8", b"\xff\xfe" + "items: []".encode("utf-16-le"), ["input is not UTF-8", "byte 0xff at offset 0"]),
    ("latin-1", RL.encode() + b"items: []\n# caf\xe9\n", ["input is not UTF-8", "byte 0xe9 at offset 70"]),
    ("empty", b"", ["input is empty", "expected a ResourceList"]),
    ("whitespace-only", b" \n\t\n  \n", ["input is empty", "expected a ResourceList"]),
    ("comments-only", b"# nothing\n---\n# here\n", ["input holds no YAML document", "expected a ResourceList"]),
    ("items-not-a-list", (RL + "items:\n  a: 1\n").encode(), ["ResourceList.items is not a list", "(line 4, column 3)"]),
    ("items-a-string", (RL + "items: nope\n").encode(), ["ResourceList.items is not a list", "(line 3, column 8)"]),
    ("two-documents", (RL + "items: []\n---\n" + RL + "items: []\n").encode(),
     ["input holds 2 YAML documents", "expected one ResourceList", "kaito-specdec render", "(line 5, column 1)"]),
    ("wrong-kind-at-root", b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n",
     ["input is not a ResourceList", "kind is 'Deployment'", "expected ResourceList or List",
      "(use `kaito-specdec render -` for plain manifests)"]),
    ("no-kind-at-root", b"items: []\n", ["input is not a ResourceList: it has no kind"]),
    ("root-is-a-list", b"- apiVersion: v1\n  kind: Namespace\n", ["input is not a ResourceList", "not a mapping"]),
    ("root-is-a-scalar", b"hello\n", ["input is not a ResourceList", "not a mapping"]),
    ("wrong-resourcelist-api", b"apiVersion: v1\nkind: ResourceList\nitems: []\n",
     ["ResourceList has apiVersion 'v1'", "expected config.kubernetes.io/v1"]),
]


def check_error(code: int, err: str, words: list[str]) -> str:
    assert code == failed_code(err)
    assert "Traceback" not in err
    errors = [ln for ln in err.splitlines() if ln.startswith("[error] ")]
    assert errors, err
    for w in words:
        assert any(w in ln for ln in errors), (w, err)
    return err


@pytest.mark.parametrize("data, words", [c[1:] for c in UNREADABLE], ids=[c[0] for c in UNREADABLE])
def test_unreadable_input(data, words):
    code, out, err = run([], data)
    check_error(code, err, words)
    assert out == ""
    assert len(err.splitlines()) == 1


# (id, whole input text, message words, field.path); stdout: the input, byte for byte, then `results:`.
READABLE_BUT_BAD = [
    ("items-not-mappings", RL + "items:\n- just a string\n- [1, 2]\n" + WS,
     ["items[0] (line 4, column 3) is not a mapping", "every item must be a Kubernetes object"], None),
    ("item-null", RL + "items:\n-\n" + WS, ["items[0] (line 4, column 2) is not a mapping"], None),
    ("no-apiVersion", RL + "items:\n- kind: ConfigMap\n  metadata: {name: a}\n" + WS,
     ["items[0] (line 4, column 3) has no apiVersion"], "apiVersion"),
    ("no-kind", RL + "items:\n" + WS + "- apiVersion: v1\n  metadata: {name: a}\n",
     ["items[1] (line 13, column 3) has no kind"], "kind"),
    ("no-metadata-name", RL + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {}\n",
     ["items[0] (line 4, column 3) has no metadata.name"], "metadata.name"),
    ("no-metadata", RL + "items:\n- apiVersion: v1\n  kind: ConfigMap\n", ["has no metadata.name"], "metadata.name"),
    ("name-not-a-string", RL + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: [a]}\n",
     ["has no metadata.name"], "metadata.name"),
    ("unknown-setting", RL + ITEMS + fc("mode: validate\nfastMode: yes"),
     ["invalid functionConfig", "unknown setting \"fastMode\"", "did you mean mode?"],
     None),
    ("unknown-setting-no-items", RL + "items: []\n" + fc("fastMode: yes  # kept as written"),
     ["invalid functionConfig", "unknown setting \"fastMode\""], None),
    ("bad-mode", RL + ITEMS + fc("mode: fast"),
     ["invalid functionConfig", "mode: invalid value \"fast\"", "materialize, validate"], "functionConfig.data.mode"),
    ("bad-failOn", RL + ITEMS + fc("failOn: info"),
     ["invalid functionConfig", "failOn: invalid value \"info\"", "error, warning"], "functionConfig.data.failOn"),
    ("tunedPresets-not-json", RL + ITEMS + fc("tunedPresets: '{phi-4: mtp'"),
     ["invalid functionConfig", "tunedPresets: not valid JSON"], "functionConfig.data.tunedPresets"),
    ("tunedPresets-bad-config", RL + ITEMS + fc("tunedPresets: '{\"phi-4\": \"{mtp\"}'"),
     ["invalid functionConfig", 'tunedPresets["phi-4"]', "invalid JSON"], "functionConfig.data.tunedPresets"),
    ("tunedPresets-no-method", RL + ITEMS + fc("tunedPresets: '{\"phi-4\": {\"num_speculative_tokens\": 1}}'"),
     ["invalid functionConfig", 'tunedPresets["phi-4"]', "method must be a non-empty string"],
     "functionConfig.data.tunedPresets"),
    ("ngramFallback-bad", RL + ITEMS + fc("ngramFallback: '{\"method\": \"ngram\", \"num_speculative_tokens\": 0}'"),
     ["invalid functionConfig", "ngramFallback", "num_speculative_tokens must be a positive integer"],
     "functionConfig.data.ngramFallback"),
    # Issue 19: ASCII digits only (str.isdigit() and \\d take ٣ and ², int() reads ٣ as 3), no number int()
    # cannot convert (4 300 digits and up), no string no UTF-8 output can carry (a lone surrogate).
    ("kaitoVersion-arabic-indic-digits", RL + ITEMS + fc("kaitoVersion: v٠.١٣.٠"),
     ["invalid functionConfig", 'kaitoVersion: invalid value "v٠.١٣.٠"'], "functionConfig.data.kaitoVersion"),
    ("kaitoVersion-5000-digits", RL + ITEMS + fc("kaitoVersion: '0." + "1" * 5000 + "'"),
     ["invalid functionConfig", "kaitoVersion: invalid value", "expected a KAITO release"],
     "functionConfig.data.kaitoVersion"),
    ("vllmVersion-arabic-indic-digits", RL + ITEMS + fc("vllmVersion: '٠.١١'"),
     ["invalid functionConfig", 'vllmVersion: invalid value "٠.١١"'], "functionConfig.data.vllmVersion"),
    ("vllmVersion-rc-arabic-indic-digits", RL + ITEMS + fc("vllmVersion: 0.11.0rc٢"),
     ["invalid functionConfig", 'vllmVersion: invalid value "0.11.0rc٢"'], "functionConfig.data.vllmVersion"),
    ("tunedPresets-5000-digits", RL + ITEMS + fc(
        "tunedPresets: '{\"phi-4\": {\"method\": \"ngram\", \"num_speculative_tokens\": " + "1" * 5000 + "}}'"),
     ["invalid functionConfig", "tunedPresets: cannot be read: a number of 5000 digits"],
     "functionConfig.data.tunedPresets"),
    ("ngramFallback-5000-digits", RL + ITEMS + fc(
        "ngramFallback: '{\"method\": \"ngram\", \"num_speculative_tokens\": " + "1" * 5000 + "}'"),
     ["invalid functionConfig", "ngramFallback: must be a JSON object", "a number of 5000 digits"],
     "functionConfig.data.ngramFallback"),
    ("tunedPresets-lone-surrogate-name", RL + ITEMS + fc(
        "tunedPresets: '{\"a/\\ud800\": {\"method\": \"ngram\", \"num_speculative_tokens\": 3}}'"),
     ["invalid functionConfig", 'tunedPresets: preset name "a/\\ud800" is not Unicode text'],
     "functionConfig.data.tunedPresets"),
    ("tunedPresets-lone-surrogate-model", RL + ITEMS + fc(
        "tunedPresets: '{\"phi-4\": {\"method\": \"draft_model\", \"model\": \"org/m\\udc80\", "
        "\"num_speculative_tokens\": 3}}'"),
     ["invalid functionConfig", 'tunedPresets["phi-4"]: "org/m\\udc80" is not Unicode text'],
     "functionConfig.data.tunedPresets"),
    ("policy-unknown-setting", RL + ITEMS + fc("mode: validate\nextra: 1", "SpeculativeDecodingPolicy", "spec"),
     ["invalid functionConfig", "unknown setting \"extra\""], None),
    ("functionConfig-wrong-kind", RL + ITEMS + fc("replicas: 1", "Deployment", "spec"),
     ["invalid functionConfig", "kind \"Deployment\"", "expected ConfigMap or SpeculativeDecodingPolicy"], None),
    ("functionConfig-a-list", RL + ITEMS + "functionConfig: [a, b]\n",
     ["invalid functionConfig", "not a mapping"], None),
    ("functionConfig-data-a-list", RL + ITEMS + "functionConfig:\n  kind: ConfigMap\n  data: [mode]\n",
     ["invalid functionConfig", "data is not a mapping"], None),
]


@pytest.mark.parametrize("text, words, field", [c[1:] for c in READABLE_BUT_BAD],
                         ids=[c[0] for c in READABLE_BUT_BAD])
def test_bad_items_and_function_config(text, words, field):
    code, out, err = run([], text.encode())
    check_error(code, err, words)
    # Nothing changed: the input comes back byte for byte (the enabled Workspace is NOT materialized),
    # with the error result(s) appended.
    assert out.startswith(text)
    doc = yaml.safe_load(out)
    assert doc["items"] == yaml.safe_load(text)["items"]
    errors = [r for r in doc["results"] if r["severity"] == "error"]
    assert errors and all(any(w in r["message"] for r in errors) for w in words)
    if field is not None:
        assert any(r.get("field", {}).get("path") == field for r in errors)
    assert out[len(text):].startswith("results:\n")


def test_every_bad_item_is_reported():
    text = RL + "items:\n- 1\n- kind: A\n  metadata: {name: a}\n- apiVersion: v1\n  metadata: {name: b}\n" + WS
    code, out, err = run([], text.encode())
    assert code == 1
    assert [r["message"] for r in yaml.safe_load(out)["results"]] == [
        "items[0] (line 4, column 3) is not a mapping; every item must be a Kubernetes object [SD003]",
        "items[1] (line 5, column 3) has no apiVersion (a non-empty string) [SD003]",
        "items[2] (line 7, column 3) has no kind (a non-empty string) [SD003]",
    ]
    assert len(err.splitlines()) == 3


def test_unhashable_key_in_a_kaito_item_is_an_error_not_a_traceback():
    text = RL + "items:\n" + WS.replace("  inference:\n", "  ? [x]\n  : y\n  inference:\n")
    code, out, err = run([], text.encode())
    check_error(code, err, [""])
    assert "unhashable key" in err
    assert out == "" or out.startswith(text)


def test_malformed_referenced_configmaps_are_named_errors() -> None:
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data: [oops]\n"
    code, out, err = run([], RL + "items:\n" + bad + WS + "    config: cfg\n")
    assert code == 1 and "internal error" not in err
    assert '[error] v1/ConfigMap/cfg data[inference_config.yaml]: ConfigMap "cfg" referenced by Workspace "ws"' in err
    assert out.startswith(RL + "items:\n" + bad)


def test_unreadable_function_config_is_a_named_error() -> None:
    text = RL + "items:\n" + WS + "functionConfig: {kind: SpeculativeDecodingPolicy, spec: {tunedPresets: {? [a] : {x: 1}}}}\n"
    code, out, err = run([], text)
    assert code == 2 and "invalid functionConfig: it cannot be read" in err and "internal error" not in err


def test_deep_nesting_is_a_clear_error() -> None:
    text = RL + "items:\n" + WS + "  x: " + "[" * 3000 + "]" * 3000 + "\n"
    code, out, err = run([], text)
    # Newer libyaml builds refuse such nesting while parsing; older ones leave it to yamlio.
    assert code == 1 and out == "" and err.startswith("[error] ResourceList: input is not valid YAML: ")
    assert "it nests more than 250 levels deep" in err or "exceeded maximum nesting depth" in err
    assert "internal error" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("data", [
    b"\xef\xbb\xbf" + (RL + ITEMS).encode(),
    b"\xef\xbb\xbf" + (RL + "items: []\n").encode(),
], ids=["with-items", "empty-items"])
def test_utf8_bom_is_tolerated(data):
    code, out, err = run([], data)
    assert code == 0 and "[error]" not in err
    assert yaml.safe_load(out)["kind"] == "ResourceList"
    assert "\ufeff" not in out


def test_env_setting_with_a_bad_value():
    code, out, err = run([], (RL + ITEMS).encode(), {"KAITO_SPECDEC_MODE": "fast"})
    check_error(code, err, ["mode: invalid value \"fast\""])
    assert out == "" or out.startswith(RL + ITEMS)


@pytest.mark.parametrize("data, words", [
    (b"items: [\n", ["input is not valid YAML", "line 2, column 1"]),
    (b"\xff\xfe\x00\x00", ["input is not UTF-8"]),
    ((RL + ITEMS + fc("mode: fast")).encode(), ["invalid functionConfig", "mode: invalid value \"fast\""]),
], ids=["not-yaml", "not-utf8", "bad-functionConfig"])
def test_installed_command_never_prints_a_traceback(data, words):
    proc = subprocess.run(["kaito-specdec"], input=data, capture_output=True, timeout=60)
    err = proc.stderr.decode()
    check_error(proc.returncode, err, words)
    assert proc.stdout == b"" or proc.stdout.decode().startswith(RL + ITEMS)


# --- issue 19: no traceback, whatever a setting, a name or an output holds -------------------------------

SIZES = ["²", "٣Mi", "1" * 5000, "0" * 5000 + "1", "1" * 19 + "Gi"]


@pytest.mark.parametrize("value", SIZES, ids=["superscript-two", "arabic-indic", "5000-digits", "leading-zeros",
                                              "19-digits"])
@pytest.mark.parametrize("name", ["KAITO_SPECDEC_MAX_INPUT", "ARGOCD_ENV_KAITO_SPECDEC_MAX_INPUT"])
def test_max_input_takes_ascii_digits_only(name, value):
    """str.isdigit() is true for ² (int() then raises) and ٣ (int() reads 3); int() refuses 4 300 digits."""
    code, out, err = run([], (RL + ITEMS).encode(), {name: value})
    assert (code, out) == (2, "")
    assert err == f"[error] environment variable {name}: invalid size {value!r}; expected a positive number of " \
                  "bytes, optionally with Ki, Mi or Gi (e.g. 512Mi) [SD021]\n"


SURROGATE_NAME = '{"a/\\ud800": {"method": "ngram", "num_speculative_tokens": 3}}'
SURROGATE_MODEL = '{"phi-4": {"method": "draft_model", "model": "org/m\\udc80", "num_speculative_tokens": 3}}'


@pytest.mark.parametrize("argv", [[], ["presets"], ["presets", "--json"], ["render", "-"]])
@pytest.mark.parametrize("presets", [SURROGATE_NAME, SURROGATE_MODEL], ids=["name", "model"])
def test_a_lone_surrogate_in_tuned_presets_is_a_named_error(argv, presets):
    """JSON's \\ud800 escape without its pair is no Unicode text: the ResourceList, a derived ConfigMap or the
    `presets` table cannot carry it in UTF-8 (`presets` used to end in a UnicodeEncodeError)."""
    stdin = (RL + ITEMS).encode() if not argv else WS[2:].replace("\n  ", "\n").encode()
    code, out, err = run(argv, stdin, {"KAITO_SPECDEC_TUNED_PRESETS": presets})
    assert code == 2 and "is not Unicode text" in err and "Traceback" not in err
    assert "environment variable KAITO_SPECDEC_TUNED_PRESETS" in err and len(err.splitlines()) == 1
    out.encode("utf-8")  # whatever is written is UTF-8 (KRM mode: the input and the error result)
    assert out == "" or yaml.safe_load(out)["results"][0]["tags"]["id"] in ("SD021", "SD021")


@pytest.mark.parametrize("argv", [["presets"], ["presets", "--json"]])
def test_presets_config_with_a_lone_surrogate_real_process(tmp_path, argv):
    """The same through a real stdout (UTF-8, strict), with the setting in a --config file."""
    config = tmp_path / "fc.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n"
                      f"  tunedPresets: '{SURROGATE_NAME}'\n")
    proc = subprocess.run(["kaito-specdec", *argv, "--config", str(config)], capture_output=True, timeout=60)
    err = proc.stderr.decode()
    assert (proc.returncode, proc.stdout) == (2, b"") and "Traceback" not in err
    assert err.startswith("[error] ") and 'tunedPresets: preset name "a/\\ud800" is not Unicode text' in err
    assert len(err.splitlines()) == 1


def _with_config(data: str) -> str:
    return (RL + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cfg\n  data:\n"
            "    inference_config.yaml: |\n      vllm:\n" + "".join(f"        {ln}\n" for ln in data.splitlines())
            + WS + "    config: cfg\n")


@pytest.mark.parametrize("tokens", ["1" * 5000 + "k", "1" * 5000 + "K"], ids=["decimal", "binary"])
def test_a_dotted_value_too_large_for_a_number_is_a_finding(tokens):
    """vLLM's human_readable_int (`5k`) on thousands of digits: int(inf) or int() past 4 300 digits."""
    code, out, err = run([], _with_config(f"speculative-config.method: ngram\n"
                                          f"speculative-config.num_speculative_tokens: {tokens}"))
    assert code == 1 and "internal error" not in err and "Traceback" not in err
    assert "num_speculative_tokens is " in err and "[SD607]" in err


def test_a_cron_number_with_thousands_of_leading_zeros_is_read():
    """robfig/cron's Atoi reads `000…01` as 1; int() of the whole text refuses 4 300 digits."""
    mri = ("- apiVersion: kaito.sh/v1beta1\n  kind: InferenceSet\n  metadata:\n    name: iset\n  spec:\n"
           "    replicas: 1\n    labelSelector:\n      matchLabels:\n        apps: iset\n    autoUpgrade:\n"
           "      enabled: true\n      maintenanceWindow:\n        schedule: \"" + "0" * 5000 + "61 2 * * *\"\n"
           "        duration: 2h\n    template:\n      metadata:\n        annotations:\n"
           "          kaito.sh/enable-speculative-decoding: \"true\"\n"
           "      resource:\n        instanceType: Standard_NC24ads_A100_v4\n"
           "      inference:\n        preset:\n          name: microsoft/Phi-4-mini-instruct\n")
    code, out, err = run([], RL + "items:\n" + mri)
    assert code == 1 and "internal error" not in err
    assert "end of range (61) above maximum (59)" in err and "[SD143]" in err


def test_kpt_index_annotation_takes_ascii_digits_only():
    """kyaml reads config.kubernetes.io/index with strconv.Atoi; int() would read ٣ as 3."""
    ws = WS.replace("    annotations:\n", "    annotations:\n      config.kubernetes.io/path: p.yaml\n"
                                         "      config.kubernetes.io/index: '٣'\n")
    code, out, err = run([], RL + "items:\n" + ws.replace('"true"', '"maybe"'))
    assert code == 1 and err.startswith("p.yaml: [error] ") and "(document" not in err


# A finding on an item whose name, namespace and kpt path hold line breaks, a carriage return and an escape
# sequence: stderr (all kustomize users see) shows each finding on one line, nothing starts a forged one.
FORGED = (RL + "items:\n- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n"
          "    name: \"ws\\n[error] FORGED name\"\n    namespace: \"ns\\r\\e[31m\\u2028\"\n    annotations:\n"
          "      kaito.sh/enable-speculative-decoding: \"maybe\"\n"
          "      internal.config.kubernetes.io/path: \"a\\n[error] FORGED path.yaml\"\n"
          "  inference:\n    preset:\n      name: phi-4\n")


def test_names_and_paths_cannot_forge_stderr_lines():
    code, out, err = run([], FORGED)
    findings = [r for r in yaml.safe_load(out)["results"] if r["severity"] != "info"]
    assert code == 1 and len(findings) >= 2
    lines = err.splitlines()
    assert len(lines) == len(findings) and not any(ln.startswith("[error] FORGED") for ln in lines)
    assert all(ln.startswith("a\\n[error] FORGED path.yaml: [error] kaito.sh/v1beta1/Workspace/"
                             "ns\\r\\x1b[31m\\u2028/ws\\n[error] FORGED name ") for ln in lines), err
    assert findings[0]["resourceRef"]["name"] == "ws\n[error] FORGED name"  # the ResourceList: data as it is
