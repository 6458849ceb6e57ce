"""Every finding has a stable id, one home and one greppable message: the catalogue and the code agree."""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from krm_fn import checks, findings

PACKAGE = Path(findings.__file__).resolve().parent
# Built, table-tested, not yet wired into the plan (issues #11 and #12): their ids join the catalogue, and so
# docs/findings.md and `disable`, in the change that makes the function emit them.
NOT_WIRED: set[str] = set()
# The calls that make a finding, and the position of their message argument.
FINDING_CALLS = {"about": 1, "Result": 1, "Finding": 0, "ConfigError": 0, "_failure": 0}
ID = re.compile(r"SD[0-9]{3}")
ID_LITERAL = re.compile(r'\bid="(SD[0-9]+)"')


def _sources() -> dict[str, Path]:
    """Module name (`shape`, `checks.roles`) -> file, for every module of the package."""
    return {".".join(p.relative_to(PACKAGE).with_suffix("").parts): p for p in sorted(PACKAGE.rglob("*.py"))
            if p.name != "__main__.py"}


def _short(module) -> str:
    return module.__name__.removeprefix("krm_fn.")


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in FINDING_CALLS:
                yield name, node


def test_ids_are_unique_well_formed_and_titled() -> None:
    seen: dict[str, str] = {}
    for module in findings.MODULES:
        for id, title in getattr(module, "FINDINGS", {}).items():
            assert ID.fullmatch(id), f"{_short(module)}: malformed id {id!r}"
            assert id not in seen, f"{id} is declared by {seen[id]} and {_short(module)}"
            seen[id] = _short(module)
            assert isinstance(title, str) and title.strip() and "\n" not in title, f"{id}: no one-line title"
        always = getattr(module, "ALWAYS_ON", frozenset())
        assert always <= set(getattr(module, "FINDINGS", {})), f"{_short(module)}: ALWAYS_ON names undeclared ids"
    assert set(findings.CATALOGUE) == set(seen)
    # and the ids merged into others, which `disable` still takes as the id that says them now
    assert set(findings.CAN_DISABLE) == set(seen) | set(findings.RETIRED)
    assert set(findings.RETIRED).isdisjoint(seen) and set(findings.RETIRED.values()) <= set(seen)


def test_kaito_checks_hold_the_sd1xx_ids_and_nothing_else_does() -> None:
    """SD1xx are KAITO's admission rules (checks.CHECKS); the other ranges: docs/findings.md, findings.py."""
    kaito = set(checks.CHECKS)
    for id, (_, module) in findings.CATALOGUE.items():
        assert (module in kaito) == id.startswith("SD1"), f"{id} of {_short(module)}: SD1xx are KAITO's checks'"


def test_every_module_with_findings_is_in_the_catalogue() -> None:
    catalogued = {_short(m) for m in findings.MODULES}
    for name, path in _sources().items():
        if re.search(r"^FINDINGS = ", path.read_text(encoding="utf-8"), re.M):
            assert name in catalogued or name in NOT_WIRED, f"{name} declares FINDINGS but is not in findings.MODULES"
    assert not NOT_WIRED & catalogued, "a wired module is still listed in NOT_WIRED"


@pytest.mark.parametrize("name", sorted(set(_sources()) - NOT_WIRED))  # NOT_WIRED: their own id tests
def test_every_id_used_is_declared_in_its_module_and_every_declared_id_is_used(name: str) -> None:
    text = _sources()[name].read_text(encoding="utf-8")
    used = set(ID_LITERAL.findall(text))
    module = __import__(f"krm_fn.{name}", fromlist=["_"])
    declared = set(getattr(module, "FINDINGS", {}))
    assert used == declared, (f"{name}: used but not declared {sorted(used - declared)}, "
                              f"declared but not used {sorted(declared - used)}")


@pytest.mark.parametrize("name", sorted(set(_sources()) - NOT_WIRED))  # NOT_WIRED: their own id tests
def test_every_call_that_makes_a_finding_passes_an_id(name: str) -> None:
    if name == "model.report":  # report.about forwards its caller's id (**values)
        return
    tree = ast.parse(_sources()[name].read_text(encoding="utf-8"))
    for call, node in _calls(tree):
        keywords = {k.arg for k in node.keywords}
        assert "id" in keywords, f"{name}, line {node.lineno}: {call}(...) without id="


def _string_pieces(segment: str) -> int:
    """How many string literals a source segment is made of (2 or more: implicit concatenation)."""
    count, depth = 0, 0
    for tok in tokenize.generate_tokens(io.StringIO(segment).readline):
        kind = tokenize.tok_name[tok.type]
        if kind == "FSTRING_START":  # Python 3.12 tokenizes f-strings in parts
            count += depth == 0
            depth += 1
        elif kind == "FSTRING_END":
            depth -= 1
        elif kind == "STRING" and depth == 0:
            count += 1
    return count


@pytest.mark.parametrize("name", sorted(set(_sources()) - NOT_WIRED))  # NOT_WIRED: their own id tests
def test_every_message_is_one_literal(name: str) -> None:
    """`grep` for a message seen in a fixture finds its one home: no message split across literals."""
    text = _sources()[name].read_text(encoding="utf-8")
    for call, node in _calls(ast.parse(text)):
        at = FINDING_CALLS[call]
        if len(node.args) > at and isinstance(node.args[at], (ast.Constant, ast.JoinedStr)):
            segment = ast.get_source_segment(text, node.args[at])
            assert _string_pieces(segment) == 1, f"{name}, line {node.lineno}: a message split across literals"


def test_the_string_piece_counter_can_fail() -> None:
    assert _string_pieces('f"a {x}" "b"') == 2
    assert _string_pieces('f"a {\', \'.join(x)}"') == 1
