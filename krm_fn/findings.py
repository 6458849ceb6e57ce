"""A finding as plain data, for stages that work on plain Python values (no Item, no YAML node).

The wiring turns each one into a `results.Result` with `report.about(severity, message, item, field, id=…)`,
prefixing `field` with the path of the object it is about (a container, a pod template).
"""
from __future__ import annotations

from dataclasses import dataclass

from .results import Severity


@dataclass(frozen=True)
class Finding:
    id: str
    severity: Severity
    message: str
    field: str = ""   # relative to what the finding is about: `args`, `command[2]`, `metadata.annotations[…]`

    def under(self, prefix: str) -> Finding:
        """The same finding with its field under `prefix` (`spec.template.spec.containers[0]`)."""
        if not prefix:
            return self
        field = prefix if not self.field else (
            prefix + self.field if self.field.startswith("[") else f"{prefix}.{self.field}")
        return Finding(self.id, self.severity, self.message, field)
