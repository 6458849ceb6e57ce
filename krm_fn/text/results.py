"""One Result type, rendered three ways: a KRM `results:` entry, a stderr line, an exit status."""

import string
import sys
from typing import Any, NamedTuple
from collections.abc import Iterable

from ..findings import Severity, known, spec
from .quoting import q, visible

__all__ = ["Finding", "ResourceRef", "Result", "Severity", "finding"]


class ResourceRef(NamedTuple):
    api_version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""

    def to_krm(self) -> dict[str, str]:
        out = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            out["namespace"] = self.namespace
        return out

    def display(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        shown = f"{self.api_version}/{self.kind}/{ns}{self.name}"
        return shown if shown.strip("/") else "(an object without apiVersion, kind or name)"


_UNSET = object()


class Finding(NamedTuple):
    """A finding before it is placed on an item: its message, the field (or the JSON key) it is about, its
    stable id, its severity and, where the fix is mechanical, the corrected value (compact JSON). KAITO's
    checks, the vLLM schema and the plain-workload planner return these; `report.about(f.severity,
    f.message, item, f.field, id=f.id)` places one on an item. A check's field is relative to the workload;
    a plain workload's to what it is about (`args`) until `under` prefixes it."""
    message: str
    field: str = ""
    id: str = ""
    severity: Severity = Severity.ERROR
    proposed: str | None = None
    at: str = ""  # the field whose line locates it, when `field` is KAITO's name for no real field

    def result(self, **where: Any) -> "Result":
        """This finding as a Result not placed on an item (`where`: Result's other fields)."""
        return Result(self.severity, self.message, field_path=self.field, id=self.id, **where)

    def under(self, prefix: str) -> "Finding":
        """The same finding with its field under `prefix` (`spec.template.spec.containers[0]`): `args`
        becomes `….containers[0].args`, `[2]` becomes `…[2]`."""
        if not prefix:
            return self
        field = prefix if not self.field else (
            prefix + self.field if self.field.startswith("[") else f"{prefix}.{self.field}")
        return self._replace(field=field)


class _Template(string.Formatter):
    """`str.format` with one more conversion: `{value!q}` quotes a value as KAITO's messages do (Go's `%q`
    for a string, JSON for anything else)."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "q":
            return q(value)
        return super().convert_field(value, conversion)


_TEMPLATE = _Template()


def finding(id: str, field: str = "", *, at: str = "", proposed: str | None = None, **values: Any) -> Finding:
    """The finding `id` declared in the catalogue (krm_fn/findings/), its message filled in with `values`:
    `finding("SDnnn", field, value=v)`; `"SDnnn.variant"` names one of an id's message variants."""
    base, _, variant = id.partition(".")
    declared = spec(base)
    # Interned: the same message about thousands of objects (SD008 on 100 000 duplicates) is kept once.
    message = sys.intern(_TEMPLATE.format(declared.template(variant), **values))
    return Finding(message, field, id=base, severity=declared.severity, proposed=proposed, at=at)


class Result(NamedTuple):
    severity: Severity
    message: str
    resource: ResourceRef | None = None
    field_path: str = ""
    current_value: Any = _UNSET
    proposed_value: Any = _UNSET
    file_path: str = ""
    file_index: int | None = None
    file_line: int | None = None  # render: the item's first line in its file (never in KRM results)
    tags: tuple[tuple[str, str], ...] = ()
    id: str = ""                # the finding's stable id (SD…): at the end of said(), in `tags`, for `disable`
    scope: str = "ResourceList"  # the stderr line's subject when no resource or file is named
    change: bool = False     # it tells of a change the plan makes (so it says when that is not written)

    def said(self) -> str:
        """The message with its id, `… [SD101]`: what a user reads and what `disable` takes, in the stderr line
        and in the KRM result alike (kpt prints a result as `[error] ref field: message`, never its tags)."""
        return f"{self.message} [{self.id}]" if self.id else self.message

    def to_krm(self) -> dict[str, Any]:
        out: dict[str, Any] = {"message": self.said(), "severity": self.severity.value}
        if self.resource is not None:
            out["resourceRef"] = self.resource.to_krm()
        if self.field_path:
            f: dict[str, Any] = {"path": self.field_path}
            if self.current_value is not _UNSET:
                f["currentValue"] = self.current_value
            if self.proposed_value is not _UNSET:
                f["proposedValue"] = self.proposed_value
            out["field"] = f
        if self.file_path:
            fl: dict[str, Any] = {"path": self.file_path}
            if self.file_index is not None:
                fl["index"] = self.file_index
            out["file"] = fl
        tags = {"id": self.id, **dict(self.tags)} if self.id else dict(self.tags)
        if tags:
            out["tags"] = tags
        return out

    def location(self) -> str:
        """`file:line: ` (render), `file (document N): ` (KRM mode, from kpt's path and index), or ""."""
        if not self.file_path:
            return ""
        if self.file_line is not None:
            return f"{self.file_path}:{self.file_line}: "
        if self.file_index is not None:
            return f"{self.file_path} (document {self.file_index + 1}): "
        return f"{self.file_path}: "

    def line(self) -> str:
        """`[file:line: ][severity] apiVersion/kind/[namespace/]name field: message [id]` — the stderr line (kustomize
        never shows results; kpt and editors find the file from its first words). One line whatever a name,
        a path or a message holds: a newline in metadata.name must not start a forged `[error]` line."""
        location = self.location()
        head = ""  # for what is no Kubernetes object: its message says where it is; `v2//x kind:` would say nothing
        if self.resource is None or self.resource.kind:
            where = self.resource.display() if self.resource else "" if location else self.scope
            fld = f" {self.field_path}" if self.field_path else ""
            head = f"{where}{fld}: " if (where or fld) else ""
        return visible(f"{location}[{self.severity.value}] {head}{self.said()}")


def sort_results(results: Iterable[Result], order: dict[ResourceRef, int] | None = None) -> list[Result]:
    """By resource in input order (config-level results first); a stable sort, so one resource's findings
    stay in the order the stages reported them."""
    order = order or {}
    return sorted(results, key=lambda r: -1 if r.resource is None else order.get(r.resource, len(order)))


# The exit status: 0 clean, 1 findings at the fail-on level, 2 the run could not judge (the catalogue says which
# findings mean that: Spec.could_not_judge). argparse's usage errors exit 2 too.
CLEAN, FINDINGS, NOT_JUDGED = 0, 1, 2


def exit_status(results: Iterable[Result], fail_on: Severity = Severity.ERROR) -> int:
    """2 when a result means the run could not judge, else 1 when one is at `fail_on` or graver, else 0."""
    order = list(Severity)  # the gravest first
    code = CLEAN
    for r in results:
        if r.id and known(r.id) and spec(r.id).could_not_judge:
            return NOT_JUDGED
        if order.index(r.severity) <= order.index(fail_on):
            code = FINDINGS
    return code


def has_errors(results: Iterable[Result]) -> bool:
    return any(r.severity is Severity.ERROR for r in results)
