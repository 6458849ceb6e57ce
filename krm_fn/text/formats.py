"""`render --format`: the report as text lines (the default), GitHub Actions workflow commands, one JSON
document or one SARIF log, for CI systems that read findings as file:line annotations. It goes to stderr,
or to the file `render --output FILE` names.

A format is one function from a Report to the lines it writes, and its entry in FORMATS (the name `--format`
takes). Only `render` takes one: in KRM function mode the results are already machine-readable (the
ResourceList's `results:`, which `kpt fn render --results-dir DIR` writes to a file), and the report is text.
"""

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

from ..findings import CATALOGUE, RETIRED
from . import explain
from .quoting import visible
from .results import Result, Severity

ORIGIN_HINT = ("kaito-specdec: hint: <stdin>:N is a line of the stream on stdin; to have findings name the source "
               "file, add `buildMetadata: [originAnnotations]` to the kustomization you build")
ORIGIN_BASE_HINT = ("kaito-specdec: hint: a file an origin annotation names is not there from the working directory: "
                    "its path is relative to the folder kustomize built; name it with `render --origin-base DIR -`")
UNDER_KPT = "; each finding is under kpt's Results: (all of them with --truncate-output=false)"


class Totals(Protocol):
    """What the last line sums up besides the results (the run's pipeline.Summary)."""

    @property
    def files(self) -> int: ...

    @property
    def objects(self) -> int: ...

    @property
    def enabled(self) -> Iterable[tuple[str, int]]: ...


class Report(NamedTuple):
    """A run's results and what a format may say beside them. Each finding is said once by every runner
    (docs/cli.md): under kpt, which prints the ResourceList's results itself, stderr carries only the
    summary line."""

    results: Sequence[Result]
    exit_code: int
    verbose: bool = False            # the info results too (what was decided), not only their number
    hint: bool = True                # text: ORIGIN_HINT may follow findings on <stdin> (no help for Helm's stream)
    summary: Totals | None = None    # text: the figures of the last line (None: no last line)
    krm: bool = False                # KRM function mode: a last line only when there is an error or a warning
    under_kpt: bool = False          # kpt prints the results: the last line only
    version: str = ""                # sarif: the tool's version, and the release its rules' help links name

    def listed(self) -> list[Result]:
        """The results said one by one: errors and warnings, infos too with --verbose."""
        return [r for r in self.results if self.verbose or r.severity is not Severity.INFO]


