"""Files kustomize reads as data or configuration are not broken objects (issue 23, section 4): YAML named
as configMapGenerator/secretGenerator input is data; an unlisted file beside a kustomization that looks like
kustomize's own (kubebuilder's patches, kustomizeconfig.yaml) is a warning naming .krmignore, not an error."""
from __future__ import annotations

from pathlib import Path

from runner import run

ROOT = Path(__file__).resolve().parent.parent
WS = (ROOT / "fixtures" / "quickstart-workspace" / "items.yaml").read_text(encoding="utf-8")


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_generator_inputs_are_data(tmp_path) -> None:
    _tree(tmp_path, {
        "kustomization.yaml": "resources: [ws.yaml]\nconfigMapGenerator:\n- name: a\n  files:\n  - settings.yaml\n"
                              "  - key=more/list.yaml\n  envs: [vars.yaml]\nsecretGenerator:\n- name: s\n  env: secret.yaml\n",
        "ws.yaml": WS, "settings.yaml": "foo: bar\n", "more/list.yaml": "- a\n- b\n", "vars.yaml": "A: b\n",
        "secret.yaml": "password: x\n"})
    code, out, err = run(["render", "--mode", "validate", str(tmp_path)])
    assert code == 0, err
    assert "SD003" not in err and "SD003" not in err and "SD010" not in err
    assert "foo: bar" not in out and "password" not in out, "data files are not manifests"


def test_kubebuilder_scaffolds_are_a_warning(tmp_path) -> None:
    _tree(tmp_path, {
        "kustomization.yaml": "resources: [ws.yaml]\n#patches:\n#- path: manager_webhook_patch.yaml\n",
        "ws.yaml": WS,
        "manager_webhook_patch.yaml": "- op: add\n  path: /spec/x\n  value: 1\n",
        "kustomizeconfig.yaml": "nameReference:\n- kind: Service\n  fieldSpecs:\n  - kind: X\n    path: a/b\n"})
    code, out, err = run(["render", "--mode", "validate", str(tmp_path)])
    assert code == 0, err
    warned = [ln for ln in err.splitlines() if ln.endswith("[SD010]")]
    assert len(warned) == 2 and all("[warning]" in ln and ".krmignore" in ln for ln in warned), err
    assert any(ln.startswith(f"{tmp_path}/kustomizeconfig.yaml:1: ") for ln in warned)
    assert "nameReference" not in out and "op: add" not in out


def test_an_unlisted_file_that_looks_like_nothing_kustomize_stays_an_error(tmp_path) -> None:
    _tree(tmp_path, {"kustomization.yaml": "resources: [ws.yaml]\n", "ws.yaml": WS, "notes.yaml": "title: x\n"})
    code, _, err = run(["render", "--mode", "validate", str(tmp_path)])
    assert code == 1 and "[SD003]" in err and "SD010" not in err


def test_without_a_kustomization_a_patch_file_stays_an_error(tmp_path) -> None:
    _tree(tmp_path, {"ws.yaml": WS, "a_patch.yaml": "- op: add\n  path: /x\n  value: 1\n"})
    code, _, err = run(["render", "--mode", "validate", str(tmp_path)])
    assert code == 1 and "[SD003]" in err
