"""docs/ tells the truth: its tables are generated from the package or checked against it, its examples are real
runs, its links resolve, and it names nothing a reader of this repository does not have."""
from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from krm_fn import checks, findings, plan
from krm_fn.model import config
from krm_fn.model.config import resolve_settings
from finding_ids import ids_used
from runner import run

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "bench"))

import findings_doc  # noqa: E402


def _read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# --- docs/findings.md: generated --------------------------------------------------------------------------

def test_the_findings_table_is_current() -> None:
    text = _read("findings.md")
    assert findings_doc.document(text) == text, \
        f"docs/findings.md is out of date: run `{findings_doc.COMMAND}` and commit it"


def test_the_findings_check_can_fail(monkeypatch) -> None:
    """A new id, a changed `can_disable` or a new why changes the page (what a forgotten regeneration leaves)."""
    import dataclasses
    text = _read("findings.md")
    new = findings.Spec("SD999", findings.Severity.WARNING, "a new finding", "it {x}")
    for changed in ({**findings.CATALOGUE, "SD999": new},
                    {**findings.CATALOGUE, "SD101": dataclasses.replace(findings.CATALOGUE["SD101"], can_disable=True)},
                    {**findings.CATALOGUE, "SD101": dataclasses.replace(findings.CATALOGUE["SD101"], why="Because.")}):
        monkeypatch.setattr(findings_doc, "CATALOGUE", changed)
        assert findings_doc.document(text) != text


def test_the_findings_table_has_every_id_once_with_a_severity() -> None:
    rows = re.findall(r"^\| (SD[0-9]{3}) \| ([a-z /]+) \| (.*) \| (yes|no) \|$", _read("findings.md"), re.M)
    assert [r[0] for r in rows] == list(findings.CATALOGUE)
    for id, severity, _, can in rows:
        assert severity == findings.CATALOGUE[id].severity.value, (id, severity)
        assert can == ("yes" if findings.CATALOGUE[id].can_disable else "no")


def _fixture_results():
    for path in sorted((ROOT / "fixtures").glob("*/results.yaml")):
        for result in yaml.safe_load(path.read_text(encoding="utf-8")).get("results") or []:
            id = (result.get("tags") or {}).get("id")
            if id:
                yield path.parent.name, id, result


def test_the_generated_severities_and_messages_are_what_the_fixtures_get() -> None:
    """Every result a golden fixture records agrees with the catalogue: its id's severity, and a message one of
    the id's templates makes (its fields filled in with anything)."""
    seen = set()
    for case, id, result in _fixture_results():
        seen.add(id)
        spec = findings.CATALOGUE[id]
        assert result["severity"] == spec.severity.value, f"{case}: {id} is {result['severity']}, the catalogue says {spec.severity.value}"
        messages = [findings_doc.shown(t) for t in spec.templates()]
        patterns = [re.compile("(?s)" + ".*".join(re.escape(part) for part in m.split("…"))) for m in messages]
        # A KRM result's message ends in its id (kpt prints no tags); plan._nothing_written appends
        # `[not written: why]` before it to a change it does not make (validate mode, errors).
        assert result["message"].endswith(f" [{id}]"), f"{case}: {result['message']!r} does not end in its id"
        message = re.sub(r" \[not written: [^\]]*\]\Z", "", result["message"][:-len(f" [{id}]")])
        assert any(p.fullmatch(message) for p in patterns), \
            f"{case}: {id}'s message {result['message'][:80]!r} is none of {messages}"
    assert len(seen) > 100, "the fixtures should exercise most ids"


def test_turning_findings_off_example_is_accepted() -> None:
    """The functionConfig example is a valid one: its ids exist and may be turned off."""
    section = _read("findings.md").split("## Turning findings off", 1)[1]
    example = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))
    settings = resolve_settings(example, {})
    assert settings.disable and settings.disable <= set(findings.CATALOGUE)


