"""name-label (SD128): PASS and FAIL rows with apimachinery's exact messages (IsDNS1123Label, v0.35.0)."""
from __future__ import annotations

import pytest

from checktables import iset, make_workload, mri, settings, ws
from krm_fn.checks import name_label

REGEX = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
         "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
LONG = "must be no more than 63 characters"


def _named(text: str, name: str) -> str:
    old = next(ln for ln in text.splitlines() if ln.startswith("  name: "))
    return text.replace(old, f"  name: {name}", 1)


@pytest.mark.parametrize("name", ["ws", "phi-4-workspace", "123-abc", "a", "x" * 63, "'0'"])
def test_pass(name: str) -> None:
    assert name_label.findings(make_workload(_named(ws(), name))) == []


@pytest.mark.parametrize("name, message", [
    ("phi.4", "must not contain dots"),
    ("a.b.c", "must not contain dots"),
    ("My-Workspace", REGEX),
    ("ws_1", REGEX),
    ("-ws", REGEX),
    ("ws-", REGEX),
    ("'ws '", REGEX),
    ("x" * 64, LONG),
    ("x" * 61 + ".yz", f"{LONG}, must not contain dots"),
    ("_" * 64, f"{LONG}, {REGEX}"),
    ("é" * 32, f"{LONG}, {REGEX}"),  # 64 bytes in UTF-8: Go's len counts bytes
    ("\"ws\\n\"", REGEX),  # Go's `$` does not take a final line break as Python's does
])
def test_fail(name: str, message: str) -> None:
    assert [f[:3] for f in name_label.findings(make_workload(_named(ws(), name)))] == [
        (message, "metadata.name", "SD128")]


@pytest.mark.parametrize("text", [iset(), mri()])
def test_every_kind(text: str) -> None:
    assert [f.id for f in name_label.findings(make_workload(_named(text, "Bad.Name")))] == ["SD128"]


@pytest.mark.parametrize("prefix", ["ws-", "ws", "x" * 70, "1-"])
def test_a_generated_name_that_is_a_label(prefix: str) -> None:
    text = ws().replace("  name: ws\n", f"  generateName: {prefix}\n")
    assert name_label.findings(make_workload(text)) == []


@pytest.mark.parametrize("prefix, message", [
    ("phi.4-", "must not contain dots"),
    ("My-ws-", REGEX),
    ("ws_", REGEX),
    ("-ws-", REGEX),
])
def test_a_generated_name_that_is_no_label(prefix: str, message: str) -> None:
    # The API server names the object (prefix + 5 random letters or digits) before KAITO's webhook sees it.
    text = ws().replace("  name: ws\n", f"  generateName: {prefix}\n")
    assert [f[:3] for f in name_label.findings(make_workload(text))] == [
        (message, "metadata.generateName", "SD128")]


@pytest.mark.parametrize("name", ["123", "null", "true", "''"])
def test_a_name_that_is_no_string_is_sd007s(name: str) -> None:
    # `name: 123` is the reader's SD003 (no metadata.name string); "123" itself would be a valid label.
    assert name_label.findings(make_workload(_named(ws(), name))) == []


def test_no_multiroleinference_webhook_without_its_controller() -> None:
    w = make_workload(_named(mri(), "Bad.Name"))
    off = settings(featureGates="enableMultiRoleInferenceController=false")
    assert name_label.findings(w, off) == []
    assert [f.id for f in name_label.findings(w, settings())] == ["SD128"]
    assert [f.id for f in name_label.findings(make_workload(_named(iset(), "Bad.Name")), off)] == ["SD128"]


@pytest.mark.parametrize("name", ["phi-4-${CLUSTER}", "'${NAME}'", "'ws-${ENV:=dev}'"])
def test_a_flux_variable_is_filled_in_later(name: str) -> None:
    # Flux's postBuild.substitute makes the name after the function ran; as written, no cluster takes it.
    assert name_label.findings(make_workload(_named(ws(), name))) == []
    text = ws().replace("  name: ws\n", f"  generateName: {name}\n")
    assert name_label.findings(make_workload(text)) == []


def test_the_quick_test_agrees_with_apimachinerys_pattern() -> None:
    """not_a_label decides usual names without the pattern: both ways must agree, at the edges too."""
    import random
    import re
    rng = random.Random(128)
    alphabet = "ab9-.Z_é\n"
    cases = ["a", "-", "a-", "-a", "a" * 63, "a" * 64, "9" * 63 + "-", "a.b", "", "a\n"]
    cases += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 66))) for _ in range(3000)]
    for name in cases:
        ok = re.fullmatch(name_label._LABEL_FMT, name) is not None and len(name.encode("utf-8", "surrogatepass")) <= 63
        assert (name_label.not_a_label(name) is None) == ok, repr(name)