# GitHub's workflow-command levels; an info result is listed (a notice) only with -v, as text lists it.
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it (actions/toolkit `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    """A property value (`file=…`): `escapeData` plus `:` and `,`, which end a property."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _title(id: str) -> str:
    """The title of the finding `id` in the catalogue (a retired id's: the one it was merged into), or ""."""
    known = CATALOGUE.get(RETIRED.get(id, id))
    return known.title if known is not None else ""


def github(result: Result) -> str:
    """`::error file=F,line=L,title=<the rule's title>::<the text line without its location>`: the line ends
    in the id, said once. A file GitHub cannot place (`<stdin>`) gets no `file=`: the annotation is on the
    job, not a line."""
    level = _LEVELS[result.severity]
    props = []
    if result.file_path and not result.file_path.startswith("<"):
        props.append(f"file={_prop(visible(result.file_path))}")
        if result.file_line is not None:
            props.append(f"line={result.file_line}")
    if _title(result.id):
        props.append(f"title={_prop(_title(result.id))}")
    # The text line already names the resource and the field, escaped to one line; its location, when
    # GitHub cannot show it as an annotation's place, stays in the message.
    line = result._replace(file_path="", scope="").line() if props and props[0].startswith("file=") else result.line()
    return f"::{level}{' ' + ','.join(props) if props else ''}::{_data(line)}"


def entry(result: Result) -> dict[str, Any]:
    """One result as JSON: the KRM `results:` entry, with the line (render knows it) under `file`."""
    out = result.to_krm()
    if result.file_line is not None:
        out.setdefault("file", {"path": result.file_path})["line"] = result.file_line
    return out


def json_document(results: Iterable[Result], exit_code: int) -> str:
    """Every result (info too), in order, and the exit status: `{"exitCode": 1, "results": [...]}`."""
    return json.dumps({"exitCode": exit_code, "results": [entry(r) for r in results]}, ensure_ascii=True)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(results: Iterable[Result], files: int, objects: int, enabled: Iterable[tuple[str, int]],
                 infos_hint: str = "") -> str:
    """The last line on stderr: `kaito-specdec: 1 error, 7 warnings, 50 infos; 51 files, 60 objects;
    speculative decoding on 48 workloads: 40 ngram, 8 mtp`. `infos_hint` follows the infos (where they are)."""
    by = {s: 0 for s in Severity}
    for r in results:
        by[r.severity] += 1
    said = f"{_count(by[Severity.ERROR], 'error')}, {_count(by[Severity.WARNING], 'warning')}, " \
           f"{_count(by[Severity.INFO], 'info')}"
    if infos_hint and by[Severity.INFO]:
        said += f" ({infos_hint})"
    read = f"{_count(files, 'file')}, {_count(objects, 'object')}" if files else _count(objects, "object")
    kinds = [(name, n) for name, n in enabled if n]
    on = "speculative decoding for no workload" if not kinds else \
        f"speculative decoding for {_count(sum(n for _, n in kinds), 'workload')}: " + \
        ", ".join(f"{n} {name}" for name, n in kinds)
    return f"kaito-specdec: {said}; {read}; {on}"


# `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other CI. Each rule says what the catalogue says
# of its id (text/explain.py), and links to its row of docs/findings.md at this release's tag.
_SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_rule(id: str, version: str) -> dict[str, Any]:
    """The reportingDescriptor of a finding id: its name (the title as an identifier), the title, the why,
    the help (title, message templates, why, whether `disable` may name it) and the link to its docs."""
    s = CATALOGUE[id]
    return {"id": id, "name": explain.rule_name(s.title), "shortDescription": {"text": s.title},
            "fullDescription": {"text": explain.full_description(s, version)},
            "help": {"text": "\n".join(explain.explain(id, version)),
                     "markdown": explain.help_markdown(s, version)},
            "helpUri": explain.help_uri(id, version),
            "defaultConfiguration": {"level": _SARIF_LEVELS[s.severity]}}


def sarif_document(results: Iterable[Result], ids: Sequence[str], version: str) -> str:
    """One SARIF 2.1.0 log: the tool `kaito-specdec` with a rule per finding id in `ids` (sarif_rule), and
    every result with its ruleId, level and file:line. A result GitHub cannot place (no file, or `<stdin>`)
    has no location; its text still names what it is about."""
    index = {id: i for i, id in enumerate(ids)}
    out = []
    for r in results:
        text = r._replace(file_path="", scope="", id="").line()
        entry: dict[str, Any] = {"ruleId": r.id or "SD000", "level": _SARIF_LEVELS[r.severity],
                       "message": {"text": text.split("] ", 1)[1] if "] " in text else text}}
        if r.id in index:
            entry["ruleIndex"] = index[r.id]
        if r.file_path and not r.file_path.startswith("<"):
            region = {"startLine": r.file_line} if r.file_line is not None else {}
            entry["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": r.file_path},
                                                        **({"region": region} if region else {})}}]
        out.append(entry)
    driver = {"name": "kaito-specdec", "version": version, "informationUri": explain.REPOSITORY,
              "rules": [sarif_rule(id, version) for id in ids]}
    log = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
           "runs": [{"tool": {"driver": driver}, "results": out}]}
    return json.dumps(log, ensure_ascii=True)


def text(report: Report) -> list[str]:
    """A line per result listed, the hint on kustomize's origin annotations, and a last line that sums up
    (render's always, KRM mode's when there is an error or a warning)."""
    shown = [] if report.under_kpt else report.listed()
    lines = [r.line() for r in shown]
    if report.hint and any(r.file_path == "<stdin>" and r.resource is not None and r.severity is not Severity.INFO
                           for r in shown):
        lines.append(ORIGIN_HINT)  # once, after the findings: kustomize can tell their files (report.origin_file)
    elif report.hint and not report.krm and any(
            r.file_line is None and r.file_index is None and r.file_path and "//" not in r.file_path
            and r.resource is not None and r.severity is not Severity.INFO for r in shown):
        lines.append(ORIGIN_BASE_HINT)  # an origin path not found: it is relative to the folder built
    return lines + _last_line(report)


def _last_line(report: Report) -> list[str]:
    """The line that sums up, or none: render sums up every run; a KRM function stays silent when it has
    nothing to say (kustomize build's output)."""
    totals = report.summary
    if totals is None or (report.krm and all(r.severity is Severity.INFO for r in report.results)):
        return []
    where = "" if report.under_kpt else "in the ResourceList's results" if report.krm \
        else "" if report.verbose else "-v shows them"
    line = summary_line(report.results, totals.files, totals.objects, totals.enabled, where)
    return [line + (UNDER_KPT if report.under_kpt else "")]


def github_commands(report: Report) -> list[str]:
    """A workflow command per result listed (`github`: errors and warnings, notices with -v), then text's last
    line as a plain line of the log: GitHub shows only so many annotations per step, and the log still says
    how many there are (a `::notice` would be an annotation more, on no file, counted against that limit)."""
    shown = [] if report.under_kpt else report.listed()
    return [github(r) for r in shown] + _last_line(report)


def json_report(report: Report) -> list[str]:
    """One JSON document of every result and the exit status."""
    return [json_document(report.results, report.exit_code)]


def sarif_report(report: Report) -> list[str]:
    """One SARIF log of the results listed (infos only with --verbose: code scanning would make an alert of
    every decision), a rule per finding id of the catalogue."""
    return [sarif_document(report.listed(), list(CATALOGUE), report.version)]


# `--format NAME` -> the lines it writes (on stderr, or to --output FILE); the first is the default.
FORMATS: dict[str, Callable[[Report], list[str]]] = {
    "text": text,
    "github": github_commands,
    "json": json_report,
    "sarif": sarif_report,
}