# --- docs/checks.md ---------------------------------------------------------------------------------------

def test_every_check_is_documented() -> None:
    text = _read("checks.md")
    for check in checks.CHECKS:
        assert f"`{check.ID}`" in text, check.ID
        assert check.__doc__ and "PASS" in check.__doc__ and "FAIL" in check.__doc__
        assert "KAITO rule mirrored" in check.__doc__, check.ID


def test_check_table_names_the_ids_and_the_kaito_rule_of_every_check() -> None:
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^   \| `([a-z-]+)` \|(.*)\|$", _read("checks.md"), re.M)}
    assert set(rows) == {check.ID for check in checks.CHECKS}
    for check in checks.CHECKS:
        cells = [c.strip() for c in rows[check.ID].split(" | ")]
        assert len(cells) == 3 and cells[2], f"{check.ID}: no KAITO rule column"
        assert cells[0].split(", ") == sorted(set(ids_used(check))), f"{check.ID}: the ids column is not the ids it reports"


def test_checks_beyond_kaito_name_real_fixtures_and_severities() -> None:
    section = _read("checks.md").split("## Checks beyond KAITO's webhooks", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in ln.strip("|").split(" | ")] for ln in section.splitlines()
            if ln.startswith("| ") and not ln.startswith(("| check ", "|---"))]
    assert len(rows) >= 8
    for _, ids, severity, _, fixtures in rows:
        for name in re.findall(r"`([\w-]+)`", fixtures):
            assert (ROOT / "fixtures" / name).is_dir(), name
        named = re.findall(r"SD[0-9]{3}(?!–)", ids)
        if severity in ("error", "warning", "info"):
            for id in named:
                assert severity == findings.CATALOGUE[id].severity.value, (id, severity)


def test_quickstart_inferenceset_output_is_real() -> None:
    m = re.search(r"<!-- quickstart-inferenceset:start -->\n```yaml\n(.*?)```\n<!-- quickstart-inferenceset:end -->",
                  _read("checks.md"), re.S)
    assert m, "docs/checks.md has no quickstart-inferenceset block"
    code, out, err = run(["render", str(ROOT / "fixtures" / "quickstart-inferenceset" / "items.yaml")])
    assert code == 0, err
    configmap, inference = m.group(1).split("---\n...\n")
    assert out.startswith(configmap) and out.endswith(inference)


def test_quickstart_multiroleinference_and_override_claims() -> None:
    code, out, err = run(["render", str(ROOT / "fixtures" / "quickstart-multiroleinference" / "items.yaml")])
    assert code == 0, err
    assert out.count("runtimeConfig: specdec-mtp-39f658ba0e") == 2
    assert "`runtimeConfig: specdec-mtp-39f658ba0e`\non both roles" in _read("checks.md")
    case = ROOT / "fixtures" / "override-workspace"
    results = yaml.safe_load((case / "results.yaml").read_text(encoding="utf-8"))["results"]
    # SD428: which vLLM release the override was judged by (neither vllmVersion nor kaitoVersion is set)
    assert [(r["severity"], r["tags"]["id"]) for r in results] == [("info", "SD428"), ("info", "SD302")]


# --- docs/settings.md -------------------------------------------------------------------------------------

def test_every_setting_is_documented_with_its_variable() -> None:
    rows = re.findall(r"^\| `(\w+)` \| .* \| `(KAITO_SPECDEC_\w+)` \|$", _read("settings.md"), re.M)
    assert sorted(s for s, _ in rows) == sorted(config.SETTINGS)
    for setting, variable in rows:
        assert variable == "KAITO_SPECDEC_" + config.ENV_NAMES[setting]
    notes = re.findall(r"^\| `(\w+)` \| `(KAITO_SPECDEC_\w+)` \| `(ARGOCD_ENV_\w+)` \|", _read("orchestrators-notes.md"), re.M)
    assert sorted(s for s, _, _ in notes) == sorted(config.SETTINGS)
    for setting, variable, argocd in notes:
        assert variable == "KAITO_SPECDEC_" + config.ENV_NAMES[setting] and argocd == "ARGOCD_ENV_" + variable


