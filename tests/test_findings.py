"""Every finding is declared once in the catalogue (krm_fn/findings/), and the code and the catalogue agree:
each id a call site names exists, each declared id is reported somewhere, each message variant is used, and
each template fills in."""
from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from finding_ids import ids_used
from krm_fn import checks, findings
from krm_fn.findings import CATALOGUE, RETIRED, Severity, Spec
from krm_fn.text.results import finding

PACKAGE = Path(findings.__file__).resolve().parent.parent
ID = re.compile(r"SD[0-9]{3}")
VARIANT = re.compile(r'\bfinding\(\s*"(SD[0-9]{3})\.([A-Za-z0-9_-]+)"')


def _sources() -> dict[str, str]:
    return {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))
            if "findings" not in p.relative_to(PACKAGE).parts}


def test_every_spec_is_well_formed() -> None:
    for id, s in CATALOGUE.items():
        assert ID.fullmatch(id) and s.id == id
        assert isinstance(s.severity, Severity)
        assert s.title.strip() and "\n" not in s.title, f"{id}: no one-line title"
        assert s.templates() and all(t.strip() and "\n" not in t for t in s.templates()), f"{id}: no message"
        for template in s.templates():
            list(string.Formatter().parse(template))  # braces balanced: `{{` for a literal brace


def test_each_range_lives_in_its_module() -> None:
    """SD0xx in findings/input.py, SD1xx in findings/kaito.py, …: a new id goes with its range."""
    modules = {"0": "input", "1": "kaito", "2": "cascade", "3": "decisions", "4": "advice", "5": "render",
               "6": "vllm_config", "7": "plain_vllm", "8": "monitoring"}
    for name in modules.values():
        for s in getattr(findings, name).SPECS:
            assert modules[s.id[2]] == name, f"{s.id} is declared in findings/{name}.py"


def test_retired_ids_point_at_ids_that_say_them_now() -> None:
    assert set(RETIRED).isdisjoint(CATALOGUE) and set(RETIRED.values()) <= set(CATALOGUE)
    assert all(findings.spec(old) is CATALOGUE[new] for old, new in RETIRED.items())


def test_every_id_named_in_the_code_is_declared_and_every_declared_id_is_named() -> None:
    used = {id for text in _sources().values() for id in re.findall(r'"(SD[0-9]{3})(?:\.[A-Za-z0-9_-]+)?"', text)}
    assert used - set(CATALOGUE) - {"SD000"} == set(), "named in the code, not in the catalogue"  # SD000: SARIF's rule of a result without an id
    named_at_a_call = {id for path in PACKAGE.rglob("*.py") if "findings" not in path.parts for id in ids_used(path)}
    assert set(CATALOGUE) - named_at_a_call == set(), "declared, never reported"


def test_every_variant_named_exists_and_every_variant_declared_is_named() -> None:
    named = {(id, v) for text in _sources().values() for id, v in VARIANT.findall(text)}
    declared = {(s.id, v) for s in CATALOGUE.values() if not isinstance(s.message, str) for v in s.message}
    assert named - declared == set(), "a call names a variant the catalogue does not have"
    assert declared - named == set(), "a variant no call names"


def test_kaito_checks_hold_the_sd1xx_ids_and_nothing_else_does() -> None:
    """SD1xx are KAITO's admission rules (checks.CHECKS), and only checks/ reports them."""
    for name in _sources():
        sd1 = [id for id in ids_used(PACKAGE / name) if id.startswith("SD1")]
        assert not sd1 or name.startswith("checks/"), f"{name} reports {sd1}, KAITO's admission rules"


def test_a_template_fills_in_by_name_and_quotes_as_kaito_does() -> None:
    f = finding("SD101", "metadata.annotations[x]", value='tr"ue')
    assert f.message == 'annotation kaito.sh/enable-speculative-decoding has invalid value "tr\\"ue"; expected "true" or "false"'
    assert (f.id, f.severity, f.field) == ("SD101", Severity.ERROR, "metadata.annotations[x]")
    with pytest.raises(KeyError):
        finding("SD101", "x")  # a field the template needs, not given


def test_a_spec_with_variants_needs_one_named() -> None:
    s = Spec("SD999", Severity.ERROR, "t", {"a": "A {x}", "b": "B"})
    assert s.template("a") == "A {x}" and s.templates() == ("A {x}", "B")
    with pytest.raises(KeyError):
        s.template("")
    with pytest.raises(KeyError):
        Spec("SD998", Severity.ERROR, "t", "one").template("a")


def test_the_checks_report_only_their_range() -> None:
    for check in checks.CHECKS:
        assert all(id.startswith("SD1") for id in ids_used(check)), check.__name__


def test_only_the_catalogue_decides_a_findings_words_and_severity() -> None:
    """No call site builds a Finding or a Result itself, or passes a severity: it names an id (finding())."""
    import ast
    makers = {"text/results.py", "model/report.py"}  # finding(), Finding.result() and about() themselves
    for name, text in _sources().items():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            assert called not in ("Finding", "Result") or name in makers, f"{name}:{node.lineno}: {called}(…) by hand"
            assert all(k.arg != "severity" for k in node.keywords) or name in makers, f"{name}:{node.lineno}: a severity"
