"""examples/ci works as its README says: the command it shows prints the annotation it shows, and the
workflow runs that command. The repository's kpt catalog metadata.yaml names what exists."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CI = ROOT / "examples" / "ci"
QUICKSTART = ROOT / "fixtures" / "quickstart-workspace" / "items.yaml"
KAITO_SPECDEC = [sys.executable, "-m", "krm_fn"]


def _block(text: str, name: str) -> str:
    m = re.search(rf"<!-- {name}:start -->\n```\w*\n(.*?)```\n<!-- {name}:end -->", text, re.S)
    assert m, name
    return m.group(1)


def _invoke() -> list[str]:
    readme = (CI / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Invoke\n.*?```sh\n(.*?)```", readme, re.S).group(1)
    return block.strip().splitlines()


def test_the_readme_command_prints_the_readme_annotation(tmp_path) -> None:
    setup, command = _invoke()
    assert setup == """mkdir -p deploy && sed 's/"true"/"True"/' ../../fixtures/quickstart-workspace/items.yaml > deploy/ws.yaml"""
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "ws.yaml").write_text(QUICKSTART.read_text(encoding="utf-8").replace('"true"', '"True"'),
                                                 encoding="utf-8")
    argv = shlex.split(command.split(">", 1)[0])
    assert argv[:2] == ["kaito-specdec", "render"] and "--format" in argv
    proc = subprocess.run(KAITO_SPECDEC + argv[1:], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    readme = (CI / "README.md").read_text(encoding="utf-8")
    assert proc.returncode == 1
    assert _block(readme, "github-output").splitlines() == proc.stderr.splitlines(), proc.stderr


def test_the_workflow_runs_the_readme_command() -> None:
    workflow = yaml.safe_load((CI / "validate.yaml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["validate"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert _invoke()[1] in runs
    install = next(r for r in runs if "pip install" in r)
    assert "https://github.com/kaito-project/kaito-specdec.git" in install


def test_catalog_metadata() -> None:
    meta = yaml.safe_load((ROOT / "metadata.yaml").read_text(encoding="utf-8"))
    # The keys kpt-functions-catalog's functions/*/metadata.yaml carry (emails and hidden are optional).
    assert set(meta) <= {"image", "description", "tags", "sourceURL", "examplePackageURLs", "emails", "license",
                         "hidden"}
    assert {"image", "description", "tags", "sourceURL", "license"} <= set(meta)
    assert meta["license"] == "Apache-2.0" and "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert set(meta["tags"]) <= {"mutator", "validator", "generator"}
    assert ":" not in meta["image"].rsplit("/", 1)[1], "no tag: the catalog's image is the repository"
    assert f"-t {meta['image']}:" in (ROOT / "Dockerfile").read_text(encoding="utf-8")
    prefix = meta["sourceURL"] + "/tree/main/"
    for url in meta["examplePackageURLs"]:
        assert url.startswith(prefix) and (ROOT / url[len(prefix):] / "Kptfile").is_file(), url