def test_a_setting_from_the_environment_and_the_argocd_form_is_read() -> None:
    assert config.from_environment({"ARGOCD_ENV_KAITO_SPECDEC_MODE": "validate"}) == {"mode": "validate"}
    assert config.from_environment({"KAITO_SPECDEC_MODE": "validate", "ARGOCD_ENV_KAITO_SPECDEC_MODE": "x"}) == \
        {"mode": "validate"}  # the plain form wins


# --- docs/monitoring.md -----------------------------------------------------------------------------------

def test_the_monitoring_names_are_the_builders() -> None:
    from krm_fn.domain import monitoring
    text = _read("monitoring.md")
    for name in (monitoring.ALERT, monitoring.KIND_LABEL, monitoring.NAME_PREFIX,
                 monitoring.ACCEPTANCE_RATE.format(window="5m"), monitoring.ACCEPTANCE_LENGTH.format(window="5m")):
        assert name in text, name
    assert "kaito_specdec:acceptance_rate:ratio_rate5m" in text
    assert monitoring.ALERT_FOR == "30m" and "for 30 minutes" in text
    for name in (monitoring.NOT_DRAFTING_ALERT, monitoring.DECODE_TOKENS, monitoring.DRAFTS_RECORD,
                 monitoring.GENERATION_TOKENS, monitoring.FINISHED_REQUESTS):
        assert name in text, name
    assert (monitoring.NOT_DRAFTING_WINDOW, monitoring.NOT_DRAFTING_FOR) == ("15m", "15m")
    for name in (monitoring.DRAFTER_DEAD_ALERT, monitoring.PREFIX_CACHE_INERT_ALERT, monitoring.ACCEPTANCE_DROPPED_ALERT,
                 monitoring.PREFIX_CACHE_QUERIES, monitoring.PREFIX_CACHE_HITS, monitoring.PREFIX_CACHE_QUERIES_RECORD,
                 monitoring.PREFIX_CACHE_HITS_RECORD, monitoring.ACCEPTANCE_RATE.format(window=monitoring.BASELINE_WINDOW)):
        assert name in text, name
    assert (monitoring.DRAFTER_DEAD_RATE, monitoring.DRAFTER_DEAD_FOR) == ("0.02", "10m") and "below 2 % for 10" in text
    assert (monitoring.PREFIX_CACHE_WINDOW, monitoring.PREFIX_CACHE_FOR) == ("30m", "30m")
    assert (monitoring.BASELINE_WINDOW, monitoring.DROPPED_FRACTION, monitoring.DROPPED_FOR) == ("6h", "0.5", "30m")
    assert "below half of the workload's\n  own over 6 hours, for 30 minutes" in text
    assert monitoring.RULE_BUDGET == 240 * 1024 and "fits in 240 KiB" in text and "256 KiB" in text
    assert "drafts none over 15 minutes, held for 15 minutes" in " ".join(text.split())


