"""The stages in order, folded into one plan, `disable` applied and the error gate; nothing here does I/O
(docs/architecture.md, steps 4 and 5)."""

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from . import checks
from .domain.localconfig import kustomize_config
from .model.changes import Plan, Step, step
from .domain import constants as C
from .model.config import Settings
from .model.decisions import Inject, Override, Planned, Speculates
from .model.index import Index, build_index, ref_of
from .stages.advice import advise
from .stages.cascade import cascade
from .stages.decide import decide
from .stages.materialize import materialize, retire, revert
from .stages.misplaced import misplaced_annotation
from .stages.placement import Placement
from .stages.plain_vllm import plain_opt_in, plain_vllm
from .stages.prometheus_rules import prometheus_rules
from .stages.grafana_dashboards import grafana_dashboards
from .stages.rollout_notes import rollout_notes
from .stages.shape import (cycles, disabled_per_object, duplicates, fractions, json_kubectl_refuses,
                           keep_blocks_before_comments, merge_disputes, no_string_values, nonspecific_tags, odd_keys,
                           shape_errors, stray_kustomize_files, typed_metadata, unreadable, unsendable,
                           unterminated_block_scalars)
from .text.edits import Changes
from .text.items import Item
from .text.results import ResourceRef, Result, Severity, has_errors

_NONE: Mapping[ResourceRef, frozenset[str]] = MappingProxyType({})

Stage = Callable[[Index, Settings, Plan], Step]


def check_input(index: Index, settings: Settings, plan: Plan) -> Step:
    """Items a cluster would refuse, duplicate keys, the same object twice, KAITO items with no data."""
    unread = {i.index for i, _ in index.unreadable}
    return step(shape_errors(index.items, index.config) + stray_kustomize_files(index.items)
                + duplicates(index.items, index.config, apart=not settings.materialize) + unreadable(index.unreadable)
                + cycles(index.items, unread)
                + unterminated_block_scalars(index.items) + keep_blocks_before_comments(index.items)
                + json_kubectl_refuses(index.items)
                + unsendable(index.items, index.config) + nonspecific_tags(index.items, index.config)
                + no_string_values(index) + typed_metadata(index)
                + fractions(index) + merge_disputes(index.items, index.config, unread | _cyclic(index.items))
                + odd_keys(index.items, index.config))


def _cyclic(items: list[Item]) -> set[int]:
    return {item.index for item in items if item.cycle}


def validate(index: Index, settings: Settings, plan: Plan) -> Step:
    """KAITO's admission rules (checks/) on each workload as the cascade leaves it."""
    return step(checks.validate(map(plan.workload, index.workloads), settings))


# After check_input; errors from any of these stop the plan.
CHECKS: tuple[Stage, ...] = (cascade, validate, misplaced_annotation, plain_opt_in)
CHANGES: tuple[Stage, ...] = (decide, materialize, advise, revert, rollout_notes, retire, plain_vllm, prometheus_rules,
                              grafana_dashboards)
# After an error nothing is written, but every other object is still decided and advised, so that one error
# hides no other object's findings. Not `retire`: with the objects in error left out, the derived ConfigMaps
# they use would look unused.
AFTER_ERRORS: tuple[Stage, ...] = tuple(s for s in CHANGES if s is not retire)


def fold(plan: Plan, index: Index, settings: Settings, stages: Iterable[Stage],
         silenced: Mapping[ResourceRef, frozenset[str]] = _NONE) -> Plan:
    """Each stage's step folded into the plan in turn, without the results `disable` turns off, nor those the
    object's own `kaito-specdec.dev/disable` annotation turns off (`silenced`: its ids per object)."""
    for stage in stages:
        found = stage(index, settings, plan)
        plan = plan.then(found._replace(results=tuple(r for r in found.results if r.id not in settings.disable
                                                      and r.id not in silenced.get(r.resource, ()))))  # type: ignore[arg-type]
    return plan


