"""kpt end to end: `kpt fn eval --exec`, `kpt fn render --allow-exec` (mutator and validator pipelines) and
`kpt fn eval --image` through a docker stand-in, on the packages in examples/kpt/."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from e2e_support import (DISABLED, ENABLED, EXAMPLES, IMAGE, assert_golden, assert_render_is_a_fixpoint,
                         clean_env, copy_tree, describe, git_changed, git_commit, git_diff, git_init,
                         invalid_value_message, kpt_render, run, set_annotation, snapshot,
                         specdec_executable, turn_off, write_docker_standin)

PACKAGE = EXAMPLES / "kpt" / "package"
VALIDATE = EXAMPLES / "kpt" / "validate"
EXPECTED = PACKAGE / ".expected"
OFF = re.compile(r"specdec-off-[0-9a-f]{10}")
OFF_LINE = re.compile(rb"^ *config: specdec-off-[0-9a-f]{10}\n", re.M)


def without_off(files: dict[str, bytes]) -> dict[str, bytes]:
    """kaitoVersion not set, a disabled Workspace the function gave a config made from none, or that says
    "false" and names none, points at specdec-off-<hash> (its file one more): the package but for those."""
    return {name: OFF_LINE.sub(b"", content) for name, content in files.items() if not OFF.match(name)}


@pytest.fixture(scope="module")
def fn() -> Path:
    return specdec_executable()


@pytest.fixture
def env(fn, tmp_path):
    # The installed function first on PATH, so `exec: kaito-specdec` finds it (not a pyenv shim).
    return clean_env([fn.parent])


def package_copy(tmp_path: Path, src: Path = PACKAGE) -> Path:
    pkg = copy_tree(src, tmp_path / src.name)
    git_init(pkg)
    return pkg


def eval_args() -> list[str]:
    config = yaml.safe_load((EXPECTED / "config.yaml").read_text(encoding="utf-8"))
    assert config["testType"] == "eval"
    args = ["--exec", config["execPath"]]
    fn_args = [f"{k}={v}" for k, v in (config.get("args") or {}).items()]
    return args + (["--", *fn_args] if fn_args else [])


def results_text(results_dir: Path) -> str:
    return (results_dir / "results.yaml").read_text(encoding="utf-8")


def comment_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if "#" in ln]


def test_eval_exec_matches_expected_diff(kpt, env, tmp_path):
    pkg = package_copy(tmp_path)
    before = snapshot(pkg)
    config = yaml.safe_load((EXPECTED / "config.yaml").read_text(encoding="utf-8"))
    results = tmp_path / "results"
    proc = run([kpt, "fn", "eval", ".", "--results-dir", str(results), *eval_args()], pkg, env)
    assert proc.returncode == config["exitCode"], describe(proc)

    assert_golden(EXPECTED / "diff.patch", git_diff(pkg))
    assert_golden(EXPECTED / "results.yaml", results_text(results))

    after = snapshot(pkg)
    changed = set(git_changed(pkg))
    # Resources the function does not change: byte-identical files.
    for unchanged in ("Kptfile", "phi-4-inference.yaml", "service.yaml", "workspace-override.yaml", ".krmignore"):
        assert unchanged not in changed
        assert after[unchanged] == before[unchanged], unchanged
    # Changed files keep every comment line they had.
    for name in changed:
        if name in before:
            new_text = after[name].decode("utf-8")
            for line in comment_lines(before[name].decode("utf-8")):
                assert line in new_text.splitlines(), f"{name}: comment line lost: {line!r}"
    # What the function is for: every enabled workload now references a ConfigMap holding the config.
    docs = [d for p in pkg.glob("*.yaml") for d in yaml.safe_load_all(p.read_text(encoding="utf-8")) if d]
    cms = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    ws = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Workspace"}
    derived = cms[ws["workspace-phi-4"]["inference"]["config"]]
    assert ("speculative-config: '{\"method\":\"ngram\",\"num_speculative_tokens\":5,\"prompt_lookup_max\":4}'"
            in derived["data"]["inference_config.yaml"])
    assert "max-model-len: 8192 # fits one A100" in derived["data"]["inference_config.yaml"]
    tuned = cms[ws["workspace-deepseek-r1"]["inference"]["config"]]
    assert '{"method":"mtp","num_speculative_tokens":1}' in tuned["data"]["inference_config.yaml"]
    assert ws["workspace-phi-4-mini-override"]["inference"]["config"] == "my-speculative-config"
    # kaitoVersion not set: a disabled Workspace keeps a config reference, one safe on every release.
    assert OFF.fullmatch(ws["workspace-llama"]["inference"]["config"])


def test_render_twice_is_a_fixpoint_and_disabling_restores_the_package(kpt, env, tmp_path):
    pkg = package_copy(tmp_path)
    original = snapshot(pkg)

    kpt_render(kpt, pkg, env)
    # The Kptfile pipeline runs the same function with the same settings as the eval case.
    assert_golden(EXPECTED / "diff.patch", git_diff(pkg))
    assert_render_is_a_fixpoint(kpt, pkg, env)

    # Turn the feature off everywhere: the package returns to its original files, except for the
    # annotation values themselves; the derived ConfigMaps' files are deleted, but for those the Workspaces an
    # InferenceSet or MultiRoleInference already has still mount (KAITO keeps their config): kept, marked
    # for it (SD422), until the user deletes them once those Workspaces are recreated.
    # With kaitoVersion not set, the Workspaces without a config of their own point at specdec-off-<hash>.
    turn_off(pkg)
    kpt_render(kpt, pkg, env)
    expected = {name: content.replace(ENABLED.encode(), DISABLED.encode())
                for name, content in original.items()}
    actual = snapshot(pkg)
    assert sorted(n for n in actual if OFF.match(n)) and b"config: specdec-off-" in actual["workspace-deepseek.yaml"]
    actual = without_off(actual)
    kept = sorted(set(actual) - set(expected))
    assert kept and set(expected) <= set(actual)
    for name in kept:
        assert b"kaito-specdec.dev/kept-for: " in actual[name], name
    for name in expected:
        assert actual[name].decode("utf-8") == expected[name].decode("utf-8"), name
    for name in kept:
        (pkg / name).unlink()
    kpt_render(kpt, pkg, env)
    assert without_off(snapshot(pkg)) == expected


@pytest.mark.parametrize("verb", ["eval", "render"])
def test_invalid_annotation_fails_and_leaves_files_unchanged(kpt, env, tmp_path, verb):
    pkg = copy_tree(PACKAGE, tmp_path / "package")
    set_annotation(pkg / "workspace-phi-4.yaml", '"true"', '"True"')
    git_init(pkg)
    before = snapshot(pkg)
    cmd = ([kpt, "fn", "eval", ".", *eval_args()] if verb == "eval"
           else [kpt, "fn", "render", ".", "--allow-exec"])
    proc = run(cmd, pkg, env)
    assert proc.returncode != 0, describe(proc)
    assert invalid_value_message("True") in proc.stderr, describe(proc)
    assert "workspace-phi-4" in proc.stderr
    assert snapshot(pkg) == before
    assert git_changed(pkg) == []


def test_validator_package_passes_unchanged_and_fails_on_invalid(kpt, env, tmp_path):
    pkg = package_copy(tmp_path, VALIDATE)
    before = snapshot(pkg)
    ok = run([kpt, "fn", "render", ".", "--allow-exec"], pkg, env)
    assert ok.returncode == 0, describe(ok)
    assert snapshot(pkg) == before, "mode validate must not change the package"

    set_annotation(pkg / "inferenceset.yaml", '"true"', '"yes"')
    git_commit(pkg, "invalid")
    before = snapshot(pkg)
    bad = run([kpt, "fn", "render", ".", "--allow-exec"], pkg, env)
    assert bad.returncode != 0, describe(bad)
    assert invalid_value_message("yes") in bad.stderr, describe(bad)
    assert "spec.template.metadata.annotations[kaito.sh/enable-speculative-decoding]" in bad.stderr
    assert snapshot(pkg) == before


def test_eval_image_through_docker_standin_matches_exec(kpt, fn, tmp_path):
    """`kpt fn eval --image` drives the real container runtime code of kpt; the stand-in answers
    `docker version` and runs the function for `docker run`."""
    bin_dir = tmp_path / "bin"
    log = write_docker_standin(bin_dir, fn)
    env = clean_env([bin_dir])
    pkg = package_copy(tmp_path)
    config = yaml.safe_load((EXPECTED / "config.yaml").read_text(encoding="utf-8"))
    fn_args = [f"{k}={v}" for k, v in (config.get("args") or {}).items()]
    proc = run([kpt, "fn", "eval", ".", "--image", IMAGE, "--image-pull-policy", "never", "--", *fn_args],
               pkg, env)
    assert proc.returncode == 0, describe(proc)
    assert_golden(EXPECTED / "diff.patch", git_diff(pkg))
    calls = log.read_text(encoding="utf-8").splitlines()
    runs = [c for c in calls if c.startswith("run ")]
    assert len(runs) == 1, calls
    assert re.search(r"--network none --user nobody --security-opt=no-new-privileges", runs[0]), runs[0]
    assert runs[0].endswith(IMAGE)


POLICY = """apiVersion: fn.kaito-specdec.dev/v1alpha1
kind: SpeculativeDecodingPolicy
metadata:
  name: specdec-policy
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  mode: {mode}
"""


@pytest.mark.parametrize("mode", ["validate", "materialize"])
def test_render_with_a_config_path_policy(kpt, env, tmp_path, mode):
    """Kptfile `configPath:` sends the policy object as functionConfig and also as an item: the function
    reads its settings and leaves the policy file alone."""
    pkg = package_copy(tmp_path)
    kptfile = pkg / "Kptfile"
    kptfile.write_text(kptfile.read_text(encoding="utf-8").replace(
        "      configMap:\n        mode: materialize\n", "      configPath: specdec-policy.yaml\n"), encoding="utf-8")
    assert "configPath: specdec-policy.yaml" in kptfile.read_text(encoding="utf-8")
    (pkg / "specdec-policy.yaml").write_text(POLICY.format(mode=mode), encoding="utf-8")
    git_commit(pkg, "policy")
    before = snapshot(pkg)
    proc = run([kpt, "fn", "render", ".", "--allow-exec"], pkg, env)
    assert proc.returncode == 0, describe(proc)
    after = snapshot(pkg)
    assert after["specdec-policy.yaml"] == before["specdec-policy.yaml"]
    derived = sorted(set(after) - set(before))
    if mode == "validate":
        assert after == before, git_diff(pkg)
    else:
        assert derived and all("-specdec-" in name or name.startswith("specdec-") for name in derived), derived
        assert b"config: specdec-mtp-" in after["workspace-deepseek.yaml"]


def test_kustomization_without_apiversion_in_the_package(kpt, env, tmp_path):
    """kpt passes a bare kustomization.yaml (no apiVersion, no kind: legal for kustomize) as an item; the
    function recognises it by name, passes it through untouched and renders the rest (issue 9). The
    failing invalid value in another file is reported with that file's name on stderr."""
    pkg = package_copy(tmp_path)
    kustomization = "# built by kustomize elsewhere\nresources:\n- workspace-phi-4.yaml\n- phi-4-inference.yaml\n"
    (pkg / "kustomization.yaml").write_text(kustomization, encoding="utf-8")
    git_commit(pkg, "add a kustomization")
    proc = run([kpt, "fn", "eval", ".", *eval_args()], pkg, env)
    assert proc.returncode == 0, describe(proc)
    assert (pkg / "kustomization.yaml").read_text(encoding="utf-8") == kustomization
    assert "kustomization.yaml" not in git_changed(pkg)
    assert "has no apiVersion" not in proc.stderr
    # Under kpt each finding is said once, in kpt's Results: (errors first, so kpt's first lines show them);
    # the function's own stderr is one summary line.
    set_annotation(pkg / "workspace-phi-4.yaml", '"true"', '"yes"')
    bad = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec"], pkg, env)
    assert bad.returncode != 0, describe(bad)
    results = bad.stderr.split("Results:", 1)[1]
    assert results.lstrip().startswith("[error] kaito.sh/v1beta1/Workspace/kaito-demo/workspace-phi-4 "), describe(bad)
    assert bad.stderr.count(invalid_value_message("yes")) == 1, describe(bad)
    assert "1 error" in bad.stderr.split("Stderr:", 1)[1], describe(bad)


