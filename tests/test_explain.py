"""`kaito-specdec explain SDnnn` and `kaito-specdec findings`: a finding looked up from the installed catalogue,
no docs/ needed; and no help or message that points at a repository path a `pip install` does not have."""
from __future__ import annotations

import io
import json
import re

import pytest

from krm_fn import __version__, cli
from krm_fn.findings import CATALOGUE, RETIRED, shown
from krm_fn.text import explain

PINNED = f"https://github.com/kaito-project/kaito-specdec/blob/v{__version__}/docs/"


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, stdin=io.BytesIO(b""), stdout=out, stderr=err, environ={})
    return code, out.getvalue(), err.getvalue()


def _joined(text: str) -> str:
    """explain's wrapped lines as one line of words (a message or a why wrapped to 100 columns)."""
    return " ".join(text.split())


def test_explain_tells_title_severity_disable_messages_why_and_the_pinned_link() -> None:
    code, out, err = _run(["explain", "SD412"])
    assert code == 0 and err == ""
    s = CATALOGUE["SD412"]
    lines = out.splitlines()
    assert lines[0] == f"SD412 (warning): {s.title}"
    assert "The disable setting (render --disable) turns it off" in out
    assert all(_joined(shown(t)) in _joined(out) for t in s.templates())
    assert "why:" in lines and _joined(s.why.split("(")[0]) in _joined(out)
    assert lines[-1] == f"more: {PINNED}findings.md#rule-sd412"
    assert max(len(line) for line in lines[1:-1]) <= explain.WIDTH


def test_explain_says_when_disable_cannot_name_an_id_and_takes_any_case() -> None:
    code, out, _ = _run(["explain", "sd101"])
    assert code == 0 and out.startswith("SD101 (error): ")
    assert "It cannot be turned off" in out and "why:" not in out  # SD101 has no why: its message says it


def test_explain_takes_several_ids_and_a_merged_one() -> None:
    code, out, _ = _run(["explain", "SD112", "SD005"])
    assert code == 0
    first, second = out.split("\n\nSD005 ", 1)
    assert first.startswith("SD112 (error): ") and second.startswith("is now SD003 (ids merged).")
    assert f"SD003 (error): {CATALOGUE['SD003'].title}" in second


def test_explain_of_an_id_this_version_lacks_is_a_usage_error() -> None:
    code, out, err = _run(["explain", "SD999"])
    assert code == 2 and out == ""
    assert err.startswith("usage: kaito-specdec explain ") and "'SD999' is no finding id of this version" in err


@pytest.mark.parametrize("id", [*CATALOGUE, *RETIRED])
def test_every_id_is_explained_with_no_relative_link(id: str) -> None:
    """The whys' links (`plain-vllm.md`, `#sd715`, `../fixtures/…`) become addresses at the release's tag."""
    text = "\n".join(explain.explain(id, __version__))
    why = text.split("\nwhy:\n", 1)[1] if "\nwhy:\n" in text else ""
    assert "](" not in text and not re.search(r"\((?!https://)[\w./-]+\.(md|yaml)\b", why), why
    for url in re.findall(r"https://github\.com/kaito-project/kaito-specdec/blob/\S+", text):
        assert url.startswith(f"https://github.com/kaito-project/kaito-specdec/blob/v{__version__}/"), url


def test_findings_lists_every_id_with_its_severity_and_title() -> None:
    code, out, _ = _run(["findings"])
    assert code == 0
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines] == list(CATALOGUE)
    for line, s in zip(lines, CATALOGUE.values(), strict=True):
        assert line == f"{s.id}  {s.severity.value:<7}  {s.title}"


def test_findings_as_json_tells_what_explain_tells() -> None:
    code, out, _ = _run(["findings", "--format", "json"])
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == list(CATALOGUE)
    sd721 = next(r for r in rows if r["id"] == "SD721")
    s = CATALOGUE["SD721"]
    assert (sd721["severity"], sd721["title"], sd721["canDisable"]) == (s.severity.value, s.title, s.can_disable)
    assert sd721["messages"] == [shown(t) for t in s.templates()]
    assert sd721["helpUri"] == f"{PINNED}findings.md#rule-sd721" and f"]({PINNED}plain-vllm.md)" in sd721["why"]


def test_rule_names_are_the_titles_as_identifiers() -> None:
    assert explain.rule_name(CATALOGUE["SD101"].title) == "OptInAnnotationIsAStringOtherThanTrueOrFalse"
    assert explain.rule_name(CATALOGUE["SD102"].title) == "OptInAnnotationIsUnquotedYAMLReadsItAsNoString"
    names = [explain.rule_name(s.title) for s in CATALOGUE.values()]
    assert len(set(names)) == len(names) and all(re.fullmatch(r"[A-Z][A-Za-z0-9]*", n) for n in names)


def test_no_help_points_at_a_repository_path() -> None:
    """A `pip install` has no docs/: --help names the commands that tell a finding, and a pinned address."""
    for argv in (["--help"], ["render", "--help"], ["presets", "--help"], ["explain", "--help"],
                 ["findings", "--help"]):
        code, out, _ = _run(argv)
        assert code == 0 and not re.search(r"(?<![/\w])docs/", out), (argv, out)
    _, out, _ = _run(["--help"])
    assert "kaito-specdec findings" in out and "kaito-specdec explain SD112" in out
    assert f"{PINNED}settings.md" in out
    assert re.search(r"^    explain +what a finding id means", out, re.M)


def test_no_message_points_at_a_repository_path() -> None:
    """A message names `kaito-specdec explain`/`findings` or an address, never docs/ (not in a pip install)."""
    found = [(s.id, t) for s in CATALOGUE.values() for t in s.templates() if re.search(r"(?<![/\w])docs/", t)]
    assert not found, found
