"""inference-or-tuning (SD110, SD131): PASS and FAIL rows with the exact message and id."""
from __future__ import annotations

from checktables import make_workload, ws
from krm_fn.checks import inference_or_tuning


def test_pass() -> None:
    assert inference_or_tuning.findings(make_workload(ws())) == []
    assert inference_or_tuning.findings(make_workload(ws(inference="", extra="tuning:\n  method: qlora\n"))) == []
    assert inference_or_tuning.KINDS == ("Workspace",)  # validate runs it on Workspaces only


def test_fail() -> None:
    text = ws(extra="tuning:\n  method: qlora\n")
    assert [f[:3] for f in inference_or_tuning.findings(make_workload(text))] == [
        ("Either Inference or Tuning must be specified, but not both", "spec", "SD110")]


def test_neither() -> None:
    for text in (ws(inference=""), ws(inference="", extra="inference: null\n")):
        assert [f[:3] for f in inference_or_tuning.findings(make_workload(text))] == [
            ("Either Inference or Tuning must be specified, not neither", "spec", "SD131")]
