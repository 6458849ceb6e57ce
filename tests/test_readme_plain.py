"""The README's plain-workload example (issue #12) is the real input and the real output."""
from __future__ import annotations

import re
from pathlib import Path

from runner import run

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CASE = ROOT / "fixtures" / "plain-deployment" / "items.yaml"


def _block(name: str) -> str:
    m = re.search(rf"<!-- {name}:start -->\n```yaml\n(.*?)```\n<!-- {name}:end -->", README, re.S)
    assert m, f"README has no {name} block"
    return m.group(1)


def test_plain_deployment_example_is_the_fixture_and_its_render() -> None:
    assert _block("plain-deployment-input") == CASE.read_text(encoding="utf-8")
    code, out, err = run(["render", str(CASE)])
    assert code == 0, err
    assert _block("plain-deployment-output") == out
    assert '--speculative-config={"method":"mtp","num_speculative_tokens":1}' in out


def test_the_findings_table_links_to_the_plain_section() -> None:
    heading = "## Plain vLLM workloads (Deployments, StatefulSets, LeaderWorkerSets, KServe)"
    assert heading in README
    assert "(#plain-vllm-workloads-deployments-statefulsets-leaderworkersets-kserve)" in README
