"""Decisions -> changes: the stages in order, each in its own module; nothing here does I/O.

shape (input checks) -> cascade -> validate (checks/) -> decide -> materialize -> advice -> results.
"""
from __future__ import annotations

from dataclasses import replace

from . import kinds
from .advice import (configurable, document_warnings, override_checks, role_mismatches, spelling_warnings,
                     unconfigurable, version_notes)
from .cascade import cascade
from .checks import validate
from .config import Settings
from .decide import BROKEN, INJECT, NOT_VISIBLE, OVERRIDE, Decision, decide
from .index import Index, build_index
from .inference_config import DATA_KEY
from .materialize import materialize, retire, revert
from .reader import Item
from .report import about, q
from .results import Result, Severity, has_errors
from .localconfig import kustomize_config
from .shape import duplicates, shape_errors
from .writer import Changes


def decisions(index: Index, settings: Settings) -> list[Decision]:
    return [decide(index, w, path, settings.presets)
            for w in index.workloads if configurable(w) for path in w.spec.config_refs(w.effective)]


def _describe(d: Decision, target: str) -> str:
    preset = kinds.preset_name(d.workload.spec, d.workload.effective)
    why = d.why
    where = (f"derived from ConfigMap {q(d.source_name)}" if d.source_name
             else "new, as the workload referenced none")
    return f"speculative decoding: preset {q(preset)} {why}: speculative-config {d.json} " \
           f"in ConfigMap {q(target)} ({where})"


def decision_result(d: Decision, target: str | None) -> Result:
    field = kinds.dotted(d.path)
    item = d.workload.item
    if d.action == INJECT:
        return about(Severity.INFO, _describe(d, target or ""), item, field, proposed_value=target)
    if d.action == OVERRIDE and d.via_derived:
        keys = ", ".join(f"vllm.{k}" for k in d.override_keys)
        return about(Severity.INFO, f"speculative decoding: ConfigMap {q(d.source_name)} now sets {keys} itself "
                                      "(a user override): the reference goes back to it", item, field,
                       proposed_value=d.source_name)
    if d.action == OVERRIDE:
        keys = ", ".join(f"vllm.{k}" for k in d.override_keys)
        return about(Severity.INFO, f"speculative decoding: ConfigMap {q(d.source_name)} already sets "
                                      f"{keys} (a user override); left unchanged", item, field)
    if d.action == NOT_VISIBLE and d.via_derived:
        gone = "is in the input, but" if d.derived_found else "is not in the input, and"
        return about(Severity.WARNING, f"speculative decoding: the derived ConfigMap {q(d.current)} {gone} its "
                                         f"source ConfigMap {q(d.source_name)} is not: cannot regenerate it; left "
                                         "unchanged", item, field)
    if d.action == NOT_VISIBLE:
        return about(Severity.WARNING, f"speculative decoding: ConfigMap {q(d.source_name)} is not in the "
                                         "input, so whether it overrides vllm.speculative-config cannot be "
                                         "seen here; left unchanged, KAITO decides in the cluster",
                       item, field)
    assert d.action == BROKEN and d.source is not None
    return about(Severity.ERROR, f"ConfigMap {q(d.source_name)} referenced by {d.workload.spec.kind} "
                                   f"{q(d.workload.name)}: {d.detail}", d.source,
                   d.problem_field or f"data[{DATA_KEY}]")


def _not_written(result: Result, why: str) -> Result:
    """A result that describes a change says so when the change is not made (validate mode, or errors)."""
    return replace(result, message=f"{result.message} [not written: {why}]")


def plan(items: list[Item], settings: Settings) -> tuple[Changes, list[Result]]:
    """Read-only over the items: the changes to make (none when anything is in error) and every result."""
    # kustomize's files (kustomizations, the patches and plugin configs they name) are no objects.
    config = kustomize_config(items)
    problems = shape_errors(items, config) + duplicates(items, config)
    index = build_index(items, skip=config)
    problems += [about(Severity.ERROR, f"cannot be read as a Kubernetes object: {why}", item)
                 for item, why in index.unreadable]
    changes = Changes()
    cascaded = cascade(index, changes, settings)
    problems += [r for r in cascaded if r.severity is Severity.ERROR]
    cascaded = [r for r in cascaded if r.severity is not Severity.ERROR]
    problems += validate(index, settings)
    if has_errors(problems):
        return Changes(), problems + [_not_written(r, "errors") if r.severity is Severity.INFO else r
                                      for r in cascaded]
    ds = decisions(index, settings)
    made, targets = materialize(index, ds, changes)
    told = [decision_result(d, targets.get(i)) for i, d in enumerate(ds)]
    reverted, retired = revert(index, changes), retire(index, items, changes)
    findings = made + override_checks(ds) + role_mismatches(ds) + spelling_warnings(ds) + unconfigurable(index)
    findings += document_warnings(ds)
    older = version_notes(ds, settings)
    results = problems + cascaded + told + findings + older + reverted + retired
    why = "errors" if has_errors(results) else None if settings.materialize else "mode validate"
    if why is None:
        return changes, results
    # What describes a change that is now not made says so.
    changed = {id(r) for r in cascaded + retired + older if r.severity is Severity.INFO}
    changed |= {id(r) for r in reverted if r.severity is Severity.INFO}
    changed |= {id(r) for r, d in zip(told, ds) if d.action == INJECT or (d.action == OVERRIDE and d.via_derived)}
    return Changes(), [_not_written(r, why) if id(r) in changed else r for r in results]

