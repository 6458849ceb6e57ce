"""The command line (SPEC 7): KRM mode, `render`, `presets`, `--help`, `--version`, environment settings."""
from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys

import pytest
import yaml

import krm_fn
from runner import failed_code, run

MTP_JSON = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM_JSON = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
DERIVED = re.compile(r"specdec-mtp-[a-z0-9]+")

CONFIG_DOCS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: one # stays
  annotations:
    config.kubernetes.io/path: '01-config.yaml'
    config.kubernetes.io/index: '0'
    internal.config.kubernetes.io/path: '01-config.yaml'
    internal.config.kubernetes.io/index: '0'
    config.k8s.io/id: '1'
    kustomize.config.k8s.io/id: |
      kind: ConfigMap
      name: one
data:
  flag: "true"
  version: 1.10
---
apiVersion: v1
kind: Service
metadata:
  name: two
  annotations:
    internal.config.kubernetes.io/seqindent: compact
    team: ml
spec:
  ports: [{port: 80}]
"""

WORKSPACE = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: ds
  namespace: ml
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
resource:
  instanceType: Standard_ND96isr_H200_v5
inference:
  preset:
    name: deepseek-r1-0528
"""

NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n"

# What render prints for CONFIG_DOCS: orchestrator annotations gone (an emptied annotations key with them),
# everything else as written.
CONFIG_RENDERED = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: one # stays
data:
  flag: "true"
  version: 1.10
---
apiVersion: v1
kind: Service
metadata:
  name: two
  annotations:
    team: ml
spec:
  ports: [{port: 80}]
