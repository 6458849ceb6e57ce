"""Every fixture case; plus the fixpoint: output fed back in is unchanged."""
from __future__ import annotations

import pytest

from golden import ROOT, UPDATE, case_env, case_input, cases, status_doc, without_results
from runner import run, run_whole

CASES = cases()


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str) -> None:
    code, out, err = run_whole([], case_input(case), case_env(case))
    assert "Traceback" not in err
    status = status_doc(code, out, err)
    expected_out, expected_status = ROOT / case / "expected.yaml", ROOT / case / "results.yaml"
    if UPDATE:
        expected_out.write_text(out, encoding="utf-8")
        expected_status.write_text(status, encoding="utf-8")
    assert out == expected_out.read_text(encoding="utf-8")
    assert status == expected_status.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_fixpoint(case: str) -> None:
    """Feeding the output back in (as kpt fn render does) changes nothing but the results."""
    text = case_input(case)
    code, out, _ = run([], text, case_env(case))
    if code != 0:
        # A failing run changes nothing: no output at all, or every input byte plus the results.
        assert out == "" or without_results(out) == text
        return
    code2, out2, _ = run([], without_results(out), case_env(case))
    assert code2 == 0
    assert without_results(out2) == without_results(out)


def test_every_case_has_expectations() -> None:
    assert CASES, "no fixtures found"
    for case in CASES:
        assert (ROOT / case / "expected.yaml").exists() and (ROOT / case / "results.yaml").exists(), case
