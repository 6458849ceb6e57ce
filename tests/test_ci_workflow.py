"""Every change is gated: the ci workflow runs .ci/run on every push and pull request, and the weekly vLLM
pull requests get it too (started by a dispatch: a pull request opened with a workflow's own token starts no
pull_request run)."""
from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"


def _load(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def _runs(job: dict) -> list[str]:
    return [step.get("run", "") for step in job["steps"]]


def test_ci_runs_the_suite_on_every_push_and_pull_request() -> None:
    ci = _load("ci.yml")
    assert {"push", "pull_request", "workflow_dispatch"} <= set(ci["on"])
    assert ci["on"]["push"] in (None, {"branches": ["**"]})  # every branch, not only main
    (job,) = ci["jobs"].values()
    assert any(run.strip() == "bash .ci/run" for run in _runs(job))
    assert job["timeout-minutes"] <= 90


def test_the_weekly_vllm_pull_request_starts_ci_on_its_branch() -> None:
    weekly = _load("vllm-releases.yml")
    assert weekly["permissions"].get("actions") == "write"
    script = "\n".join(run for job in weekly["jobs"].values() for run in _runs(job))
    assert 'gh workflow run ci.yml --ref "${branch}"' in script
    assert script.index("gh pr create") < script.index("gh workflow run ci.yml")