"""


def docs(stream: str) -> list[str]:
    """The documents of a render output, each without its leading `---` line."""
    assert stream.startswith("---\n")
    return re.split(r"^---\n", stream, flags=re.M)[1:]


@pytest.fixture
def package(tmp_path):
    """A folder: nested, *.yaml and *.yml, plus files render must ignore (one is not even YAML)."""
    (tmp_path / "02-apps").mkdir()
    (tmp_path / "01-config.yaml").write_text(CONFIG_DOCS)
    (tmp_path / "02-apps" / "03-workspace.yml").write_text(WORKSPACE)
    (tmp_path / "04-last.yaml").write_text("---\n" + NAMESPACE + "---\n")
    (tmp_path / "README.md").write_text("# not: [yaml\n")
    (tmp_path / "notes.txt").write_text("{{ nope\n")
    (tmp_path / "02-apps" / "values.json").write_text("{not json")
    (tmp_path / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: x\n")
    return tmp_path


def check_rendered(out: str) -> str:
    d = docs(out)
    assert len(d) == 5
    assert "".join("---\n" + x for x in d[:2]) == CONFIG_RENDERED
    # The derived ConfigMap comes before the Workspace it serves (`kubectl apply -f` applies in order, and
    # KAITO's webhook refuses a Workspace whose ConfigMap does not exist yet).
    m = re.fullmatch(re.escape(WORKSPACE) + r"  config: (specdec-mtp-[a-z0-9]+)\n", d[3])
    assert m, d[3]
    name = m.group(1)
    cm = yaml.safe_load(d[2])
    assert (cm["kind"], cm["metadata"]["name"], cm["metadata"]["namespace"]) == ("ConfigMap", name, "ml")
    assert yaml.safe_load(cm["data"]["inference_config.yaml"]) == {"vllm": {"speculative-config": MTP_JSON}}
    assert "config.kubernetes.io" not in d[2] and "config.k8s.io" not in d[2]
    assert d[4] == NAMESPACE
    return name


# --- render ---------------------------------------------------------------------------------------------

def test_render_folder(package):
    code, out, err = run(["render", str(package)])
    assert (code, err) == (0, "")
    check_rendered(out)


def test_render_stdin_equals_render_folder(package):
    stream = CONFIG_DOCS + "---\n" + WORKSPACE + "---\n" + NAMESPACE
    code, out, err = run(["render", "-"], stream.encode())
    assert (code, err) == (0, "")
    assert out == run(["render", str(package)])[1]


def test_render_files_in_the_order_given(package):
    code, out, _ = run(["render", str(package / "04-last.yaml"), str(package / "01-config.yaml")])
    assert code == 0
    assert out == "---\n" + NAMESPACE + CONFIG_RENDERED


def test_render_skips_empty_documents():
    stream = "---\n# Source: chart/templates/empty.yaml\n---\n# Source: chart/templates/ns.yaml\n" + NAMESPACE + "---\n"
    # The empty document goes; the comment heading the Namespace's own document stays with it.
    assert run(["render", "-"], stream.encode()) == (0, "---\n# Source: chart/templates/ns.yaml\n" + NAMESPACE, "")


def test_render_unwraps_a_v1_list():
    stream = ("apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n"
              "      name: a\n      annotations:\n        config.kubernetes.io/index: '0'\n    data:\n"
              "      x: |\n        multi\n          line\n  - " + NAMESPACE.replace("\n", "\n    ").rstrip(" "))
    code, out, err = run(["render", "-"], stream.encode())
    assert (code, err) == (0, "")
    assert out == ("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: |\n    multi\n"
                   "      line\n---\n" + NAMESPACE)


def test_render_mode_validate_changes_nothing(package):
    code, out, err = run(["render", "--mode", "validate", str(package)])
    assert (code, err) == (0, "")
    assert out == CONFIG_RENDERED + "---\n" + WORKSPACE + "---\n" + NAMESPACE


def test_render_config_file(package, tmp_path_factory):
    cfg = tmp_path_factory.mktemp("cfg") / "policy.yaml"
    cfg.write_text("apiVersion: kaito.sh/v1alpha1\nkind: SpeculativeDecodingPolicy\nmetadata:\n  name: p\nspec:\n"
                   "  tunedPresets: '{\"deepseek-r1-0528\": {\"method\": \"mtp\", \"num_speculative_tokens\": 3}}'\n")
    code, out, err = run(["render", "--config", str(cfg), str(package)])
    assert (code, err) == (0, "")
    cm = yaml.safe_load(docs(out)[2])
    assert yaml.safe_load(cm["data"]["inference_config.yaml"]) == \
        {"vllm": {"speculative-config": '{"method":"mtp","num_speculative_tokens":3}'}}
    # a ConfigMap functionConfig file works too, and --mode beats the file
    cfg.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  mode: validate\n")
    assert run(["render", "--config", str(cfg), str(package)])[1] == \
        CONFIG_RENDERED + "---\n" + WORKSPACE + "---\n" + NAMESPACE
    check_rendered(run(["render", "--config", str(cfg), "--mode", "materialize", str(package)])[1])


@pytest.mark.parametrize("content, words", [
    ("apiVersion: v1\nkind: ConfigMap\ndata:\n  mode: fast\n", ["mode: invalid value \"fast\""]),
    ("kind: [\n", ["not a valid functionConfig"]),
])
def test_render_bad_config_file(package, tmp_path_factory, content, words):
    cfg = tmp_path_factory.mktemp("cfg") / "bad.yaml"
    cfg.write_text(content)
    code, out, err = run(["render", "--config", str(cfg), str(package)])
    assert (code, out) == (2, "")
    assert err.startswith("[error] ") and all(w in err for w in words) and "Traceback" not in err


def test_render_errors_go_to_stderr_and_nothing_to_stdout(package):
    ws = package / "02-apps" / "03-workspace.yml"
    ws.write_text(WORKSPACE.replace('"true"', '"yes"'))
    code, out, err = run(["render", str(package)])
    assert (code, out) == (1, "")
    # file:line of the field (issue 9): line 7 is the annotation
    assert err == (f'{ws}:7: [error] kaito.sh/v1beta1/Workspace/ml/ds metadata.annotations[kaito.sh/enable-speculative-decoding]: '
                   'annotation kaito.sh/enable-speculative-decoding has invalid value "yes"; expected "true" or "false" [SD101]\n')


def test_render_warnings_go_to_stderr_only(package):
    ws = package / "02-apps" / "03-workspace.yml"
    ws.write_text(WORKSPACE + "  config: elsewhere\n")
    code, out, err = run(["render", str(package)])
    assert code == 0
    assert err.startswith(f"{ws}:13: [warning] kaito.sh/v1beta1/Workspace/ml/ds inference.config: ")
    assert len(err.splitlines()) == 1 and '"elsewhere"' in err
    # stdout: only the documents, the Workspace unchanged (KAITO decides in the cluster)
    assert out == CONFIG_RENDERED + "---\n" + WORKSPACE + "  config: elsewhere\n---\n" + NAMESPACE
    assert all(isinstance(d, dict) for d in yaml.safe_load_all(out))


@pytest.mark.parametrize("argv, words", [
    (["render", "/nonexistent/dir/x.yaml"], ["/nonexistent/dir/x.yaml", "No such file or directory"]),
    (["render", "-"], []),
])
def test_render_unreadable_path(argv, words):
    code, out, err = run(argv, b"a: [\n")
    assert (code, out) == (failed_code(err), "")  # 2: a path it cannot open; 1: no YAML
    assert "[error] " in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert all(w in err for w in words)


def test_render_bad_yaml_names_the_file(package):
    (package / "05-broken.yaml").write_text("apiVersion: v1\nkind: [\n")
    code, out, err = run(["render", str(package)])
    assert (code, out) == (1, "")
    assert err.startswith(f"{package / '05-broken.yaml'}:3: [error] input is not valid YAML")
    assert "line 3, column 1" in err


# --- KRM mode -------------------------------------------------------------------------------------------

def krm_input(fc: str = "") -> bytes:
    items = "items:\n" + "".join("- " + "".join(("  " if i else "") + ln for i, ln in enumerate(
        d.splitlines(True))) for d in (WORKSPACE, NAMESPACE))
    return (RL + items + fc).encode()


def test_krm_mode_stdin_to_stdout():
    code, out, err = run([], krm_input())
    assert (code, err) == (0, "")  # info results are not printed
    doc = yaml.safe_load(out)
    assert doc["kind"] == "ResourceList"
    assert DERIVED.fullmatch(doc["items"][0]["inference"]["config"])
    assert [i["kind"] for i in doc["items"]] == ["Workspace", "ConfigMap", "Namespace"]
    # SD301, and SD426: kaitoVersion not set, the v0.11-v0.12 note is an info where no render is evident; SD428:
    # neither kaitoVersion nor vllmVersion set, the vLLM release the workload was judged by.
    assert [(r["severity"], r["tags"]["id"]) for r in doc["results"]] == [
        ("info", "SD428"), ("info", "SD301"), ("info", "SD426")]


def test_krm_mode_warning_on_stderr_and_in_results():
    data = krm_input().replace(b"      name: deepseek-r1-0528\n", b"      name: deepseek-r1-0528\n    config: gone\n")
    code, out, err = run([], data)
    assert code == 0
    assert err.startswith("[warning] kaito.sh/v1beta1/Workspace/ml/ds inference.config: ")
    assert [r["severity"] for r in yaml.safe_load(out)["results"]] == ["warning"]
    assert out.startswith(data.decode())
    # failOn: warning makes it fail the run
    fc = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: f}\n  data:\n    failOn: warning\n"
    code, out, err = run([], data + fc.encode())
    assert code == 1 and err.startswith("[warning] ")


FC_MATERIALIZE = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n" \
                 "  data:\n    mode: materialize\n"


@pytest.mark.parametrize("env, fc, materialized", [
    ({}, "", True),
    ({"KAITO_SPECDEC_MODE": "validate"}, "", False),
    ({"ARGOCD_ENV_KAITO_SPECDEC_MODE": "validate"}, "", False),
    ({"KAITO_SPECDEC_MODE": "validate"}, FC_MATERIALIZE, True),  # the functionConfig wins
    ({"KAITO_SPECDEC_MODE": ""}, "", True),
], ids=["default", "env-validate", "argocd-env-validate", "functionConfig-wins", "empty-env"])
def test_environment_settings(env, fc, materialized):
    data = krm_input(fc)
    code, out, err = run([], data, env)
    assert (code, err) == (0, "")
    if materialized:
        assert DERIVED.search(out) and len(yaml.safe_load(out)["items"]) == 3
    else:
        assert out.startswith(data.decode()) and out[len(data):].startswith("results:\n")
        assert len(yaml.safe_load(out)["items"]) == 2


def test_render_honours_environment(package):
    code, out, _ = run(["render", str(package)], env={"KAITO_SPECDEC_MODE": "validate"})
    assert code == 0 and out == CONFIG_RENDERED + "---\n" + WORKSPACE + "---\n" + NAMESPACE
    code, out, _ = run(["render", "--mode", "materialize", str(package)], env={"KAITO_SPECDEC_MODE": "validate"})
    check_rendered(out)


# --- presets --------------------------------------------------------------------------------------------

# SPEC 4.1, with the two legacy names of 4.2 that lead there.
TUNED = {"deepseek-ai/deepseek-r1-0528", "deepseek-ai/deepseek-v3-0324", "deepseek-ai/deepseek-v3.2",
         "zai-org/glm-5.2-fp8", "nvidia/deepseek-v4-flash-nvfp4", "xiaomimimo/mimo-7b-base", "qwen/qwen3.5-2b",
         "qwen/qwen3.5-4b", "qwen/qwen3.5-9b", "qwen/qwen3.5-122b-a10b-gptq-int4", "qwen/qwen3.5-122b-a10b",
         "qwen/qwen3.5-397b-a17b-gptq-int4", "qwen/qwen3.6-35b-a3b-fp8", "qwen/qwen3.6-35b-a3b", "qwen/qwen3.6-27b"}
LEGACY = {"deepseek-r1-0528": "deepseek-ai/deepseek-r1-0528", "deepseek-v3-0324": "deepseek-ai/deepseek-v3-0324"}


def test_presets_human_readable():
    code, out, err = run(["presets"])
    assert (code, err) == (0, "")
    tuned_section = out.split("\n\n")[0].splitlines()
    assert tuned_section[0] == "Tuned presets:"
    names = set()
    for line in tuned_section[1:]:
        name, cfg = line.split()
        assert cfg == MTP_JSON
        names.add(LEGACY.get(name.lower(), name.lower()))
    assert names == TUNED
    assert "  gemma-3-27b-instruct" in out and "google/gemma-3-27b-it" in out
    assert out.endswith(f"\n  {NGRAM_JSON}\n")


def test_presets_json():
    code, out, err = run(["presets", "--json"])
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert {LEGACY.get(k.lower(), k.lower()) for k in doc["tuned"]} == TUNED
    assert all(json.dumps(v, separators=(",", ":"), sort_keys=True) == MTP_JSON for v in doc["tuned"].values())
    assert json.dumps(doc["fallback"], separators=(",", ":"), sort_keys=True) == NGRAM_JSON
    assert doc["aliases"]["mistral-7b-instruct"] == "mistralai/mistral-7b-instruct-v0.3"
    assert len(doc["aliases"]) == 25


MINE = '{"method":"eagle","model":"org/draft","num_speculative_tokens":3}'


def test_presets_honours_config_file(tmp_path):
    cfg = tmp_path / "fc.yaml"
    cfg.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n  tunedPresets: |\n"
                   f"    {{\"org/my-model\": {MINE}}}\n"
                   "  ngramFallback: '{\"method\":\"ngram\",\"num_speculative_tokens\":2,\"prompt_lookup_max\":3}'\n")
    code, out, err = run(["presets", "--json", "--config", str(cfg)])
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["tuned"]["org/my-model"] == json.loads(MINE)
    assert doc["fallback"] == {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}
    code, out, _ = run(["presets", "--config", str(cfg)])
    assert "org/my-model" in out and out.endswith('\n  {"method":"ngram","num_speculative_tokens":2,'
                                                 '"prompt_lookup_max":3}\n')


def test_presets_honours_environment():
    env = {"ARGOCD_ENV_KAITO_SPECDEC_TUNED_PRESETS": json.dumps({"org/env-model": json.loads(MINE)})}
    code, out, err = run(["presets", "--json"], env=env)
    assert (code, err) == (0, "")
    assert json.loads(out)["tuned"]["org/env-model"] == json.loads(MINE)


def test_presets_bad_settings_are_an_error(tmp_path):
    code, out, err = run(["presets"], env={"KAITO_SPECDEC_TUNED_PRESETS": "{not json"})
    assert (code, out) == (2, "")
    assert err.startswith("[error] environment variable KAITO_SPECDEC_TUNED_PRESETS")


# --- --help, --version, the installed command -------------------------------------------------------------

VERSION = importlib.metadata.version("kaito-specdec")


@pytest.mark.parametrize("cmd", [["kaito-specdec"], [sys.executable, "-m", "krm_fn"]], ids=["script", "python-m"])
def test_version_and_help_subprocess(cmd):
    proc = subprocess.run(cmd + ["--version"], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"kaito-specdec {VERSION}\n", "")
    assert krm_fn.__version__ == VERSION
    proc = subprocess.run(cmd + ["--help"], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith("usage: kaito-specdec")
    assert all(w in proc.stdout for w in ("render", "presets", "--version", "KAITO_SPECDEC_MODE"))


def test_krm_mode_subprocess():
    proc = subprocess.run(["kaito-specdec"], input=krm_input(), capture_output=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert DERIVED.search(proc.stdout.decode())


def test_unknown_command_is_a_usage_error_not_a_traceback():
    proc = subprocess.run(["kaito-specdec", "bogus"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "invalid choice: 'bogus'" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv, text", [(["--version"], f"kaito-specdec {VERSION}\n"),
                                        (["--help"], "usage: kaito-specdec")])
def test_help_and_version_in_process(argv, text, capsys):
    code, out, err = run(argv)
    assert code == 0 and out.startswith(text) and err == ""
