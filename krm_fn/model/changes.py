"""The plan as a value: what each stage adds (a Step), folded in order into the plan (a Plan).

Nothing is mutated: what a stage needs to know of earlier stages' effects it asks the plan (`data_of`,
`workload`). The writer gets only `Changes` (ops, added, removed).
"""

from types import MappingProxyType
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ..text.edits import Added, Changes, Ops
from ..text.patch import apply_ops
from ..text.items import Item
from ..text.results import Result
from .index import Workload, annotation_value

_NONE: Mapping = MappingProxyType({})


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
    decisions: tuple[Any, ...] = ()  # decide.Decision values (this module sits below decide)

    def then(self, later: "Step") -> "Step":
        """This step followed by `later`, as one step."""
        return Step(**_folded(self, later))


def _value(plan: "Plan") -> tuple:
    return plan.ops, plan.added, plan.removed, plan.results, plan.rewrites, plan.decisions


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


class Plan:
    """Every step so far, folded; answers what later stages need to know of earlier ones' effects.

    A Step's fields (a named tuple has no subclass with more fields), a value like a Step: compared by
    them, never assigned to."""

    __slots__ = ("ops", "added", "removed", "results", "rewrites", "decisions", "_data")
    ops: Mapping[int, Ops]
    added: tuple[Added, ...]
    removed: frozenset[int]
    results: tuple[Result, ...]
    rewrites: Mapping[int, Rewrite]
    decisions: tuple[Any, ...]
    _data: dict[int, Any]

    def __init__(self, ops: Mapping[int, Ops] = _NONE, added: tuple[Added, ...] = (), removed: frozenset[int] = frozenset(),
                 results: tuple[Result, ...] = (), rewrites: Mapping[int, Rewrite] = _NONE,
                 decisions: tuple[Any, ...] = (), _data: dict[int, Any] | None = None) -> None:
        init = object.__setattr__
        init(self, "ops", ops)
        init(self, "added", added)
        init(self, "removed", removed)
        init(self, "results", results)
        init(self, "rewrites", rewrites)
        init(self, "decisions", decisions)
        # Each item's data with its ops applied, built on first use. Derived, not part of the value.
        init(self, "_data", {} if _data is None else _data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Plan is a value")

    def __eq__(self, other: object) -> bool:
        if type(other) is not Plan:
            return NotImplemented
        return _value(self) == _value(other)

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
    def changes(self) -> Changes:
        return Changes(self.ops, self.added, self.removed)


def step(results: Iterable[Result] = (), *, ops: Mapping[int, Iterable[dict]] | None = None,
         added: Iterable[Added] = (), removed: Iterable[int] = (), rewrites: Mapping[int, Rewrite] | None = None,
         decisions: Iterable[Any] = ()) -> Step:
    """A Step from a stage's working lists and dicts, frozen (items without ops are left out)."""
    return Step(ops=MappingProxyType({i: tuple(o) for i, o in (ops or {}).items() if o}), added=tuple(added),
                removed=frozenset(removed), results=tuple(results), rewrites=MappingProxyType(dict(rewrites or {})),
                decisions=tuple(decisions))
