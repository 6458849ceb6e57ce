"""checks.validate, as the plan's validate stage runs it: each check on its KINDS only; the first failing
opt-in check; `disable` filters (plan.fold drops the ids it names)."""
from __future__ import annotations

from checktables import make_workload, settings, ws
from krm_fn import plan
from krm_fn.model.changes import Plan
from krm_fn.checks import roles
from krm_fn.model.index import build_index
from krm_fn.text.reader import read_stream


def _validate(text: str, **data: str) -> list[tuple[str, str, str]]:
    index = build_index(read_stream([("w.yaml", text.encode())]).items)
    folded = plan.fold(Plan(), index, settings(**data), [plan.validate])
    return [(r.id, r.field_path, r.message) for r in folded.results]


def test_a_check_runs_on_its_kinds_only() -> None:
    """roles would find a Workspace without model and roles; KINDS keeps it to MultiRoleInferences."""
    assert roles.findings(make_workload(ws())) != []
    assert _validate(ws()) == []


def test_the_first_failing_opt_in_check_only_and_every_admission_finding() -> None:
    text = ws('"yes"', inference="  preset:\n    name: falcon-7b\n  template:\n    spec: {}\n")
    assert [id for id, _, _ in _validate(text)] == ["SD101", "SD111", "SD112"]


def test_disabled_ids_are_not_reported() -> None:
    text = ws(inference="  preset:\n    name: falcon-7b\n  template:\n    spec: {}\n")
    assert [id for id, _, _ in _validate(text)] == ["SD111", "SD112"]
    assert [id for id, _, _ in _validate(text, disable="SD112")] == ["SD111"]


def test_a_disabled_opt_in_finding_is_not_reported() -> None:
    text = ws('"true"\n    kaito.sh/runtime: "transformers"')
    assert [id for id, _, _ in _validate(text)] == ["SD105"]
    assert _validate(text, disable="SD105") == []
