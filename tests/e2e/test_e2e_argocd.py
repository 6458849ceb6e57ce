"""Argo CD end to end: the `generate` and `discover` commands of examples/argocd/plugin.yaml, run the way
argocd-cmp-server runs them (in the Application's source folder, with the build environment, stdout
captured as the manifests). `kustomize build` is kubectl's kustomize v5.5.0 behind a tiny shim."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from e2e_support import (EXAMPLES, GOLDEN, assert_golden, copy_tree, describe, invalid_value_message,
                         require_tool, run, set_annotation, specdec_executable, write_kustomize_shim)

PLUGIN = EXAMPLES / "argocd" / "plugin.yaml"
NGRAM = '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'
LEAKS = ("config.kubernetes.io/", "internal.config.kubernetes.io/", "kustomize.config.k8s.io/", "config.k8s.io/id")


@pytest.fixture(scope="module")
def plugin() -> dict:
    return yaml.safe_load(PLUGIN.read_text(encoding="utf-8"))


@pytest.fixture
def repo(tmp_path) -> Path:
    """A checkout of the repository as the sidecar receives it: the examples keep their relative paths."""
    return copy_tree(EXAMPLES, tmp_path / "repo" / "examples").parent


@pytest.fixture
def cmp_env(tmp_path):
    require_tool("bash", "plugin commands run under bash")
    require_tool("kubectl", "its embedded kustomize stands in for the sidecar's standalone kustomize")
    fn = specdec_executable()
    bin_dir = tmp_path / "bin"
    write_kustomize_shim(bin_dir)

    def make(**extra: str) -> dict[str, str]:
        # argocd-cmp-server: the sidecar's own environment plus the build environment; nothing else.
        env = {
            "PATH": f"{bin_dir}:{fn.parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(tmp_path),
            "ARGOCD_APP_NAME": "kaito-demo",
            "ARGOCD_APP_NAMESPACE": "kaito-demo",
            "ARGOCD_APP_REVISION": "0123456789abcdef0123456789abcdef01234567",
            "ARGOCD_APP_REVISION_SHORT": "0123456",
            "ARGOCD_APP_SOURCE_PATH": "examples/argocd/app",
            "ARGOCD_APP_SOURCE_REPO_URL": "https://example.com/your-org/your-gitops-repo.git",
            "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
            "KUBE_VERSION": "1.32.4",
            "KUBE_API_VERSIONS": "v1,apps/v1,kaito.sh/v1alpha1,kaito.sh/v1beta1",
            "ARGOCD_ENV_KAITO_SPECDEC_FAIL_ON": "error",
        }
        kubectl_dir = str(Path(require_tool("kubectl", "")).parent)
        if kubectl_dir not in env["PATH"].split(":"):
            env["PATH"] += ":" + kubectl_dir
        env.update(extra)
        return env
    return make


def generate(plugin: dict, app: Path, env: dict[str, str]):
    gen = plugin["spec"]["generate"]
    return run([*gen["command"], *gen.get("args", [])], app, env)


def docs(stream: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(stream) if d is not None]


def test_plugin_definition(plugin):
    assert plugin["apiVersion"] == "argoproj.io/v1alpha1"
    assert plugin["kind"] == "ConfigManagementPlugin"
    assert plugin["metadata"]["name"] == "kaito-specdec"
    script = plugin["spec"]["generate"]["args"][0]
    assert plugin["spec"]["generate"]["command"] == ["bash", "-c"]
    assert "set -euo pipefail" in script
    assert plugin["spec"]["discover"]["find"]["command"]
    params = {p["name"]: p for p in plugin["spec"]["parameters"]["static"]}
    assert params["mode"]["string"] == "materialize"
    assert plugin["spec"].get("preserveFileMode") is False
    app = yaml.safe_load((EXAMPLES / "argocd" / "application.yaml").read_text(encoding="utf-8"))
    assert app["spec"]["source"]["plugin"]["name"] == f"{plugin['metadata']['name']}-{plugin['spec']['version']}"
    assert (EXAMPLES / app["spec"]["source"]["path"].removeprefix("examples/")).is_dir()


def test_generate_prints_only_the_manifests(plugin, repo, cmp_env):
    app = repo / "examples" / "argocd" / "app"
    proc = generate(plugin, app, cmp_env(PARAM_MODE="materialize"))
    assert proc.returncode == 0, describe(proc)
    assert_golden(GOLDEN / "argocd-app.yaml", proc.stdout)
    objs = docs(proc.stdout)
    assert objs and all({"apiVersion", "kind", "metadata"} <= set(d) and d["metadata"].get("name") for d in objs)
    # The example turns on kustomize's origin annotations (findings name source files); kustomize writes them
    # into its output, and render keeps them as kustomize does: every other orchestrator annotation is gone.
    assert not any(leak in proc.stdout.replace("config.kubernetes.io/origin:", "") for leak in LEAKS)
    assert all("config.kubernetes.io/origin" in d["metadata"].get("annotations", {}) for d in objs
               if d["metadata"]["name"].startswith(("workspace-", "llama-", "my-")))
    by_name = {(d["kind"], d["metadata"]["name"]): d for d in objs}
    ref = by_name[("Workspace", "workspace-phi-4")]["inference"]["config"]
    inference = yaml.safe_load(by_name[("ConfigMap", ref)]["data"]["inference_config.yaml"])
    assert inference["vllm"]["speculative-config"] == NGRAM


def test_discover_matches_the_app_and_nothing_else(plugin, repo, cmp_env, tmp_path):
    find = plugin["spec"]["discover"]["find"]["command"]
    app = repo / "examples" / "argocd" / "app"
    hit = run(find, app, cmp_env())
    assert hit.returncode == 0 and hit.stdout.strip(), describe(hit)
    plain = tmp_path / "plain"
    copy_tree(EXAMPLES / "kpt" / "validate", plain)
    assert run(find, plain, cmp_env()).stdout.strip()
    other = tmp_path / "other"
    other.mkdir()
    (other / "deployment.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n")
    assert run(find, other, cmp_env()).stdout.strip() == ""


def test_generate_fails_with_nothing_on_stdout(plugin, repo, cmp_env):
    set_annotation(repo / "examples" / "kustomize" / "base" / "workspace-phi-4.yaml", '"true"', '"on"')
    app = repo / "examples" / "argocd" / "app"
    proc = generate(plugin, app, cmp_env())
    assert proc.returncode != 0, describe(proc)
    assert proc.stdout == ""
    assert invalid_value_message("on") in proc.stderr, describe(proc)


def test_generate_fails_when_kustomize_fails(plugin, repo, cmp_env):
    app = repo / "examples" / "argocd" / "app"
    (app / "kustomization.yaml").write_text(
        (app / "kustomization.yaml").read_text(encoding="utf-8") + "  - missing.yaml\n", encoding="utf-8")
    proc = generate(plugin, app, cmp_env())
    assert proc.returncode != 0, describe(proc)
    assert proc.stdout == ""
    # kustomize's error, and no second, misleading one from kaito-specdec about its empty input (issue 9)
    assert "missing.yaml" in proc.stderr, describe(proc)
    assert "kaito-specdec" not in proc.stderr and "[error]" not in proc.stderr, describe(proc)


@pytest.mark.parametrize("how", ["parameter", "plugin-env"])
def test_validate_mode_from_the_application(plugin, repo, cmp_env, how):
    app = repo / "examples" / "argocd" / "app"
    env = cmp_env(PARAM_MODE="validate") if how == "parameter" else cmp_env(ARGOCD_ENV_KAITO_SPECDEC_MODE="validate")
    proc = generate(plugin, app, env)
    assert proc.returncode == 0, describe(proc)
    assert "kaito-specdec.dev/derived" not in proc.stdout
    assert "speculative-config" in proc.stdout  # only the user's override ConfigMap


def test_plain_manifest_folder_and_fail_on_warning(plugin, cmp_env, tmp_path):
    """A source folder without a kustomization is rendered directly. A workload whose ConfigMap is not in
    the folder is a warning, which ARGOCD_ENV_KAITO_SPECDEC_FAIL_ON=warning turns into a failed render."""
    app = tmp_path / "plain"
    app.mkdir()
    (app / "workspace.yaml").write_text(
        (EXAMPLES / "kpt" / "package" / "workspace-phi-4.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    ok = generate(plugin, app, cmp_env())
    assert ok.returncode == 0, describe(ok)
    assert [d["metadata"]["name"] for d in docs(ok.stdout)] == ["workspace-phi-4"]
    assert "[warning]" in ok.stderr
    strict = generate(plugin, app, cmp_env(ARGOCD_ENV_KAITO_SPECDEC_FAIL_ON="warning"))
    assert strict.returncode != 0, describe(strict)
    assert strict.stdout == ""


def _outside_root_app(repo: Path) -> Path:
    """An overlay that reads a file above its folder, as GKE's vLLM overlays do: kustomize's default load
    restrictor refuses it."""
    app = repo / "examples" / "argocd" / "app"
    shared = repo / "examples" / "argocd" / "shared.yaml"
    shared.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  a: b\n", encoding="utf-8")
    (app / "kustomization.yaml").write_text(
        (app / "kustomization.yaml").read_text(encoding="utf-8") + "  - ../shared.yaml\n", encoding="utf-8")
    return app


@pytest.mark.parametrize("how", ["parameter", "plugin-env"])
def test_build_options_from_the_application(plugin, repo, cmp_env, how):
    app = _outside_root_app(repo)
    plain = generate(plugin, app, cmp_env())
    assert plain.returncode != 0 and plain.stdout == "" and "not in or below" in plain.stderr, describe(plain)
    options = "--load-restrictor  LoadRestrictionsNone"  # blanks split, as the README says
    env = cmp_env(PARAM_BUILD_OPTIONS=options) if how == "parameter" else \
        cmp_env(ARGOCD_ENV_KUSTOMIZE_BUILD_OPTIONS=options)
    proc = generate(plugin, app, env)
    assert proc.returncode == 0, describe(proc)
    assert ("ConfigMap", "shared") in {(d["kind"], d["metadata"]["name"]) for d in docs(proc.stdout)}


def test_build_options_are_never_evaluated(plugin, repo, cmp_env, tmp_path):
    app = repo / "examples" / "argocd" / "app"
    marker = tmp_path / "evaluated"
    proc = generate(plugin, app, cmp_env(PARAM_BUILD_OPTIONS=f"$(touch {marker}) `touch {marker}`"))
    assert proc.returncode != 0 and proc.stdout == "" and not marker.exists(), describe(proc)


def test_build_options_parameter_is_declared(plugin):
    params = {p["name"]: p for p in plugin["spec"]["parameters"]["static"]}
    assert params["build-options"]["string"] == "" and params["build-options"]["required"] is False
    text = PLUGIN.read_text(encoding="utf-8")
    assert "PARAM_BUILD_OPTIONS" in text and "ARGOCD_ENV_KUSTOMIZE_BUILD_OPTIONS" in text
