"""What a finding is before any run: its id, severity, title, message template and why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True)
class Spec:
    """One finding, declared once.

    `message` is a `str.format` template whose fields the call site fills in by name (`{value!q}` quotes a
    value as KAITO quotes it, Go's `%q`); an id that says one fault in several ways (a setting's many bad
    values, KAITO's several messages for one rule) has a mapping of named variants, and a call site names
    the one it means (`"SD021.vllmVersion"`). `why` is the longer story docs/findings.md tells under the id
    (markdown; empty where the title and message say it all). `can_disable`: whether `disable` may name it
    (not for input or settings the function cannot process or write safely). `could_not_judge`: the finding
    means the run could not judge the manifests (a path it cannot read, a bad setting, stdout closed): fix the
    command, its settings or its environment, not the manifests. Such a finding makes the run exit 2, where
    findings at the fail-on level exit 1 (docs/cli.md, "Exit status").
    """

    id: str
    severity: Severity
    title: str
    message: str | Mapping[str, str]
    why: str = ""
    can_disable: bool = True
    could_not_judge: bool = False

    def template(self, variant: str = "") -> str:
        """The message template of `variant` (the one template where there are no variants)."""
        if isinstance(self.message, str):
            if variant:
                raise KeyError(f"{self.id} has one message, no variant {variant!r}")
            return self.message
        return self.message[variant]

    def templates(self) -> tuple[str, ...]:
        return (self.message,) if isinstance(self.message, str) else tuple(self.message.values())
