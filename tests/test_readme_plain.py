"""docs/plain-vllm.md's Deployment example is the real input and the real output."""
from __future__ import annotations

import re
from pathlib import Path

from runner import run

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "plain-vllm.md").read_text(encoding="utf-8")
CASE = ROOT / "fixtures" / "plain-deployment" / "items.yaml"


def _block(name: str) -> str:
    m = re.search(rf"<!-- {name}:start -->\n```yaml\n(.*?)```\n<!-- {name}:end -->", DOC, re.S)
    assert m, f"docs/plain-vllm.md has no {name} block"
    return m.group(1)


def test_plain_deployment_example_is_the_fixture_and_its_render() -> None:
    assert _block("plain-deployment-input") == CASE.read_text(encoding="utf-8")
    code, out, err = run(["render", str(CASE)])
    assert code == 0, err
    assert _block("plain-deployment-output") == out
    assert '--speculative-config={"method":"mtp","num_speculative_tokens":1}' in out


def test_the_info_result_shown_is_real() -> None:
    """The SD701 message and field the page quotes are the fixture's."""
    results = (ROOT / "fixtures" / "plain-deployment" / "results.yaml").read_text(encoding="utf-8")
    assert "model Qwen/Qwen3.5-4B read as qwen/qwen3.5-4b (tuned): --speculative-config=" in results
    assert "model Qwen/Qwen3.5-4B read as qwen/qwen3.5-4b (tuned): --speculative-config=…` (SD701)" in DOC
    assert "path: spec.template.spec.containers[0].args" in results
    assert "at `spec.template.spec.containers[0].args`" in DOC


def test_the_page_is_linked_from_the_readme_and_the_findings() -> None:
    heading = "# Plain vLLM workloads (Deployments, StatefulSets, LeaderWorkerSets, KServe)"
    assert DOC.startswith(heading + "\n")
    assert "](docs/plain-vllm.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](plain-vllm.md)" in (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
