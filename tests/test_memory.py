"""Peak memory is bounded by the input, whatever its YAML style (issue 19 class 4): at most 64 MiB plus 20
times the input, for block, flow (`- {…}`) and JSON (one line and pretty) input, in both modes; and the
input cap bounds it too. Each case runs the function in a child process and reads that child's own peak
RSS (os.wait4's rusage, as bench/run.py does).

Flow items and JSON used to be composed into one node tree for the whole list: about 110 bytes of memory
per byte of input (1.6 MB of flow items: 200 MiB; 63 MB: over 5.9 GiB), so a 1 GiB container running
`kubectl get … -o json | kaito-specdec render -` died. Inputs here are about 1 MB of small objects (the
worst case per byte: the per-item cost is fixed); the deep pass (--deep) runs them at 2-3.5 MB, where the
20x term is most of the bound.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.memory

MIB = 1 << 20
BASE, PER_BYTE = 64 * MIB, 20
RL_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
LIST_HEAD = "apiVersion: v1\nkind: List\nitems:\n"
# Objects per input in the suite: every input over 0.75 MiB, so that the 110 bytes a byte of input of old
# would pass the bound even with nothing else in memory (90 x 0.75 MiB > 64 MiB). The deep pass (--deep) runs
# DEEP_N (2-3.5 MiB inputs, the 20x term then most of the bound).
N, DEEP_N = 12_000, 30_000


def _objects(n: int) -> list[dict]:
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"n{i}", "labels": {"team": f"t{i % 20}"}}}
            for i in range(n)]


def _flow(head: str, n: int) -> str:
    return head + "".join(f"- {{apiVersion: v1, kind: Namespace, metadata: {{name: n{i}, labels: {{team: t{i % 20}}}}}}}\n"
                          for i in range(n))


def _block(head: str, n: int) -> str:
    return head + "".join(f"- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: n{i}\n    labels:\n"
                          f"      team: t{i % 20}\n" for i in range(n))


INPUTS = {
    # name: (argv, the text of n objects), made when a test runs (not at collection)
    "block stream, render": (["render", "-"], lambda n: "".join(
        f"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: n{i}\n  labels:\n    team: t{i % 20}\n" for i in range(n))),
    "block List, render (kubectl get -o yaml)": (["render", "-"], lambda n: _block(LIST_HEAD, n)),
    "block ResourceList": ([], lambda n: _block(RL_HEAD, n)),
    "flow items List, render": (["render", "-"], lambda n: _flow(LIST_HEAD, n)),
    "flow items ResourceList": ([], lambda n: _flow(RL_HEAD, n)),
    "one-line JSON List, render": (["render", "-"], lambda n: json.dumps({"apiVersion": "v1", "items": _objects(n),
                                                                          "kind": "List"}) + "\n"),
    "pretty JSON List, render (kubectl get -o json)": (["render", "-"], lambda n: json.dumps(
        {"apiVersion": "v1", "items": _objects(n // 2), "kind": "List", "metadata": {"resourceVersion": ""}}, indent=4) + "\n"),
    "one-line JSON ResourceList": ([], lambda n: json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                                                             "items": _objects(n * 2 // 3)}) + "\n"),
}


# The child is started by a small Python process, not by pytest: a child forked from a large process counts
# that process's pages in its peak RSS until it execs (pytest, holding these inputs, is ~90 MiB).
_MEASURE = """
import json, os, subprocess, sys
argv, path = json.loads(sys.argv[1]), sys.argv[2]
with open(path, "rb") as stdin:
    proc = subprocess.Popen([sys.executable, "-m", "krm_fn", *argv], stdin=stdin, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, err.decode("utf-8", "replace")]))