SMALL = """\
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: w
  annotations:
    kaito.sh/enable-speculative-decoding: "True"
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  preset:
    name: phi-4
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: newer
  annotations:
    kaito.sh/enable-speculative-decoding: "true"
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  preset:
    name: a-preset-of-a-newer-kaito
"""


def test_kpt_prints_each_findings_id_once_and_disable_takes_it(kpt, env, tmp_path):
    """kpt prints a result as `[error] ref field: message` (never its tags) and, under kpt, the function's
    stderr is its summary alone: the message ends in the id, so a kpt user reads it there once, and the
    annotation that names it turns the finding off."""
    pkg = tmp_path / "small"
    pkg.mkdir()
    (pkg / "ws.yaml").write_text(SMALL, encoding="utf-8")
    bad = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec", "--", "mode=validate"], pkg, env)
    assert bad.returncode == 1, describe(bad)
    results, said = bad.stderr.split("Results:", 1)[1].split("Stderr:", 1)
    lines = [ln.strip() for ln in results.splitlines() if ln.strip()]
    assert lines[:2] == [
        "[error] kaito.sh/v1beta1/Workspace/w metadata.annotations[kaito.sh/enable-speculative-decoding]: "
        + invalid_value_message("True") + " [SD101]",
        "[error] kaito.sh/v1beta1/Workspace/newer inference.presetName: "
        "Unsupported inference preset name a-preset-of-a-newer-kaito [SD112]"], describe(bad)
    assert bad.stderr.count("[SD101]") == 1 and bad.stderr.count("[SD112]") == 1, describe(bad)
    assert "[SD" not in said and "2 errors" in said, describe(bad)
    # The id kpt printed is what the per-object annotation takes (SD101 cannot be turned off: fix the value).
    set_annotation(pkg / "ws.yaml", '"true"\n', '"true"\n    kaito-specdec.dev/disable: SD112\n')
    set_annotation(pkg / "ws.yaml", '"True"', '"true"')
    ok = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec", "--", "mode=validate"], pkg, env)
    assert ok.returncode == 0 and "[SD112]" not in ok.stderr, describe(ok)


