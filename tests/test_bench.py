"""The benchmark runs with one command and measures what it claims to measure: a smoke round with tiny
sizes and one repeat. No timing assertions: the figures belong in the README, not in tests."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import generate  # noqa: E402
import run  # noqa: E402

SIZE_COLUMNS = ["objects", "input", "the function", "ms/object", "peak memory", "`kpt fn source`", "ratio", "`cat`",
                "`kpt fn eval --exec` function", "with `cat`", "ratio", "`render DIR`", "`render -`",
                "`render -` / KRM"]
SECONDS = r"(?:\d+ ms|\d+\.\d\d s)"
TIME = rf"{SECONDS} \({SECONDS}\)"  # wall time (CPU time)
STARTUP_ROWS = ["`python3 -c pass`", "`python3 -c 'import yaml, jsonpatch'`", "function, one Workspace",
                "render -, one Workspace"]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    keep = tmp_path_factory.mktemp("bench")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--sizes", "3,25", "--repeat", "1",
                           "--keep", str(keep)], capture_output=True, text=True, timeout=600)
    return proc, keep


# The smoke round runs kpt fn eval and source (half a minute on a busy machine): with the e2e tests.
@pytest.mark.e2e
def test_the_tables_have_their_rows_and_columns(smoke):
    proc, _ = smoke
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Machine: ") and "CPUs" in lines[0] and "Python " in lines[0]
    header = lines.index(run.SIZE_HEADER)
    assert _cells(lines[header]) == SIZE_COLUMNS
    rows = [_cells(ln) for ln in lines[header + 2:header + 4]]
    assert [r[0] for r in rows] == ["13", "35"]  # ten KAITO objects on top of the ordinary ones
    for row in rows:
        assert len(row) == len(SIZE_COLUMNS)
        assert re.fullmatch(TIME, row[2]), row  # the function always has a figure
        assert re.fullmatch(r"\d+ MiB", row[4]), row
        kpt = shutil.which("kpt") is not None
        for col in (5, 8, 9):
            assert (re.fullmatch(TIME, row[col]) if kpt else row[col].startswith("n/a (kpt")), row
        for col in (11, 12):  # render DIR and render - succeeded
            assert re.fullmatch(TIME, row[col]), row
    startup = lines.index(run.STARTUP_HEADER)
    assert [_cells(ln)[0] for ln in lines[startup + 2:startup + 6]] == STARTUP_ROWS
    assert all(re.fullmatch(r"\d+\.\d\d× \(\d+\.\d\d×\)", _cells(ln)[2]) for ln in lines[startup + 2:startup + 6])


@pytest.mark.e2e
def test_the_function_output_is_the_input_plus_what_it_derives(smoke):
    """What was timed was a correct run: every input item comes back, ordinary objects untouched, the
    enabled Workspaces point at ConfigMaps that are in the output."""
    _, keep = smoke
    given = yaml.safe_load((keep / "size-25" / "resourcelist.yaml").read_text())
    out = yaml.safe_load((keep / "size-25" / "function.out.yaml").read_text())
    assert out["kind"] == "ResourceList"
    names = {(i["kind"], i["metadata"]["name"]) for i in out["items"]}
    for item in given["items"]:
        assert (item["kind"], item["metadata"]["name"]) in names
        if item["kind"] in ("Deployment", "Service"):
            assert item in out["items"]
    workspaces = [i for i in out["items"] if i["kind"] == "Workspace"]
    enabled = [w for w in workspaces if w["metadata"]["annotations"]["kaito.sh/enable-speculative-decoding"] == "true"]
    assert len(workspaces) == 8 and len(enabled) == 5
    configmaps = {i["metadata"]["name"] for i in out["items"] if i["kind"] == "ConfigMap"}
    for w in enabled:
        assert w["inference"]["config"] in configmaps
    assert not [r for r in out.get("results", []) if r["severity"] != "info"]


def test_the_generated_resource_list_is_what_kpt_fn_source_writes(tmp_path):
    """The function is timed on the text kpt hands it, not on an approximation of it."""
    if shutil.which("kpt") is None:
        pytest.skip("kpt is not installed")
    layout = generate.files(23, orphans=2)
    generate.write_package(tmp_path / "pkg", layout)
    kpt = subprocess.run(["kpt", "fn", "source", str(tmp_path / "pkg")], capture_output=True, text=True, check=True)
    assert generate.resource_list(layout) == kpt.stdout
