"""Flux end to end: examples/flux/render.sh (kustomize build | kaito-specdec render -) on the example
overlay, and the Flux/GitHub Actions manifests that consume its output."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from e2e_support import (EXAMPLES, GOLDEN, assert_golden, clean_env, copy_tree, describe,
                         invalid_value_message, require_tool, run, set_annotation, specdec_executable)

FLUX = EXAMPLES / "flux"


@pytest.fixture
def repo(tmp_path) -> Path:
    return copy_tree(EXAMPLES, tmp_path / "repo" / "examples").parent


@pytest.fixture
def env():
    require_tool("bash", "render.sh is a bash script")
    require_tool("kubectl", "render.sh builds the overlay with kubectl kustomize here")
    # Pinned to kubectl's kustomize v5.5.0 so a standalone kustomize on PATH cannot change the output.
    return clean_env([specdec_executable().parent], KUSTOMIZE="kubectl kustomize")


def render(repo: Path, env, *args: str):
    flux = repo / "examples" / "flux"
    return run(["bash", "render.sh", "overlays/prod", *args], flux, env)


def test_render_script_output(repo, env):
    proc = render(repo, env)
    assert proc.returncode == 0, describe(proc)
    assert_golden(GOLDEN / "flux-prod.yaml", proc.stdout)
    objs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    assert {d["metadata"]["namespace"] for d in objs} == {"kaito-prod"}
    assert all(d["metadata"]["labels"]["environment"] == "prod" for d in objs)
    by_name = {(d["kind"], d["metadata"]["name"]): d for d in objs}
    ref = by_name[("Workspace", "workspace-phi-4")]["inference"]["config"]
    assert "speculative-config" in by_name[("ConfigMap", ref)]["data"]["inference_config.yaml"]
    # A committed render fed back in (e.g. a repository that renders its own output) stays as it is.
    again = run(["kaito-specdec", "render", "-"], repo, env, stdin=proc.stdout)
    assert again.returncode == 0, describe(again)
    assert again.stdout == proc.stdout
    # Into a file: the same stream.
    out = repo / "examples" / "flux" / "rendered" / "prod" / "manifests.yaml"
    to_file = render(repo, env, str(out))
    assert to_file.returncode == 0, describe(to_file)
    assert to_file.stdout == ""
    assert out.read_text(encoding="utf-8") == proc.stdout


def test_render_script_fails_on_invalid_annotation_and_keeps_the_old_output(repo, env):
    out = repo / "examples" / "flux" / "rendered" / "prod" / "manifests.yaml"
    out.parent.mkdir(parents=True)
    out.write_text("# previous render\n", encoding="utf-8")
    set_annotation(repo / "examples" / "kustomize" / "base" / "inferenceset-phi-4-mini.yaml", '"true"', '"TRUE"')
    proc = render(repo, env)
    assert proc.returncode != 0, describe(proc)
    assert proc.stdout == ""
    assert invalid_value_message("TRUE") in proc.stderr, describe(proc)
    proc = render(repo, env, str(out))
    assert proc.returncode != 0, describe(proc)
    assert out.read_text(encoding="utf-8") == "# previous render\n"
    assert not list(out.parent.glob("*.partial"))


def test_render_script_fails_with_kustomizes_error_only(repo, env):
    """A broken overlay: kustomize's error, and no second one from kaito-specdec about an empty input."""
    kustomization = repo / "examples" / "flux" / "overlays" / "prod" / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text(encoding="utf-8").replace("resources:\n", "resources:\n- missing.yaml\n", 1),
                             encoding="utf-8")
    proc = render(repo, env)
    assert proc.returncode != 0 and proc.stdout == "", describe(proc)
    assert "missing.yaml" in proc.stderr, describe(proc)
    assert "kaito-specdec" not in proc.stderr and "[error]" not in proc.stderr, describe(proc)


def test_flux_and_workflow_manifests():
    flux_objs = list(yaml.safe_load_all((FLUX / "clusters" / "prod" / "kaito-demo.yaml").read_text(encoding="utf-8")))
    kinds = {d["kind"]: d for d in flux_objs}
    assert kinds["OCIRepository"]["apiVersion"].startswith("source.toolkit.fluxcd.io/")
    assert kinds["Kustomization"]["apiVersion"] == "kustomize.toolkit.fluxcd.io/v1"
    assert kinds["Kustomization"]["spec"]["sourceRef"] == {"kind": "OCIRepository",
                                                          "name": kinds["OCIRepository"]["metadata"]["name"]}
    workflow = yaml.safe_load((FLUX / "github-actions" / "kaito-specdec-render.yaml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["render"]["steps"]
    scripts = "\n".join(s.get("run", "") for s in steps)
    assert "./render.sh" in scripts and "flux push artifact" in scripts
    assert (FLUX / "render.sh").stat().st_mode & 0o111, "render.sh must be executable"


def test_kustomize_override_carries_build_options(repo, env):
    """The README's `KUSTOMIZE="kustomize build --load-restrictor LoadRestrictionsNone"`: an overlay that reads
    a file above its folder fails a plain build and renders with the option (kubectl kustomize here)."""
    prod = repo / "examples" / "flux" / "overlays" / "prod"
    (prod.parent / "shared.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n",
                                             encoding="utf-8")
    text = (prod / "kustomization.yaml").read_text(encoding="utf-8")
    assert "resources:\n" in text
    (prod / "kustomization.yaml").write_text(text.replace("resources:\n", "resources:\n  - ../shared.yaml\n", 1),
                                             encoding="utf-8")
    plain = render(repo, env)
    assert plain.returncode != 0 and plain.stdout == "" and "not in or below" in plain.stderr, describe(plain)
    readme = (repo / "examples" / "flux" / "README.md").read_text(encoding="utf-8")
    assert 'KUSTOMIZE="kustomize build --load-restrictor LoadRestrictionsNone" ./render.sh overlays/prod' in readme
    proc = render(repo, {**env, "KUSTOMIZE": "kubectl kustomize --load-restrictor LoadRestrictionsNone"})
    assert proc.returncode == 0, describe(proc)
    assert "name: shared-" in proc.stdout or "name: shared\n" in proc.stdout
