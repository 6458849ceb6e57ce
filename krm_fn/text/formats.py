"""`render --format`: the stderr report as text lines (the default), GitHub Actions workflow commands, or
one JSON document, for CI systems that read findings as file:line annotations.

Only `render` takes it: in KRM function mode the results are already machine-readable (the ResourceList's
`results:`, which `kpt fn render --results-dir DIR` writes to a file).
"""

import json
from collections.abc import Iterable, Mapping

from .quoting import visible
from .results import Result, Severity

FORMATS = ("text", "github", "json", "sarif")

# GitHub's workflow-command levels; an info result is no annotation (text leaves it out of stderr too).
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning"}


def _data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it (actions/toolkit `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    """A property value (`file=…`): `escapeData` plus `:` and `,`, which end a property."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def github(result: Result) -> str | None:
    """`::error file=F,line=L,title=SD101::<the text line without its location>`, or None for info.
    A file GitHub cannot place (`<stdin>`) gets no `file=`: the annotation is on the job, not a line."""
    level = _LEVELS.get(result.severity)
    if level is None:
        return None
    props = []
    if result.file_path and not result.file_path.startswith("<"):
        props.append(f"file={_prop(visible(result.file_path))}")
        if result.file_line is not None:
            props.append(f"line={result.file_line}")
    if result.id:
        props.append(f"title={_prop(result.id)}")
    # The text line already names the resource and the field, escaped to one line; its location, when
    # GitHub cannot show it as an annotation's place, stays in the message.
    line = result._replace(file_path="", scope="").line() if props and props[0].startswith("file=") else result.line()
    return f"::{level}{' ' + ','.join(props) if props else ''}::{_data(line)}"


def entry(result: Result) -> dict:
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


# `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other CI. Each rule's help is its row (and its
# why) in docs/findings.md.
FINDINGS_DOC = "https://github.com/kaito-project/kaito-specdec/blob/main/docs/findings.md"
_SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_document(results: Iterable[Result], rules: Mapping[str, str], version: str) -> str:
    """One SARIF 2.1.0 log: the tool `kaito-specdec` with a rule per finding id (`rules`: id -> title, help
    link `docs/findings.md#rule-sdnnn`), and every result with its ruleId, level and file:line. A result
    GitHub cannot place (no file, or `<stdin>`) has no location; its text still names what it is about."""
    ids = list(rules)
    index = {id: i for i, id in enumerate(ids)}
    out = []
    for r in results:
        text = r._replace(file_path="", scope="", id="").line()
        entry: dict = {"ruleId": r.id or "SD000", "level": _SARIF_LEVELS[r.severity],
                       "message": {"text": text.split("] ", 1)[1] if "] " in text else text}}
        if r.id in index:
            entry["ruleIndex"] = index[r.id]
        if r.file_path and not r.file_path.startswith("<"):
            region = {"startLine": r.file_line} if r.file_line is not None else {}
            entry["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": r.file_path},
                                                        **({"region": region} if region else {})}}]
        out.append(entry)
    driver = {"name": "kaito-specdec", "version": version, "informationUri": FINDINGS_DOC.rsplit("/blob/", 1)[0],
              "rules": [{"id": id, "name": id, "shortDescription": {"text": rules[id]},
                         "helpUri": f"{FINDINGS_DOC}#rule-{id.lower()}"} for id in ids]}
    log = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
           "runs": [{"tool": {"driver": driver}, "results": out}]}
    return json.dumps(log, ensure_ascii=True)
