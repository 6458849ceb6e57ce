"""Issue #30: tools/vllm_update.py, which the weekly workflow runs to keep the vLLM tables current, on a
recorded list of releases (tests/vllm_releases_recorded.txt: `pip index versions vllm`), no network."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "vllm_releases_recorded.txt"
WORKFLOW = ROOT / ".github" / "workflows" / "vllm-releases.yml"


def _tool():
    spec = importlib.util.spec_from_file_location("vllm_update", ROOT / "tools" / "vllm_update.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _releases() -> list[str]:
    tool = _tool()
    from vllm_verdicts import RELEASES  # tools/ is on sys.path once vllm_update is loaded
    assert tool is not None
    return list(RELEASES)


def test_the_recorded_releases_are_read_final_ones_only() -> None:
    found = _tool().published(RECORDED.read_text())
    assert found[-1] == "0.34.0" and "0.10.1.1" in found and "0.9.0.1" in found
    assert not [r for r in found if "post" in r or "rc" in r]
    assert found == sorted(found, key=lambda r: tuple(map(int, r.split("."))))


def test_the_tables_hold_every_recorded_release() -> None:
    tool = _tool()
    assert tool.to_add(tool.published(RECORDED.read_text()), _releases()) == []


def test_newer_releases_are_added_the_last_patch_of_each_minor() -> None:
    tool = _tool()
    text = RECORDED.read_text().replace("Available versions: 0.34.0,",
                                        "Available versions: 0.36.0, 0.36.0rc1, 0.35.1, 0.35.0, 0.34.1, 0.34.0,")
    assert tool.to_add(tool.published(text), _releases()) == ["0.34.1", "0.35.1", "0.36.0"]


def test_plan_prints_the_releases_to_add(tmp_path: Path) -> None:
    script = [sys.executable, str(ROOT / "tools" / "vllm_update.py"), "--plan", "--releases"]
    now = subprocess.run([*script, str(RECORDED)], capture_output=True, text=True, check=True)
    assert now.stdout == ""
    later = tmp_path / "later.txt"
    later.write_text(RECORDED.read_text().replace("Available versions: ", "Available versions: 0.35.0, 0.35.0rc2, "))
    out = subprocess.run([*script, str(later)], capture_output=True, text=True, check=True)
    assert out.stdout == "0.35.0\n"


def test_new_releases_are_appended_to_releases() -> None:
    tool = _tool()
    source = (ROOT / "tools" / "vllm_verdicts.py").read_text()
    changed = tool.with_releases(source, ["0.35.1", "0.36.0"])
    namespace: dict = {}
    block = changed[changed.index("RELEASES = ["):]
    exec(block[:block.index("]") + 1], namespace)  # noqa: S102 - the list literal alone
    assert namespace["RELEASES"] == _releases() + ["0.35.1", "0.36.0"]
    literal = block[:block.index("]") + 1]
    assert all(len(line) <= 120 for line in literal.splitlines())
    old = source[source.index("RELEASES = ["):]
    assert changed.replace(literal, "") == source.replace(old[:old.index("]") + 1], "")  # nothing else changed


def test_the_tables_split_and_merge_back_as_they_are(tmp_path: Path) -> None:
    """What --apply does with the releases already run: each one's rows as the table holds them, merged by
    the tools' own --merge, give the table back byte for byte."""
    tool = _tool()
    table = ROOT / "tests" / "vllm_verdicts.json"
    files = tool.split(json.loads(table.read_text()), tmp_path / "v", "rows")
    merged = subprocess.run([sys.executable, str(ROOT / "tools" / "vllm_verdicts.py"), "--merge", *map(str, files)],
                            capture_output=True, text=True, check=True).stdout
    assert merged == table.read_text()
    argv = json.loads((ROOT / "tests" / "vllm_argv.json").read_text())
    keep = {(r["source"], r["item"], r["container"], r["release"]) for r in argv["rows"]}
    files = tool.split(argv, tmp_path / "a", "argv", keep=keep)
    assert sum(len(json.loads(f.read_text())) for f in files) == sum(1 for r in argv["rows"] if r["release"])


def test_the_weekly_workflow_runs_the_script_and_opens_a_pull_request() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text())
    triggers = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads `on` as true
    cron = triggers["schedule"][0]["cron"].split()
    assert len(cron) == 5 and cron[2] == "*" and cron[3] == "*" and cron[4] not in ("*",)  # one weekday: weekly
    runs = "\n".join(step.get("run", "") for step in flow["jobs"]["update"]["steps"])
    assert "tools/vllm_update.py --plan" in runs and "tools/vllm_update.py --apply" in runs
    assert "gh pr create" in runs
    assert flow["permissions"] == {"contents": "write", "pull-requests": "write", "actions": "write"}


def test_apply_ends_with_the_combinations_table_over_every_release(tmp_path: Path, monkeypatch) -> None:
    """--apply's last step runs tools/vllm_combos.py over every release's source, fetching a release not there
    yet, so the weekly refresh regenerates krm_fn/domain/data/vllm_combos.json with the other tables."""
    tool = _tool()
    ran: list[list[str]] = []
    monkeypatch.setattr(tool.subprocess, "run", lambda cmd, **kw: ran.append([str(c) for c in cmd]))
    (tmp_path / "src" / "0.10.2" / "vllm").mkdir(parents=True)
    tool.combos(["0.35.0"], "/venv/bin/python", tmp_path)
    fetched = [c[c.index("--fetch") + 1] for c in ran if "--fetch" in c]
    assert "0.10.2" not in fetched and "0.35.0" in fetched and "0.34.0" in fetched
    assert ran[-1][1:] == [str(ROOT / "tools" / "vllm_combos.py"), "--root", str(tmp_path)]
