"""Every fixture case, under both YAML backends; plus the fixpoint: output fed back in is unchanged."""
from __future__ import annotations

import pytest
import yaml

from backends import BACKENDS
from golden import ROOT, UPDATE, case_backends, case_env, case_input, cases, status_doc, without_results
from krm_fn.text import yamlio
from runner import reading, run

CASES = cases()
# A case's `case.yaml` may leave a backend out (its parse errors are worded differently; that backend's
# wording is checked by its own exact-message test): such a pair is not collected rather than passed.
CASE_BACKENDS = [(case, b) for case in CASES for b in BACKENDS if b in case_backends(case)]


@pytest.mark.parametrize("case, backend", CASE_BACKENDS, indirect=["backend"])
def test_golden(case: str, backend: str) -> None:
    code, out, err = run([], case_input(case), case_env(case))
    assert "Traceback" not in err
    status = status_doc(code, out, err)
    expected_out, expected_status = ROOT / case / "expected.yaml", ROOT / case / "results.yaml"
    if UPDATE and backend == "c":
        expected_out.write_text(out, encoding="utf-8")
        expected_status.write_text(status, encoding="utf-8")
    assert out == expected_out.read_text(encoding="utf-8")
    assert status == expected_status.read_text(encoding="utf-8")


@pytest.mark.skipif(not yamlio.C_AVAILABLE, reason="the scan of shapes needs libyaml's C parser")
@pytest.mark.parametrize("case", [c for c in CASES if "c" in case_backends(c)])
def test_golden_with_the_scan_on_every_input(case: str, c_backend: None) -> None:
    """The same expectations with the scan of shapes tried however small the input (the image tries it
    from reader.SCAN_FROM bytes on, which the fixtures do not reach): the scan sees every fixture."""
    with reading(0):
        code, out, err = run([], case_input(case), case_env(case))
    assert "Traceback" not in err
    assert out == (ROOT / case / "expected.yaml").read_text(encoding="utf-8")
    assert status_doc(code, out, err) == (ROOT / case / "results.yaml").read_text(encoding="utf-8")


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
        assert case_backends(case), f"{case}/case.yaml names no backend"
        for name in ("expected.yaml", "results.yaml"):
            assert (ROOT / case / name).exists(), f"{case}/{name} missing"
        yaml.safe_load((ROOT / case / "results.yaml").read_text(encoding="utf-8"))
