"""The e2e marker (issue 9): `-m "not e2e"` leaves tests/e2e/ out; the README's command and CI run it all."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def collected(*args: str) -> tuple[list[str], int]:
    """The test ids `pytest --collect-only ARGS` selects, and how many it deselected."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = re.search(r"^(?:(\d+)/)?(\d+) tests? collected(?: \((\d+) deselected\))?", proc.stdout, re.M)
    assert counts, proc.stdout[-500:]
    ids = [ln for ln in proc.stdout.splitlines() if "::" in ln]
    assert len(ids) == int(counts[1] or counts[2]), (len(ids), counts[0])
    return ids, int(counts[3] or 0)


def test_e2e_marker_is_registered() -> None:
    # (tomllib is Python 3.11+; the project supports 3.10)
    assert re.search(r'^markers = \[.*"e2e: ', (ROOT / "pyproject.toml").read_text(), re.M)


def test_the_e2e_marker_is_on_exactly_the_e2e_folder_of_this_session(request) -> None:
    """Every test this session collected (run or deselected) carries the e2e marker exactly when it lives in
    tests/e2e/, so `-m "not e2e"` leaves out that folder and nothing else. A session without tests/e2e/ (one
    file run alone) collects the suite in a process instead (_not_e2e_leaves_out_exactly_the_e2e_folder)."""
    from session_items import DESELECTED
    items = [*request.session.items, *request.config.stash.get(DESELECTED, [])]
    e2e = ROOT / "tests" / "e2e"
    under = {i.nodeid for i in items if e2e in Path(i.path).parents}
    if len(under) < 20:
        _not_e2e_leaves_out_exactly_the_e2e_folder()
        return
    assert {i.nodeid for i in items if i.get_closest_marker("e2e")} == under
    assert {Path(t.split("::")[0]).name for t in under} >= {"test_e2e_kpt.py", "test_e2e_kustomize.py",
                                                            "test_e2e_argocd.py", "test_e2e_flux.py",
                                                            "test_e2e_packaging.py"}


def _not_e2e_leaves_out_exactly_the_e2e_folder() -> None:
    """One collection of the whole suite: `-m "not e2e"` keeps nothing of tests/e2e/ and deselects exactly
    as many tests as tests/e2e/ holds (so nothing else); all of tests/e2e/ is marked e2e. (--deep keeps the
    deep passes in, so that only the marker deselects.) Run by the test above when its session has no
    tests/e2e/."""
    quick, left_out = collected("--deep", "-m", "not e2e")
    e2e, none = collected("--deep", "-m", "e2e", "tests/e2e")
    assert quick and e2e and none == 0
    assert not any(t.startswith("tests/e2e/") for t in quick)
    assert all(t.startswith("tests/e2e/") for t in e2e)
    assert left_out == len(e2e), (left_out, len(e2e))
    assert {Path(t.split("::")[0]).name for t in e2e} >= {"test_e2e_kpt.py", "test_e2e_kustomize.py",
                                                          "test_e2e_argocd.py", "test_e2e_flux.py",
                                                          "test_e2e_packaging.py"}


def test_readme_and_ci_run_everything() -> None:
    readme = (ROOT / "README.md").read_text()
    command = [ln for ln in re.search(r"```sh\n(.*?)```", readme, re.S).group(1).splitlines() if "pytest" in ln][0]
    ci = (ROOT / ".ci" / "run").read_text()
    for text in (command, ci):
        assert "python -m pytest" in text and " -m " not in text.split("python -m pytest", 1)[1].split("\n")[0]


def test_e2e_readme_tells_the_truth_about_time_and_markers() -> None:
    text = (ROOT / "tests" / "e2e" / "README.md").read_text()
    assert "10 s" not in text
    assert '`python -m pytest -m "not e2e"`' in text and "a minute and a half" in text
    assert '`python -m pytest -m "not e2e"`' in (ROOT / "README.md").read_text()
