"""The generated parts of docs/findings.md, from the catalogue (krm_fn/findings/): the table of every finding
(id, severity, title, message, whether `disable` may name it) and the "Why, per finding" sections.

    python tools/findings_doc.py --write     # rewrite both in docs/findings.md
    python tools/findings_doc.py             # print the table

In a message, `…` stands for what the run fills in (a template's `{field}`). tests/test_docs.py fails while
docs/findings.md differs from what this writes.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from krm_fn.findings import CATALOGUE, Spec, shown  # noqa: E402

DOC = ROOT / "docs" / "findings.md"
START, END = "<!-- findings-table:start -->\n", "<!-- findings-table:end -->\n"
WHY_START, WHY_END = "<!-- findings-why:start -->\n", "<!-- findings-why:end -->\n"
COMMAND = "python tools/findings_doc.py --write"


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("*", "\\*")


def _row(s: Spec) -> str:
    anchor = f'<a id="rule-{s.id.lower()}"></a>'
    more = f" ([why](#{s.id.lower()}))" if s.why else ""
    messages = "<br>".join(_cell(shown(t)) for t in dict.fromkeys(s.templates()))
    return (f"| {s.id} | {s.severity.value} | {anchor}{_cell(s.title)}{more} | {messages or '—'} | "
            f"{'yes' if s.can_disable else 'no'} |")


def table() -> str:
    """Every id's row; each holds the anchor `rule-sdnnn` (the help link of `render --format sarif`)."""
    rows = ["| id | severity | finding | message (`…`: filled in by the run) | can be turned off |",
            "|---|---|---|---|---|"]
    rows += [_row(s) for s in CATALOGUE.values()]
    return "\n".join(rows) + "\n"


def why() -> str:
    """A `### SDnnn` section for every id with a why, in id order."""
    return "".join(f"\n### {s.id}\n\n{s.why}\n" for s in CATALOGUE.values() if s.why)


def _between(text: str, start: str, end: str, new: str) -> str:
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + start + new + end + tail


def document(text: str) -> str:
    """docs/findings.md's text with the generated parts in place of those between the markers."""
    return _between(_between(text, START, END, table()), WHY_START, WHY_END, why())


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        DOC.write_text(document(DOC.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}", file=sys.stderr)
        return 0
    if argv == []:
        sys.stdout.write(table())
        return 0
    print(f"usage: {COMMAND.removesuffix(' --write')} [--write]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
