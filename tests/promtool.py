"""Prometheus' own `promtool` (Debian/Ubuntu package `prometheus`; .ci/run installs it) for the tests: its rule
parser (`promtool check rules`) and its rule-unit-test engine (`promtool test rules`, which evaluates the
rules over synthetic series and checks records and alerts). A test that needs it skips, with the reason,
where it is not installed."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

MISSING = ("promtool is not installed (Debian/Ubuntu: apt-get install prometheus, as .ci/run does; or a "
           "Prometheus release's promtool on PATH)")


def require() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip(MISSING)
    return found


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([require(), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def check_rules(files: list[list[dict]]) -> str:
    """`promtool check rules --lint-fatal` on one rule file per entry (its groups: a PrometheusRule's
    `spec.groups`, as prometheus-operator writes each into a file of its own); promtool's output. Fails the
    test with promtool's words when Prometheus would refuse a file, or when one records the same series twice."""
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for i, groups in enumerate(files):
            names.append(f"rules-{i}.yaml")
            Path(tmp, names[-1]).write_text(yaml.safe_dump({"groups": groups}, sort_keys=False), encoding="utf-8")
        proc = _run(["check", "rules", "--lint-fatal", *names], Path(tmp))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout


def unit_test(groups: list[dict], tests: list[dict], evaluation_interval: str = "1m") -> None:
    """`promtool test rules`: the groups evaluated over each test's input series; fails the test with
    promtool's report when a record or an alert is not what the test expects."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "rules.yaml").write_text(yaml.safe_dump({"groups": groups}, sort_keys=False), encoding="utf-8")
        unit = {"rule_files": ["rules.yaml"], "evaluation_interval": evaluation_interval, "tests": tests}
        Path(tmp, "test.yaml").write_text(yaml.safe_dump(unit, sort_keys=False, width=1 << 16), encoding="utf-8")
        proc = _run(["test", "rules", "test.yaml"], Path(tmp))
        assert proc.returncode == 0, proc.stdout + proc.stderr

