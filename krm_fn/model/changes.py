"""The plan as a value: what each stage adds (a Step), folded in order into the plan (a Plan).

Nothing is mutated: what a stage needs to know of earlier stages' effects it asks the plan (`data_of`,
`workload`). The writer gets only `Changes` (ops, added, removed).
"""

from dataclasses import dataclass, field
from types import MappingProxyType
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ..text.edits import Added, Changes, Ops
from ..text.patch import Op, apply_ops
from ..text.items import Item
from ..text.results import Result
from .decisions import Decision, Planned, Speculates
from .index import Workload, annotation_value

_NONE: Mapping[int, Any] = MappingProxyType({})  # an empty `ops` or `rewrites`


class Rewrite(NamedTuple):
    """An item as a KAITO controller will have rewritten it (a MultiRoleInference's child InferenceSet):
    checked and decided as such, never written."""

    data: Any
    by: Workload  # the workload whose controller rewrites it


class Step(NamedTuple):
    """What one stage plans. Ops of one item apply in order, after the ops earlier steps planned for it;
    a removed item loses its ops."""

    ops: Mapping[int, Ops] = _NONE
    added: tuple[Added, ...] = ()
    removed: frozenset[int] = frozenset()
    results: tuple[Result, ...] = ()
    rewrites: Mapping[int, Rewrite] = _NONE
    decisions: tuple[Planned, ...] = ()

    def then(self, later: "Step") -> "Step":
        """This step followed by `later`, as one step."""
        return Step(**_folded(self, later))


def _folded(first: "Step | Plan", later: Step) -> dict[str, Any]:
    removed = first.removed | later.removed
    ops = dict(first.ops)
    for index, more in later.ops.items():
        if more:
            ops[index] = ops.get(index, ()) + tuple(more)
    for index in removed & ops.keys():
        del ops[index]
    return {"ops": MappingProxyType(ops), "added": first.added + tuple(later.added), "removed": removed,
            "results": first.results + tuple(later.results),
            "rewrites": MappingProxyType({**first.rewrites, **later.rewrites}),
            "decisions": first.decisions + tuple(later.decisions)}


@dataclass(frozen=True, slots=True)
class Plan:
    """Every step so far, folded; answers what later stages need to know of earlier ones' effects.

    A Step's fields (a named tuple has no subclass with more fields), a value like a Step: compared by
    them, never assigned to."""

    ops: Mapping[int, Ops] = field(default_factory=lambda: _NONE)
    added: tuple[Added, ...] = ()
    removed: frozenset[int] = frozenset()
    results: tuple[Result, ...] = ()
    rewrites: Mapping[int, Rewrite] = field(default_factory=lambda: _NONE)
    # decide's Decisions, then plain_vllm's Speculates (`decided`: the Decisions alone).
    decisions: tuple[Planned, ...] = ()
    # Each item's data with its ops applied, built on first use. Derived, not part of the value.
    _data: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)

    def then(self, later: Step) -> "Plan":
        memo = {i: d for i, d in self._data.items() if i not in later.ops and i not in later.removed}
        return Plan(**_folded(self, later), _data=memo)

    def data_of(self, item: Item) -> Any:
        """The item's data as planned so far: its ops applied to its data as read."""
        ops = self.ops.get(item.index)
        if not ops:
            return item.data()
        if item.index not in self._data:
            self._data[item.index] = apply_ops(item.data(), list(ops))
        return self._data[item.index]

    def workload(self, w: Workload) -> Workload:
        """The workload as planned so far: its data with the ops applied, its annotation value there (the
        cascade writes the opt-in key KAITO syncs), and how KAITO's controller rewrites it."""
        data = self.data_of(w.item)
        rewrite = self.rewrites.get(w.item.index)
        value = annotation_value(w.spec, data)
        if rewrite is None:
            return Workload(w.item, w.spec, data, value, w.rewritten, w.rewritten_by)
        return Workload(w.item, w.spec, data, value, rewrite.data, rewrite.by)

    @property
    def decided(self) -> tuple[Decision, ...]:
        """decide's Decisions, without plain_vllm's Speculates: what the stages before plain_vllm (advice,
        materialize, rollout_notes) read."""
        return tuple(d for d in self.decisions if not isinstance(d, Speculates))

    @property
    def changes(self) -> Changes:
        return Changes(self.ops, self.added, self.removed)


def step(results: Iterable[Result] = (), *, ops: Mapping[int, Iterable[Op]] | None = None,
         added: Iterable[Added] = (), removed: Iterable[int] = (), rewrites: Mapping[int, Rewrite] | None = None,
         decisions: Iterable[Planned] = ()) -> Step:
    """A Step from a stage's working lists and dicts, frozen (items without ops are left out)."""
    return Step(ops=MappingProxyType({i: tuple(o) for i, o in (ops or {}).items() if o}), added=tuple(added),
                removed=frozenset(removed), results=tuple(results), rewrites=MappingProxyType(dict(rewrites or {})),
                decisions=tuple(decisions))
