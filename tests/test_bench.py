"""The benchmark runs with one command and measures what it claims to measure: a smoke round with tiny
sizes and one round (`--quick`: the start-up rows too), here with kpt hidden (its columns must say why they are empty);
tests/e2e/test_e2e_bench.py runs it with kpt. No timing assertions: the figures belong in docs/performance.md."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import run  # noqa: E402

SIZE_COLUMNS = ["objects", "input", "the function", "ms/object", "ms/object above start-up", "peak memory", "`kpt fn source`", "ratio", "`cat`",
                "`kpt fn eval --exec` function", "with `cat`", "ratio", "`render DIR`", "`render -`",
                "`render -` / KRM"]
SECONDS = r"(?:\d+ ms|\d+\.\d\d s)"
TIME = rf"{SECONDS} \({SECONDS}\)"  # wall time (CPU time)
STARTUP_ROWS = ["`python3 -c pass`", "`python3 -c 'import yaml, jsonpatch'`", "function, one Workspace",
                "render -, one Workspace"]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def smoke_run(keep: Path, env: dict[str, str] | None = None, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--sizes", "3,25", "--repeat", "1",
                           "--keep", str(keep), *more], capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """A round without kpt: PATH holds `cat` alone (the function and Python are started by full path)."""
    keep = tmp_path_factory.mktemp("bench")
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "cat").symlink_to(shutil.which("cat"))
    # The function is its own baseline here: the before/after table's rows and columns, not its figures.
    return smoke_run(keep, {**os.environ, "PATH": str(bin_dir)}, "--baseline", " ".join(run.function_argv(None))), keep


def test_the_tables_have_their_rows_and_columns(smoke):
    check_tables(smoke[0], kpt=False)


def test_the_before_after_table_has_a_row_per_input(smoke):
    lines = smoke[0].stdout.splitlines()
    at = lines.index(run.BASELINE_HEADER)
    rows = [_cells(ln) for ln in lines[at + 2:at + 5]]
    assert [r[0] for r in rows] == ["one Workspace", "13", "35"], rows
    for row in rows:
        assert re.fullmatch(TIME, row[1]) and re.fullmatch(TIME, row[2]), row
        assert re.fullmatch(r"\d+\.\d\d× \(\d+\.\d\d×\)", row[3]) and re.fullmatch(r"\d+ MiB", row[5]), row


def test_the_function_output_is_the_input_plus_what_it_derives(smoke):
    check_output(smoke[1])


def check_tables(proc: subprocess.CompletedProcess, kpt: bool) -> None:
    """The two tables, their rows and columns; figures where a tool ran, n/a with the reason where not."""
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
        assert re.fullmatch(r"-?\d+\.\d{3} \(-?\d+\.\d{3}\)", row[4]), row  # above start-up (tiny sizes: noise)
        assert re.fullmatch(r"\d+ MiB", row[5]), row
        for col in (6, 9, 10):  # kpt fn source, kpt fn eval with the function and with cat
            assert (re.fullmatch(TIME, row[col]) if kpt else row[col] == "n/a (kpt not installed)"), row
        assert re.fullmatch(TIME, row[8]), row  # cat
        for col in (12, 13):  # render DIR and render - succeeded
            assert re.fullmatch(TIME, row[col]), row
    startup = lines.index(run.STARTUP_HEADER)
    assert [_cells(ln)[0] for ln in lines[startup + 2:startup + 6]] == STARTUP_ROWS
    assert all(re.fullmatch(r"\d+\.\d\d× \(\d+\.\d\d×\)", _cells(ln)[2]) for ln in lines[startup + 2:startup + 6])


def check_output(keep: Path) -> None:
    """What was timed was a correct run: every input item comes back, ordinary objects untouched, the
    enabled Workspaces point at ConfigMaps that are in the output."""
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


def test_memory_bench_runs_every_style() -> None:
    """bench/memory.py (issue 19 class 4) at a tiny size: a row per YAML style, each run exiting 0."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "memory.py"), "--sizes", "0.02", "--items", "50"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [_cells(ln) for ln in proc.stdout.splitlines() if ln.startswith("| ") and "MiB |" in ln]
    assert [r[0] for r in rows] == ["block documents (render -)", "flow items List (render -)",
                                    "flow items ResourceList (KRM)", "one-line JSON List (render -)",
                                    "pretty JSON List (render -)",
                                    "alias ties two items ResourceList (KRM), 50 items",
                                    "alias ties two items List (render -), 50 items",
                                    "duplicates ResourceList (KRM), 50 items", "duplicates List (render -), 50 items"]
    assert all(r[-1] == "0" and re.fullmatch(r"\d+ MiB", r[2]) for r in rows), rows


@pytest.mark.deep
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (bench/startup.py counts with it)")
def test_the_start_up_counts_have_their_rows() -> None:
    """bench/startup.py: a row per step, the baseline at 1.00×, every count above the interpreter's alone and
    the function's the largest (it does all the others' work and more), the empty modules above the records."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "startup.py")], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    rows = [_cells(ln) for ln in proc.stdout.splitlines() if ln.startswith("| ") and "M |" in ln]
    assert len(rows) == 9, proc.stdout
    counts = [float(r[1].removesuffix(" M")) for r in rows]
    assert rows[1][2] == "1.00×" and counts[0] < min(counts[1:]) and counts[-1] == max(counts), proc.stdout
    # The empty modules come on top of the records, and the frozen dataclasses on top of those: each costs
    # something before any module body runs.
    assert "empty modules" in rows[6][0] and counts[6] > counts[5], proc.stdout
    assert "frozen dataclasses" in rows[7][0] and counts[7] > counts[6], proc.stdout
    assert re.search(r"imports [1-9]\d* modules of its own and defines [1-9]\d* NamedTuple classes and [1-9]\d* frozen",
                     proc.stdout), \
        proc.stdout