def test_each_alerts_runbook_is_a_section_of_the_monitoring_docs() -> None:
    """Every alert with a runbook_url points at its `## Runbook: <alert>` section, which names the upstream issues
    the causes come from and says what to run."""
    from krm_fn.domain import monitoring
    text = _read("monitoring.md")
    issues = {monitoring.DRAFTER_DEAD_ALERT: ("vllm-project/vllm#35548", "vllm-project/vllm#41789"),
              monitoring.PREFIX_CACHE_INERT_ALERT: ("vllm-project/vllm#54360", "vllm-project/vllm#53670",
                                                    "vllm-project/vllm#51250"),
              monitoring.ACCEPTANCE_DROPPED_ALERT: ("vllm-project/vllm#41838",)}
    for alert in (r["alert"] for r in monitoring.rules("ns", [monitoring.Monitored("Workspace", "w")])
                  if "runbook_url" in r.get("annotations", {})):
        base, _, anchor = monitoring.runbook(alert).partition("#")
        assert base == "https://github.com/kaito-project/kaito-specdec/blob/main/docs/monitoring.md"
        assert anchor in _anchors(text) and f"## Runbook: {alert}\n" in text
        section = text.split(f"## Runbook: {alert}\n", 1)[1].split("\n## ", 1)[0]
        assert "```promql" in section and "```sh" in section
        for issue in issues.get(alert, ()):
            repo, _, number = issue.partition("#")
            assert f"[{issue}](https://github.com/{repo}/" in section and f"/{number})" in section, issue
    assert set(issues) < {r["alert"] for r in monitoring.rules("ns", [monitoring.Monitored("Workspace", "w")])
                          if "alert" in r}


def test_the_readme_says_the_rule_tells_both_failures() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert '"drafts poorly" and "drafts nothing"' in readme
    row = re.search(r"^\| `prometheusRules` \|.*$", (ROOT / "README.md").read_text(encoding="utf-8"), re.M)
    assert row and "drafts poorly" in row.group(0) and "drafts nothing" in row.group(0)


def test_the_alerts_runbook_url_is_the_monitoring_docs_runbook() -> None:
    from krm_fn.domain import monitoring
    base, _, anchor = monitoring.RUNBOOK.partition("#")
    assert base == "https://github.com/kaito-project/kaito-specdec/blob/main/docs/monitoring.md"
    text = _read("monitoring.md")
    assert anchor in _anchors(text) and f"## Runbook: {monitoring.NOT_DRAFTING_ALERT}\n" in text
    # The order the runbook gives: SD420's command, the vLLM release, the pod's config, MTP weights.
    runbook = text.split(f"## Runbook: {monitoring.NOT_DRAFTING_ALERT}\n", 1)[1].split("\n## ", 1)[0]
    steps = [runbook.index(s) for s in ("kubectl delete statefulset", "vllm.__version__",
                                        "speculative_config=", "MTP weights")]
    assert steps == sorted(steps)


# --- docs/performance.md ----------------------------------------------------------------------------------

def test_the_performance_table_is_the_benchmarks() -> None:
    import run as bench
    text = _read("performance.md")
    lines = text.splitlines()
    assert bench.SIZE_HEADER in lines, "the table's header is not what bench/run.py prints"
    at = lines.index(bench.SIZE_HEADER)
    columns = bench.SIZE_HEADER.count("|") - 1
    rows = list(itertools.takewhile(lambda ln: ln.startswith("|"), lines[at + 2:]))
    assert rows and lines[at + 1] == "|" + "---:|" * columns
    for row in rows:
        assert row.count("|") - 1 == columns, row
    assert bench.BASELINE_HEADER in lines, "the before/after table's header is not what bench/run.py prints"
    at = lines.index(bench.BASELINE_HEADER)
    before_after = list(itertools.takewhile(lambda ln: ln.startswith("|"), lines[at + 2:]))
    assert [ln.split("|")[1].strip() for ln in before_after][:1] == ["one Workspace"]
    assert text.count("\n| ") - len(rows) - 1 - len(before_after) - 1 == 0, "the current table and the before/after one only"


def test_the_performance_commands_use_real_flags() -> None:
    source = (ROOT / "bench" / "run.py").read_text(encoding="utf-8")
    commands = [ln for ln in _read("performance.md").splitlines() if ln.startswith("python bench/run.py")]
    assert len(commands) >= 2  # the usage and the command the figures came from
    for command in commands:
        for flag in re.findall(r"--[a-z-]+", command):
            assert f'"{flag}"' in source, flag


# --- docs/architecture.md ---------------------------------------------------------------------------------

