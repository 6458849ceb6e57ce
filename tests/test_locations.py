"""Findings point at the line (issue 23, section 5): through `kustomize build | render -` at the source
file kustomize's origin annotations name, else a hint on turning them on; an unknown preset at its `name:`
line with the closest presets; an opt-in KAITO never sees (misspelled, a label, the wrong level) a warning."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from krm_fn.text.formats import ORIGIN_BASE_HINT, ORIGIN_HINT
from krm_fn.stages import misplaced
from krm_fn.checks.preset_supported import closest
from runner import run

ROOT = Path(__file__).resolve().parent.parent
BAD = (ROOT / "fixtures" / "quickstart-workspace" / "items.yaml").read_text(encoding="utf-8").replace('"true"', '"True"')


def _with_origin(origin: str) -> str:
    return BAD.replace("  annotations:\n", "  annotations:\n    config.kubernetes.io/origin: |\n"
                       + "".join(f"      {ln}\n" for ln in origin.splitlines()), 1)


@pytest.mark.parametrize("origin, shown", [
    ("path: base/ws.yaml", "base/ws.yaml: "),
    ("path: deploy/ws.yaml\nrepo: https://github.com/org/repo\nref: v1", "https://github.com/org/repo//deploy/ws.yaml?ref=v1: "),
    ("configuredIn: overlays/prod/kustomization.yaml\nconfiguredBy:\n  kind: ConfigMapGenerator", "overlays/prod/kustomization.yaml: "),
])
def test_stdin_findings_name_the_origin_file(origin, shown) -> None:
    code, _, err = run(["render", "-"], _with_origin(origin))
    assert code == 1
    line, *hint = err.splitlines()
    assert line.startswith(shown + "[error] kaito.sh/v1beta1/Workspace/workspace-deepseek-r1 "), line
    assert "[SD101]" in line
    # A local file that is not there from the working directory: the path is the folder built's (issue 37).
    assert hint == ([] if "repo:" in origin else [ORIGIN_BASE_HINT])


def test_stdin_without_origin_gets_one_hint() -> None:
    two = BAD + "---\n" + BAD.replace("name: workspace-deepseek-r1\n", "name: second\n", 1)
    code, _, err = run(["render", "-"], two)
    lines = err.splitlines()
    assert code == 1 and lines[-1] == ORIGIN_HINT and lines.count(ORIGIN_HINT) == 1
    assert lines[0].startswith("<stdin>:6: [error] ") and lines[1].startswith("<stdin>:21: [error] ")
    assert "buildMetadata: [originAnnotations]" in ORIGIN_HINT


def test_no_hint_for_files_or_with_origin(tmp_path) -> None:
    (tmp_path / "ws.yaml").write_text(BAD, encoding="utf-8")
    _, _, err = run(["render", str(tmp_path / "ws.yaml")])
    assert ORIGIN_HINT not in err
    _, _, err = run(["render", "-"], _with_origin("path: ws.yaml"))
    assert ORIGIN_HINT not in err


def test_real_kustomize_origin_annotations(tmp_path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not on PATH")
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "ws.yaml").write_text(BAD, encoding="utf-8")
    (tmp_path / "base" / "kustomization.yaml").write_text("resources: [ws.yaml]\n", encoding="utf-8")
    (tmp_path / "kustomization.yaml").write_text("resources: [base]\nbuildMetadata: [originAnnotations]\n",
                                                 encoding="utf-8")
    built = subprocess.run([kubectl, "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    code, _, err = run(["render", "-"], built.stdout)
    assert code == 1 and err.startswith("base/ws.yaml: [error] "), err


def test_unknown_preset_at_its_name_line_with_the_closest(tmp_path) -> None:
    text = BAD.replace('"True"', '"true"').replace('"deepseek-r1-0528"', "deepseek-r1-0582")
    (tmp_path / "ws.yaml").write_text(text, encoding="utf-8")
    code, _, err = run(["render", str(tmp_path / "ws.yaml")])
    line_no = text.splitlines().index("    name: deepseek-r1-0582") + 1
    assert code == 1
    assert f"ws.yaml:{line_no}: [error] kaito.sh/v1beta1/Workspace/workspace-deepseek-r1 inference.presetName: " \
           "Unsupported inference preset name deepseek-r1-0582 (closest presets: deepseek-r1-0528" in err, err


def test_closest_presets() -> None:
    assert closest("phi4")[0] == "phi-4"
    assert closest("qwen3.5-4b")[0] == "Qwen/Qwen3.5-4B"
    assert closest("zzzzzz") == []


@pytest.mark.parametrize("key, near", [
    ("kaito.sh/enable-speculative-decode", True), ("KAITO.SH/ENABLE-SPECULATIVE-DECODING", True),
    ("kaito.sh/enable-speculative-decodng", True), ("kaito.sh/enable-speculative-decoding", False),
    ("kaito.sh/runtime", False), ("kaito.sh/enable-lora", False), ("app.kubernetes.io/name", False),
])
def test_near_misses(key, near) -> None:
    assert misplaced._near(key) is near


def test_right_place_is_quiet_and_wrong_one_warns() -> None:
    good = BAD.replace('"True"', '"true"')
    _, _, err = run(["render", "-"], good)
    assert "SD414" not in err and "SD415" not in err and "SD416" not in err
    labelled = good.replace("  annotations:\n", "  labels:\n", 1)
    code, out, err = run(["render", "-"], labelled)
    assert code == 0 and out.count("specdec-") == 0, "nothing is enabled"
    assert "metadata.labels[kaito.sh/enable-speculative-decoding]: a label, which KAITO does not read" in err
    assert "[SD414]" in err


def test_no_kustomize_hint_for_a_helm_stream() -> None:
    """Helm's post-renderer stream names each template in a `# Source:` comment: the hint is not for it."""
    code, _, err = run(["render", "-"], "---\n# Source: demo/templates/ws.yaml\n" + BAD)
    assert code == 1 and "[SD101]" in err and ORIGIN_HINT not in err