def test_the_readmes_failure_transcript_is_what_kpt_prints(kpt, env, tmp_path):
    """examples/kpt/README.md shows `kpt fn render kaito-demo` on an invalid value: every line of it is what kpt
    prints today, but the time (issue 37: it showed a `Stderr:` error line the function no longer writes)."""
    readme = (EXAMPLES / "kpt" / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- kpt-error:start -->\n```\n(.*?)```\n<!-- kpt-error:end -->", readme, re.S).group(1)
    demo = copy_tree(PACKAGE, tmp_path / "kaito-demo")
    set_annotation(demo / "workspace-phi-4.yaml", '"true"', '"True"')
    proc = run([kpt, "fn", "render", "kaito-demo", "--allow-exec"], tmp_path, env)
    assert proc.returncode == 1, describe(proc)
    assert re.sub(r"(\[FAIL\] \S+ in )\S+", r"\g<1>1s", proc.stderr) == shown
    assert "Two packages" not in readme and all(f"| `{p.name}/` |" in readme
                                                   for p in (EXAMPLES / "kpt").iterdir() if p.is_dir())


def test_a_policy_among_the_items_that_is_not_the_function_config_is_a_warning(kpt, env, tmp_path):
    """Issue 37, item 8: `kpt fn eval --exec` without --fn-config on a package holding a policy: SD049, not
    silently dropped; with the Kptfile's configPath (test_render_with_a_config_path_policy) nothing is said."""
    pkg = package_copy(tmp_path)
    (pkg / "specdec-policy.yaml").write_text(POLICY.format(mode="validate"), encoding="utf-8")
    proc = run([kpt, "fn", "eval", ".", "--exec", "kaito-specdec", "--truncate-output=false"], pkg, env)
    assert proc.returncode == 0, describe(proc)
    assert re.search(r"\[warning\] fn\.kaito-specdec\.dev/v1alpha1/SpeculativeDecodingPolicy/\S+: not applied: KRM "
                     r"mode reads its settings from the functionConfig only.* \[SD049\]", proc.stderr), describe(proc)
