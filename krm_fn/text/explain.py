"""A finding as the catalogue declares it, told without docs/: `kaito-specdec explain SDnnn`, `kaito-specdec
findings`, and the SARIF rules' name, descriptions and help. Everything comes from krm_fn/findings/, which
a `pip install` carries; links go to the docs of this release's tag (`v{version}`), never to the default
branch, whose findings may no longer be this version's.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from ..findings import CATALOGUE, ID_PATTERN, RETIRED, Spec, shown, spec

REPOSITORY = "https://github.com/kaito-project/kaito-specdec"
WIDTH = 100  # explain's lines: the why and long messages are wrapped to it, whatever the terminal

_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def docs_url(page: str, version: str) -> str:
    """`findings.md#rule-sd101` -> its address in the docs of release `version`."""
    return f"{REPOSITORY}/blob/v{version}/docs/{page}"


def help_uri(id: str, version: str) -> str:
    """The id's row in docs/findings.md's table (its anchor `rule-sdnnn`), at the release's tag."""
    return docs_url(f"findings.md#rule-{id.lower()}", version)


def rule_name(title: str) -> str:
    """A title as an identifier: `the opt-in annotation is unquoted: YAML reads it as no string` ->
    `OptInAnnotationIsUnquotedYAMLReadsItAsNoString` (SARIF's `name`; the id stays the rule's key)."""
    words = re.findall(r"[A-Za-z0-9]+", title.replace("'", ""))
    if words and words[0].lower() in ("a", "an", "the"):
        words = words[1:]
    return "".join(w[0].upper() + w[1:] for w in words)


def messages(s: Spec) -> list[str]:
    """The id's message templates as a reader sees them (`…` where the run fills in a value), each once."""
    return list(dict.fromkeys(shown(t) for t in s.templates()))


def _target(target: str, version: str) -> str:
    """A link of docs/findings.md's why sections, made absolute: `plain-vllm.md`, `#sd715` (an id's why) and
    `../fixtures/…` (the repository) are relative to docs/."""
    if re.match(r"[a-z]+:", target):
        return target
    if target.startswith("#"):
        return docs_url("findings.md" + target, version)
    if target.startswith("../"):
        return f"{REPOSITORY}/blob/v{version}/{target[3:]}"
    return docs_url(target, version)


def why_markdown(s: Spec, version: str) -> str:
    """The why, markdown as docs/findings.md shows it, its links absolute."""
    return _LINK.sub(lambda m: f"[{m.group(1)}]({_target(m.group(2), version)})", s.why)


def why_text(s: Spec, version: str) -> str:
    """The why as plain text: `[SD715](#sd715)` is the id alone (explain tells it), another link its address
    (after its words, unless they are the file's name)."""
    def plain(m: re.Match[str]) -> str:
        words, target = m.groups()
        if target.startswith("#") and re.fullmatch(ID_PATTERN, words):
            return words
        url = _target(target, version)
        return url if words == target.rsplit("/", 1)[-1].split("#")[0] else f"{words} ({url})"
    return _LINK.sub(plain, s.why)


def turning_off(s: Spec) -> str:
    """Whether `disable` may name the id, as a sentence (and that the run exits 2, where it could not judge)."""
    if s.can_disable:
        return ("The disable setting (render --disable) turns it off, or the kaito-specdec.dev/disable annotation "
                "on one object.")
    said = "It cannot be turned off: it means input or settings the function cannot read, process or write safely."
    if s.could_not_judge:
        said += " The run could not judge the manifests: it exits 2."
    return said


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _wrapped(text: str, indent: str = "  ", more: str = "  ") -> list[str]:
    """`text` in lines of at most WIDTH (a word longer, a URL, stays whole); lines after the first indented
    by `more` further."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + more,
                         break_long_words=False, break_on_hyphens=False)


def explain(id: str, version: str) -> list[str]:
    """`kaito-specdec explain SD112`: the lines a terminal shows. KeyError for an id the catalogue lacks."""
    key = id.upper()
    s = spec(key)
    lines = [f"{key} is now {s.id} (ids merged).", ""] if key in RETIRED else []
    lines += [f"{s.id} ({s.severity.value}): {s.title}", "", *_wrapped(turning_off(s), "", ""), "",
              "message (… is filled in by the run):"]
    for message in messages(s):
        lines += _wrapped(message)
    if s.why:
        lines += ["", "why:"]
        for i, paragraph in enumerate(_paragraphs(why_text(s, version))):
            lines += ([""] if i else []) + _wrapped(paragraph, more="")
    return lines + ["", f"more: {help_uri(s.id, version)}"]


def help_markdown(s: Spec, version: str) -> str:
    """The SARIF rule's `help.markdown`: explain's content as markdown."""
    out = [f"**{s.id}** ({s.severity.value}): {s.title}", "", "Message (`…` is filled in by the run):", ""]
    out += [f"    {m}" for m in messages(s)]
    if s.why:
        out += ["", why_markdown(s, version)]
    out += ["", turning_off(s), "", f"[{s.id} in the documentation]({help_uri(s.id, version)})"]
    return "\n".join(out)


def full_description(s: Spec, version: str, limit: int = 1024) -> str:
    """The SARIF rule's `fullDescription`: the why in one paragraph of plain text (the title where there is
    none), cut after a sentence when it is longer than `limit` (the help says it all)."""
    text = " ".join(why_text(s, version).split()) if s.why else s.title
    if len(text) <= limit:
        return text
    cut = text.rfind(". ", 0, limit - 2)
    return text[:cut + 1] + " …"


def listing() -> list[str]:
    """`kaito-specdec findings`: every id, its severity and title, one line each."""
    return [f"{s.id}  {s.severity.value:<7}  {s.title}" for s in CATALOGUE.values()]


def listing_json(version: str) -> str:
    """`kaito-specdec findings --format json`: every id with all the catalogue says of it."""
    rows: list[dict[str, Any]] = [
        {"id": s.id, "severity": s.severity.value, "title": s.title, "canDisable": s.can_disable,
         "couldNotJudge": s.could_not_judge,
         "messages": messages(s), "why": why_markdown(s, version), "helpUri": help_uri(s.id, version)}
        for s in CATALOGUE.values()]
    return json.dumps(rows, ensure_ascii=False, indent=2)
