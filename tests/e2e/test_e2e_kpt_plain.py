"""kpt end to end for plain vLLM workloads (issue #12): `kpt fn eval --exec` and `kpt fn render --allow-exec` on
examples/kpt/plain-vllm/, a package of a Deployment (exec list, with a sidecar), a LeaderWorkerSet (a `sh -c`
script in the leader, an exec list in the workers), a StatefulSet (api_server, a model outside the tuned
table) and an unannotated vLLM Deployment beside a Service."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from e2e_support import (DISABLED, ENABLED, EXAMPLES, assert_golden, assert_render_is_a_fixpoint, clean_env,
                         copy_tree, describe, git_changed, git_diff, git_init,
                         invalid_value_message, kpt_render, run, set_annotation, snapshot,
                         specdec_executable, turn_off)

PACKAGE = EXAMPLES / "kpt" / "plain-vllm"
EXPECTED = PACKAGE / ".expected"
MTP = '{"method":"mtp","num_speculative_tokens":1}'
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
RECORD = "kaito-specdec.dev/speculative-config"


@pytest.fixture
def env():
    return clean_env([specdec_executable().parent])


def package_copy(tmp_path: Path) -> Path:
    pkg = copy_tree(PACKAGE, tmp_path / PACKAGE.name)
    git_init(pkg)
    return pkg


def objects(pkg: Path) -> dict[str, dict]:
    """kind/name -> object, for every YAML document of the package (not the Kptfile)."""
    out = {}
    for path in sorted(pkg.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc:
                out[f"{doc['kind']}/{doc['metadata']['name']}"] = doc
    return out


def test_eval_exec_injects_into_every_vllm_container(kpt, env, tmp_path):
    pkg = package_copy(tmp_path)
    before, data_before = snapshot(pkg), objects(pkg)
    results = tmp_path / "results"
    proc = run([kpt, "fn", "eval", ".", "--results-dir", str(results), "--exec", "kaito-specdec"], pkg, env)
    assert proc.returncode == 0, describe(proc)
    assert_golden(EXPECTED / "diff.patch", git_diff(pkg))
    assert_golden(EXPECTED / "results.yaml", (results / "results.yaml").read_text(encoding="utf-8"))

    after = snapshot(pkg)
    # What is not annotated is byte-identical: the unannotated vLLM Deployment, the Service, the Kptfile.
    assert set(git_changed(pkg)) == {"qwen-deployment.yaml", "deepseek-lws.yaml", "phi-statefulset.yaml"}
    for name in ("untouched.yaml", "Kptfile"):
        assert after[name] == before[name], name
    # Changed files keep every line they had (comments, flow lists): the function only adds.
    for name in git_changed(pkg):
        new_lines = after[name].decode("utf-8").splitlines()
        for line in before[name].decode("utf-8").splitlines():
            if "vllm serve" not in line and '"--headless"]' not in line and "microsoft/Phi-4-mini-instruct]" not in line:
                assert line in new_lines, f"{name}: line lost: {line!r}"

    data = objects(pkg)
    qwen = data["Deployment/qwen"]["spec"]["template"]
    assert qwen["spec"]["containers"][0]["args"] == ["--port", "8000", "--speculative-config=" + MTP]
    assert qwen["spec"]["containers"][1] == data_before["Deployment/qwen"]["spec"]["template"]["spec"]["containers"][1]
    assert qwen["metadata"]["annotations"] == {RECORD: MTP}
    lws = data["LeaderWorkerSet/deepseek"]["spec"]["leaderWorkerTemplate"]
    script = lws["leaderTemplate"]["spec"]["containers"][0]["command"][2]
    assert f"--pipeline-parallel-size 2 --speculative-config='{MTP}' 2>&1 | tee /tmp/vllm.log" in script
    assert lws["workerTemplate"]["spec"]["containers"][0]["command"][-1] == "--speculative-config=" + MTP
    assert lws["leaderTemplate"]["metadata"]["annotations"] == lws["workerTemplate"]["metadata"]["annotations"] \
        == {RECORD: MTP}
    phi = data["StatefulSet/phi"]["spec"]["template"]["spec"]["containers"][0]
    assert phi["args"] == ["--model", "microsoft/Phi-4-mini-instruct", "--speculative-config=" + NGRAM]
    assert data["Deployment/llama"] == data_before["Deployment/llama"]


def test_render_twice_is_a_fixpoint_and_disabling_restores_the_package(kpt, env, tmp_path):
    pkg = package_copy(tmp_path)
    original = snapshot(pkg)

    kpt_render(kpt, pkg, env)
    assert_golden(EXPECTED / "diff.patch", git_diff(pkg))  # the Kptfile pipeline does what eval does
    assert_render_is_a_fixpoint(kpt, pkg, env)

    turn_off(pkg)
    kpt_render(kpt, pkg, env)
    # Exactly the injected arguments and the records go: every file as it was, but for the annotation value.
    expected = {name: content.replace(ENABLED.encode(), DISABLED.encode()) for name, content in original.items()}
    actual = snapshot(pkg)
    assert sorted(actual) == sorted(expected)
    for name in expected:
        assert actual[name].decode("utf-8") == expected[name].decode("utf-8"), name


@pytest.mark.parametrize("verb", ["eval", "render"])
def test_an_invalid_value_on_a_plain_workload_fails_and_changes_nothing(kpt, env, tmp_path, verb):
    pkg = copy_tree(PACKAGE, tmp_path / "package")
    set_annotation(pkg / "phi-statefulset.yaml", '"true"', '"True"')
    git_init(pkg)
    before = snapshot(pkg)
    cmd = ([kpt, "fn", "eval", ".", "--exec", "kaito-specdec"] if verb == "eval"
           else [kpt, "fn", "render", ".", "--allow-exec"])
    proc = run(cmd, pkg, env)
    assert proc.returncode != 0, describe(proc)
    assert invalid_value_message("True") in proc.stderr, describe(proc)
    assert "apps/v1/StatefulSet/llm/phi metadata.annotations[kaito.sh/enable-speculative-decoding]" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(pkg) == before
