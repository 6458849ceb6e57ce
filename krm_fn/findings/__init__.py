"""The catalogue: every finding the function can report, declared once, by range.

Each module here holds one range of ids (docs/findings.md: the ranges) as `SPECS`, a tuple of `Spec`s:
the id, its severity, a one-line title, the message template and, where the title and message do not say
it all, the why. A call site names the id and fills in the template's fields:

    finding("SD101", field, value=value)         # krm_fn/text/results.py: a Finding, its message formatted

and nothing else decides a finding's severity or words. docs/findings.md (`python tools/findings_doc.py
--write`), `kaito-specdec explain`, the SARIF rules and the `disable` setting all read this table.
This package is the lowest layer: it imports nothing of krm_fn.
"""

from __future__ import annotations

import re
import string

from . import advice, cascade, decisions, input, kaito, monitoring, plain_vllm, render, vllm_config
from ._spec import Severity, Spec

__all__ = ["CATALOGUE", "ID_PATTERN", "RETIRED", "Severity", "Spec", "can_disable", "known", "shown", "spec"]

# What a finding id looks like (`SD112`), in a `disable` setting or annotation.
ID_PATTERN = r"SD[0-9]{3}"


def _catalogue() -> dict[str, Spec]:
    out: dict[str, Spec] = {}
    for module in (input, kaito, cascade, decisions, advice, render, vllm_config, plain_vllm, monitoring):
        for s in module.SPECS:
            if s.id in out:
                raise AssertionError(f"{s.id} is declared twice")
            out[s.id] = s
    return out


CATALOGUE: dict[str, Spec] = _catalogue()

# Ids merged into others: old id -> the id that says it now. `disable` takes an old id as the new one.
RETIRED: dict[str, str] = {
    **{old: "SD003" for old in ("SD005", "SD006", "SD007")},
    **{old: "SD021" for old in ("SD022", "SD023", "SD024", "SD025", "SD026", "SD027", "SD028", "SD029", "SD030",
                                "SD031", "SD037", "SD038", "SD039", "SD040", "SD042", "SD046", "SD047")},
    **{old: "SD032" for old in ("SD033", "SD034", "SD035", "SD036")},
}


def spec(id: str) -> Spec:
    """The Spec of `id` (`SD101`), or of the id a retired one was merged into."""
    return CATALOGUE[RETIRED.get(id, id)]


def known(id: str) -> bool:
    """`id` is declared, or was merged into one that is."""
    return id in CATALOGUE or id in RETIRED


def can_disable(id: str) -> bool:
    return spec(id).can_disable


def shown(template: str) -> str:
    """A message template as a reader sees it, `…` where the run fills in a value: docs/findings.md's table,
    `kaito-specdec explain` and the SARIF rules' help."""
    parts = []
    for text, field, _spec, _conversion in string.Formatter().parse(template):
        parts.append(text)
        if field is not None:
            parts.append("…")
    return re.sub("…+", "…", "".join(parts))
