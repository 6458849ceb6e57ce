"""The table of docs/findings.md, generated from the package: every finding id, its severity, its title, the
message the code writes and whether `disable` may name it.

    python tools/findings_doc.py --write     # rewrite the table in docs/findings.md
    python tools/findings_doc.py             # print the table

The ids, titles and `disable` column come from krm_fn.findings (every module's FINDINGS and ALWAYS_ON). The
severity and the message come from the code itself: every call that makes a finding passes its id as a literal
(`id="SD112"`, tests/test_findings.py sees to that), so the call's severity argument and its message literal
are read from the source. In a message, `…` stands for what the run fills in; a module's UPPER_CASE string
constants are filled in. tests/test_docs.py fails while docs/findings.md differs from what this prints.
"""
from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PACKAGE = ROOT / "krm_fn"
DOC = ROOT / "docs" / "findings.md"
START, END = "<!-- findings-table:start -->\n", "<!-- findings-table:end -->\n"
COMMAND = "python tools/findings_doc.py --write"

# The calls that make a finding, and the position of their message argument (tests/test_findings.py's list).
MESSAGE_AT = {"about": 1, "Result": 1, "Finding": 0, "PlainFinding": 0, "ConfigError": 0, "_failure": 0}
# Calls whose severity is not an argument: a config error, an input/output failure, and a KAITO admission check's
# Finding, which checks/__init__.py and plain_vllm.py report as errors.
ALWAYS_ERROR = {"ConfigError", "_failure", "Finding"}
ORDER = ("error", "warning", "info")
ID = re.compile(r"SD[0-9]{3}")


def _severity(node: ast.AST | None) -> set[str] | None:
    """`Severity.ERROR`, `"error"`, or `A if c else B` of those; None for anything decided at run time."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Severity":
        return {node.attr.lower()}
    if isinstance(node, ast.Constant) and node.value in ORDER:
        return {node.value}
    if isinstance(node, ast.IfExp):
        a, b = _severity(node.body), _severity(node.orelse)
        return a | b if a is not None and b is not None else None
    return None


def _constant(expr: ast.AST, namespace: dict) -> str | None:
    """The value of an UPPER_CASE module constant (`DATA_KEY`, `C.POLICY_KIND`) as text, else None."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    if not parts[0].isupper():
        return None
    value = namespace
    for i, name in enumerate(reversed(parts)):
        value = value.get(name) if i == 0 else getattr(value, name, None)
        if value is None:
            return None
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _message(node: ast.AST, namespace: dict) -> str | None:
    """A message literal as a reader sees it: `…` where the run fills in a value; None when not a literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            else:
                shown = _constant(part.value, namespace) if part.conversion == -1 and not part.format_spec else None
                out.append("…" if shown is None else shown)
        return re.sub("…+", "…", "".join(out))
    return None


def _wrappers(tree: ast.Module) -> dict[str, tuple[set[str] | None, int | None]]:
    """Module functions that take an `id` and make the finding themselves (vllm_command._problem): name ->
    (the severity they give, the position of their `message` parameter)."""
    out = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = [a.arg for a in fn.args.args]
        if "id" not in params:
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and any(k.arg == "id" for k in node.keywords):
                kw = {k.arg: k.value for k in node.keywords}
                sev = _severity(kw.get("severity"))
                if sev is None and _name(node) in ("about", "Result") and node.args:
                    sev = _severity(node.args[0])
                if sev is None and _name(node) in ALWAYS_ERROR:
                    sev = {"error"}
                out[fn.name] = (sev, params.index("message") if "message" in params else None)
                break
    return out


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def sites() -> dict[str, list[tuple[str, set[str] | None, str | None]]]:
    """id -> [(module file, severities or None, message or None)] for every call that passes that id."""
    out: dict[str, list] = {}
    for path in sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__main__.py"):  # __main__ runs the CLI
        rel = path.relative_to(ROOT).as_posix()
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        wrappers = _wrappers(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            id_node = kw.get("id")
            if not (isinstance(id_node, ast.Constant) and isinstance(id_node.value, str) and ID.fullmatch(id_node.value)):
                continue
            name = _name(node)
            sev = _severity(kw.get("severity"))
            at = MESSAGE_AT.get(name)
            if sev is None and name in ("about", "Result") and node.args:
                sev = _severity(node.args[0])
            if sev is None and name in ALWAYS_ERROR:
                sev = {"error"}
            if name in wrappers:
                sev = sev or wrappers[name][0]
                at = wrappers[name][1]
            message = _message(node.args[at], vars(module)) if at is not None and len(node.args) > at else None
            out.setdefault(id_node.value, []).append((rel, sev, message))
    return out


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("*", "\\*")


def table(why: frozenset[str] = frozenset()) -> str:
    """`why`: the ids with a `### SDnnn` section below the table, which a row links. Every row holds the
    anchor `rule-sdnnn` (the help link of `render --format sarif`)."""
    from krm_fn import findings
    found = sites()
    rows = ["| id | severity | finding | message (`…`: filled in by the run) | can be turned off |",
            "|---|---|---|---|---|"]
    for id, (title, _module) in findings.CATALOGUE.items():
        calls = found.get(id, [])
        sevs: set[str] = set()
        for _, sev, _msg in calls:
            sevs |= sev or set()
        decided_at_run_time = any(sev is None for _, sev, _ in calls)
        severity = " / ".join(s for s in ORDER if s in sevs) + (" (decided by the input)" if decided_at_run_time else "")
        messages = list(dict.fromkeys(m for _, _, m in calls if m))
        anchor = f'<a id="rule-{id.lower()}"></a>'
        more = f" ([why](#{id.lower()}))" if id in why else ""
        rows.append(f"| {id} | {severity.strip() or '—'} | {anchor}{_cell(title)}{more} | "
                    f"{'<br>'.join(_cell(m) for m in messages) or '—'} | "
                    f"{'yes' if findings.CAN_DISABLE[id] else 'no'} |")
    return "\n".join(rows) + "\n"


def document(text: str) -> str:
    """docs/findings.md's text with the generated table in place of the one between the markers."""
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    why = frozenset(re.findall(r"^### (SD[0-9]{3})$", tail, re.M))
    return head + START + table(why) + END + tail


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        DOC.write_text(document(DOC.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}", file=sys.stderr)
        return 0
    if argv == []:
        sys.stdout.write(table(frozenset(re.findall(r"^### (SD[0-9]{3})$", DOC.read_text(encoding="utf-8"), re.M))))
        return 0
    print(f"usage: {COMMAND.removesuffix(' --write')} [--write]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