def _beside_errors(index: Index, settings: Settings, checked: Plan,
                   silenced: Mapping[ResourceRef, frozenset[str]] = _NONE) -> Plan:
    """The plan of the change stages on every object no error names: the workloads in error (and any object
    an error is about) are left out of the index those stages see, and the results about them dropped."""
    stopped = {r.resource for r in checked.results if r.severity is Severity.ERROR}
    if None in stopped:  # an error about the input as a whole (no object): nothing can be decided
        return checked
    rest = index.without({item.index for item in index.items if item.is_mapping and ref_of(item) in stopped})
    more = fold(checked, rest, settings, AFTER_ERRORS, silenced)
    later = tuple(r for r in more.results[len(checked.results):] if r.resource not in stopped)
    return Plan(more.ops, more.added, more.removed, checked.results + later, more.rewrites, more.decisions)


def _nothing_written(results: Iterable[Result], why: str) -> tuple[Changes, list[Result]]:
    """No changes; each result that tells of a change says that it is not made (validate mode, or errors)."""
    return Changes(), [r._replace(message=f"{r.message} [not written: {why}]") if r.change else r for r in results]


def plan(items: list[Item], settings: Settings, placement: Placement | None = None) -> tuple[Changes, list[Result]]:
    """Read-only over the items: the changes to make (none when anything is in error) and every result,
    the placement's warnings on the final changes last; none that `disable` turns off."""
    changes, results, _ = plan_all(items, settings, placement)
    return changes, results


def plan_all(items: list[Item], settings: Settings, placement: Placement | None = None
             ) -> tuple[Changes, list[Result], dict[str, int]]:
    """`plan`, and how many workloads the plan turns speculative decoding on for, by kind of config (the
    summary line)."""
    # kustomize's files (kustomizations, the patches and plugin configs they name) are no objects.
    index = build_index(items, skip=kustomize_config(items))
    silenced, said = _silenced(index)
    changes, results, decisions = _planned(index, settings, silenced)
    results = [r for r in said if r.id not in settings.disable] + results
    if placement is not None:
        results += [r for r in placement(index, changes) if r.id not in settings.disable
                    and r.id not in silenced.get(r.resource, ())]  # type: ignore[arg-type]
    return changes, results, enabled_by_config(decisions)


def _silenced(index: Index) -> tuple[Mapping[ResourceRef, frozenset[str]], list[Result]]:
    """The objects' own `kaito-specdec.dev/disable` ids (looked for only where an item's text names it)."""
    if not any(C.DISABLE_ANNOTATION in item.region for item in index.items if item.is_mapping):
        return _NONE, []
    return disabled_per_object(index.items)


def enabled_by_config(decisions: Iterable[Planned]) -> dict[str, int]:
    """Each workload once per kind of config it gets: the method written (mtp, ngram …), "own config" (the
    user's speculative-config, left as it is), "plain vLLM" (a Deployment and friends)."""
    seen: set[tuple[int, str]] = set()
    out: dict[str, int] = {}
    for d in decisions:
        if isinstance(d, Inject):
            key = d.method or "config"
        elif isinstance(d, Override):
            key = "own config"
        elif isinstance(d, Speculates):
            key = "plain vLLM"
        else:
            continue
        ident = (d.workload.item.index, key)
        if ident not in seen:
            seen.add(ident)
            out[key] = out.get(key, 0) + 1
    return out


def _planned(index: Index, settings: Settings, silenced: Mapping[ResourceRef, frozenset[str]] = _NONE
             ) -> tuple[Changes, list[Result], tuple[Planned, ...]]:
    read = fold(Plan(), index, settings, [check_input], silenced)
    checked = fold(read, index, settings, CHECKS, silenced)
    if has_errors(checked.results):
        # What stops the plan comes first, then what it would have changed, then what the objects without
        # errors would get (decided and advised as if the others were not there; nothing is written).
        later = checked.results[len(read.results):]
        results = read.results + tuple(r for r in later if r.severity is Severity.ERROR) \
            + tuple(r for r in later if r.severity is not Severity.ERROR)
        beside = _beside_errors(index, settings, checked, silenced)
        return (*_nothing_written(results + tuple(beside.results[len(checked.results):]), "errors"), beside.decisions)
    planned = fold(checked, index, settings, CHANGES, silenced)
    why = "errors" if has_errors(planned.results) else None if settings.materialize else "mode validate"
    if why is None:
        return planned.changes, list(planned.results), planned.decisions
    return (*_nothing_written(planned.results, why), planned.decisions)
