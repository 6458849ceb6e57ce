"""Issue 37, item 11: 0 clean, 1 findings at the fail-on level, 2 when the run could not judge (docs/cli.md,
"Exit status"). Which findings mean the run could not judge is the catalogue's (Spec.could_not_judge), not a
list at a call site."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from krm_fn.findings import CATALOGUE
from krm_fn.text.explain import explain
from runner import run

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
QUICKSTART = FIXTURES / "quickstart-workspace" / "items.yaml"
RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"


def test_every_golden_exits_2_exactly_when_a_result_says_the_run_could_not_judge() -> None:
    seen = set()
    for path in sorted(FIXTURES.glob("*/results.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        ids = {(r.get("tags") or {}).get("id") for r in doc.get("results") or []}
        not_judged = any(CATALOGUE[i].could_not_judge for i in ids if i in CATALOGUE)
        assert (doc["exitCode"] == 2) == not_judged, (path.parent.name, doc["exitCode"], sorted(ids - {None}))
        seen.add(doc["exitCode"])
    assert seen == {0, 1, 2}


def test_the_could_not_judge_findings_are_errors_that_cannot_be_turned_off() -> None:
    marked = [s for s in CATALOGUE.values() if s.could_not_judge]
    assert {"SD020", "SD021", "SD513", "SD519", "SD525"} <= {s.id for s in marked}
    assert all(s.severity.value == "error" and not s.can_disable for s in marked)
    # A file that is not YAML, a key twice, an admission error: findings about the manifests, exit 1.
    assert not {s.id for s in marked} & {"SD001", "SD003", "SD004", "SD101", "SD112"}


@pytest.mark.parametrize("argv, code", [
    (["render", str(QUICKSTART)], 0),
    (["render", "--fail-on", "warning", str(QUICKSTART)], 1),           # SD412, a warning
    (["render", "/nonexistent/ws.yaml"], 2),                             # SD513
    (["render", "--kaito-version", "v9", str(QUICKSTART)], 2),           # SD021
    (["render", "--disable", "SD999", str(QUICKSTART)], 2),              # SD021: an unknown id in disable
    (["render", "--disable", "SD001", str(QUICKSTART)], 2),              # SD041
    (["render", "--bogus", str(QUICKSTART)], 2),                         # argparse's usage error
])
def test_render_exit_status(argv: list[str], code: int) -> None:
    assert run(argv).code == code


def test_a_path_it_cannot_read_beside_an_admission_error_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "ws.yaml"
    bad.write_text(QUICKSTART.read_text(encoding="utf-8").replace('"true"', '"True"'), encoding="utf-8")
    assert run(["render", str(bad)]).code == 1                                  # SD101
    r = run(["render", str(bad), str(tmp_path / "missing.yaml")])
    assert r.code == 2 and "[SD513]" in r.err                                   # the run could not judge
    r = run(["render", "--disable", "SD999", str(bad)])
    assert r.code == 2 and "[SD021]" in r.err


def test_krm_mode_exits_2_on_a_bad_setting_with_its_results_written() -> None:
    r = run([], RL, {"KAITO_SPECDEC_MODE": "fast"})
    assert r.code == 2 and "severity: error" in r.out and "id: SD021" in r.out
    assert run([], RL).code == 0


def test_explain_tells_which_findings_exit_2() -> None:
    assert "exits 2" in " ".join(explain("SD513", "0.1.0"))
    assert "exits 2" not in " ".join(explain("SD001", "0.1.0"))