def test_the_stage_picture_is_the_plan() -> None:
    block = re.search(r"```\n(check_input .*?)```", _read("architecture.md"), re.S).group(1)
    names = re.findall(r"[a-z_]+", block.replace("errors stop here", ""))
    assert names == ["check_input", *(s.__name__ for s in plan.CHECKS), *(s.__name__ for s in plan.CHANGES)]


def test_every_module_is_named_in_the_architecture() -> None:
    text = _read("architecture.md")
    for path in sorted((ROOT / "krm_fn").rglob("*.py")):
        name = path.relative_to(ROOT / "krm_fn").as_posix()
        if path.name not in ("__init__.py", "__main__.py") and not name.startswith("checks/"):
            assert f"`{name}`" in text, name


# --- every *.md -------------------------------------------------------------------------------------------

def _markdown() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "*.md"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        files = [ROOT / p for p in out.stdout.splitlines()] if out.returncode == 0 else []
    except OSError:
        files = []
    files = files or [p for p in ROOT.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)]
    return sorted(p for p in files if p.exists() and "fixtures" not in p.relative_to(ROOT).parts)


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but `-` and `_` dropped, spaces to `-`."""
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        out.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return out


def _links(text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


DOCUMENTS = _markdown()


def test_the_documents_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in DOCUMENTS}
    assert {"README.md", "CONTRIBUTING.md", "docs/findings.md", "docs/guarantees.md",
            "examples/helm/README.md"} <= names


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for link in _links(text):
        if re.match(r"[a-z]+:", link):
            continue  # https:, mailto:
        target, _, anchor = link.partition("#")
        path = (doc.parent / target).resolve() if target else doc
        assert path.exists(), f"{doc.relative_to(ROOT)}: {link} does not exist"
        assert ROOT in path.parents or path == ROOT, f"{doc.relative_to(ROOT)}: {link} leaves the repository"
        if anchor and path.suffix == ".md":
            assert anchor in _anchors(path.read_text(encoding="utf-8")), f"{doc.relative_to(ROOT)}: no #{anchor}"


def test_the_link_checker_can_fail(tmp_path) -> None:
    assert _links("see [a](docs/none.md) and [b](#x) but not `[c](d)`") == ["docs/none.md", "#x"]
    assert "checks-beyond-kaitos-webhooks" in _anchors("## Checks beyond KAITO's webhooks\n")
    assert not (ROOT / "docs" / "none.md").exists()


# What a reader of this repository alone does not have: the team's notes beside it, issue numbers of its tracker.
OUTSIDE = [
    (r"\bissues? #?[0-9]+|(?<![\w&/])#[0-9]+\b", "an issue number"),
    (r"shared/", "the team's shared folder"),
    (r"\bSPEC(\.md)?\b|ORCHESTRATORS\.md|VLLM\.md|STYLE\.md", "a team spec file"),
    (r"\bround [0-9]+|\bround 3\b|\bthis round\b", "a work round"),
]


# The documents a user reads (contributors' notes under tests/ may name the tracker).
FOR_USERS = [p for p in DOCUMENTS if p.relative_to(ROOT).parts[0] in ("README.md", "CONTRIBUTING.md", "docs", "examples")]


@pytest.mark.parametrize("doc", FOR_USERS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_document_names_what_a_reader_does_not_have(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for pattern, what in OUTSIDE:
        m = re.search(pattern, text)
        assert not m, f"{doc.relative_to(ROOT)} names {what}: {text[max(0, m.start() - 40):m.end() + 40]!r}"


def test_the_outside_patterns_can_fail() -> None:
    for sample in ("see issue 13", "(#12)", "../shared/spec/", "SPEC.md sections 3", "round 4 figures"):
        assert any(re.search(p, sample) for p, _ in OUTSIDE), sample
    for sample in ("--- | round trip", "`&#x27;`", "the round-trip", "section 3"):
        assert not any(re.search(p, sample) for p, _ in OUTSIDE), sample