"""


def _run(argv: list[str], path: Path, env: dict | None = None) -> tuple[int, int, str]:
    """(exit status, the child's own peak RSS in bytes (ru_maxrss: KiB on Linux), stderr) of
    `python -m krm_fn ARGV < path`."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, json.dumps(argv), str(path)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    code, peak, err = json.loads(done.stdout)
    return code, peak, err


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_peak_memory_is_at_most_64_mib_plus_20_times_the_input(name: str, tmp_path: Path) -> None:
    _peak_memory_is_bounded(name, N, 0.75 * MIB, tmp_path)


@pytest.mark.deep
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_deep_peak_memory_is_at_most_64_mib_plus_20_times_a_larger_input(name: str, tmp_path: Path) -> None:
    _peak_memory_is_bounded(name, DEEP_N, 1.5 * MIB, tmp_path)  # large enough for the per-byte term to count


def _peak_memory_is_bounded(name: str, n: int, least: float, tmp_path: Path) -> None:
    argv, make = INPUTS[name]
    path = tmp_path / "input.yaml"
    path.write_text(make(n), encoding="utf-8")
    size = path.stat().st_size
    assert size > least, size
    code, peak, err = _run(argv, path)
    assert code == 0, err
    bound = BASE + PER_BYTE * size
    assert peak <= bound, f"{name}: {size / MIB:.1f} MiB in, peak {peak / MIB:.0f} MiB > {bound / MIB:.0f} MiB"


def _enabled_workspaces(n: int) -> str:
    return RL_HEAD + "".join(
        f"- apiVersion: kaito.sh/v1beta1\n  kind: Workspace\n  metadata:\n    name: ws-{i}\n    annotations:\n"
        f"      kaito.sh/enable-speculative-decoding: \"true\"\n  resource:\n    instanceType: Standard_NC24ads_A100_v4\n"
        f"    labelSelector: {{matchLabels: {{app: ws-{i}}}}}\n  inference:\n    preset:\n      name: phi-4\n"
        for i in range(n))


def test_peak_memory_with_thousands_of_enabled_workloads(tmp_path: Path) -> None:
    """Every workload composed, read into data, planned and edited (issue 28 class 7): each node is let go
    once its data is built and composed again when the writer edits it, one item at a time (4 500
    Workspaces, 1.3 MB: 135 MiB before, 82 MiB now)."""
    path = tmp_path / "input.yaml"
    path.write_text(_enabled_workspaces(3000), encoding="utf-8")
    size = path.stat().st_size
    code, peak, err = _run([], path)
    assert code == 0, err
    bound = BASE + PER_BYTE * size
    assert peak <= bound, f"{size / MIB:.1f} MiB in, peak {peak / MIB:.0f} MiB > {bound / MIB:.0f} MiB"


def test_the_input_cap_bounds_memory(tmp_path: Path) -> None:
    """An input over KAITO_SPECDEC_MAX_INPUT is refused after reading at most the cap and a byte (SD512): the
    peak stays within the bound the cap gives, 64 MiB + 20 x the cap."""
    argv, make = INPUTS["flow items List, render"]
    path = tmp_path / "input.yaml"
    path.write_text(make(DEEP_N), encoding="utf-8")
    code, peak, err = _run(argv, path, {"KAITO_SPECDEC_MAX_INPUT": "1Mi"})
    assert code == 2 and "SD512" in err, err
    assert peak <= BASE + PER_BYTE * MIB, f"peak {peak / MIB:.0f} MiB"


def _tied_or_twice(n: int, tied: bool) -> str:
    """n block items: the first and the last tied by an alias (`tied`), or all one object of 57 bytes (SD008 on
    each but the first: the most results a byte of input)."""
    if not tied:
        return "- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: n0\n" * n
    return "".join(f"- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: n{i}\n    labels:\n      team: "
                   f"{'&t t0' if i == 0 else '*t' if i == n - 1 else f't{i % 20}'}\n" for i in range(n))


TIED_N = 20_000


@pytest.mark.parametrize("tied", [True, False], ids=["alias-ties-two-items", "duplicates"])
@pytest.mark.parametrize("mode", ["krm", "render"])
def test_peak_memory_with_items_tied_by_an_alias_or_given_twice(tmp_path: Path, tied: bool, mode: str) -> None:
    """Issue 40 (ask 4): one alias tying the first and the last of 20 000 items composed the whole list (183 MiB
    in KRM mode for 1.7 MB, 194 in render); now the two are composed together and nothing else (Item.tied)."""
    head, argv = (RL_HEAD, []) if mode == "krm" else (LIST_HEAD, ["render", "-"])
    path = tmp_path / "input.yaml"
    path.write_text(head + _tied_or_twice(TIED_N, tied), encoding="utf-8")
    size = path.stat().st_size
    code, peak, err = _run(argv, path)
    assert code == 0, err
    assert tied or "19999 warnings" in err, err
    bound = BASE + PER_BYTE * size
    assert peak <= bound, f"{size / MIB:.1f} MiB in, peak {peak / MIB:.0f} MiB > {bound / MIB:.0f} MiB"
