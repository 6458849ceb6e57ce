"""The package's records: value records are `typing.NamedTuple` classes, each field typed and its default beside
its name; records that need identity, a cache or subclasses are frozen dataclasses with slots (the workloads,
the decisions, the plan); records with mutable state are plain classes with `__slots__` and their own
`__init__`."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections import namedtuple
from enum import Enum
from pathlib import Path
from typing import NamedTuple

import pytest

KRM_FN = Path(__file__).resolve().parents[2] / "krm_fn"


def _module_of(path: Path) -> str:
    parts = path.relative_to(KRM_FN.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = sorted(_module_of(p) for p in KRM_FN.rglob("*.py") if p.name != "__main__.py")


def _classes():
    for module in MODULES:
        mod = importlib.import_module(module)
        for name, cls in vars(mod).items():
            if inspect.isclass(cls) and cls.__module__ == module:
                yield f"{module}.{name}", cls


CLASSES = dict(_classes())
NAMED_TUPLES = {name: cls for name, cls in CLASSES.items() if issubclass(cls, tuple) and hasattr(cls, "_fields")}


def test_the_probe_finds_the_records():
    assert len(NAMED_TUPLES) >= 30, sorted(NAMED_TUPLES)


@pytest.mark.parametrize("name", sorted(NAMED_TUPLES))
def test_every_field_of_a_named_tuple_is_typed(name):
    """Each record is a typing.NamedTuple: every field has its type (for a reader and the type checker), not a
    bare collections.namedtuple whose fields a checker sees as Any."""
    cls = NAMED_TUPLES[name]
    assert tuple(cls.__annotations__) == cls._fields


def test_the_typed_check_tells_a_bare_namedtuple():
    class Typed(NamedTuple):
        a: int
    bare = namedtuple("Bare", "a")
    assert tuple(Typed.__annotations__) == Typed._fields
    assert tuple(getattr(bare, "__annotations__", {})) != bare._fields


@pytest.mark.parametrize("name", sorted(NAMED_TUPLES))
def test_a_named_tuples_defaults_are_immutable(name):
    """A NamedTuple's default is one object shared by every instance (what a dataclass's default_factory
    avoids): never a list, dict or set."""
    mutable = {field: type(value).__name__ for field, value in NAMED_TUPLES[name]._field_defaults.items()
               if isinstance(value, (list, dict, set, bytearray))}
    assert mutable == {}


def test_what_was_made_by_a_factory_is_fresh_per_instance():
    from krm_fn.domain.presets import PresetTable
    from krm_fn.model.changes import Plan
    from krm_fn.model.index import Index
    from krm_fn.stages.materialize import _Placement

    assert PresetTable().fallback is not PresetTable().fallback and PresetTable() == PresetTable()
    assert Index().items is not Index().items and Index().configmaps is not Index().configmaps
    assert _Placement(Index()).added is not _Placement(Index()).added
    assert Plan()._data is not Plan()._data


def test_workloads_compare_by_identity_and_plans_by_value():
    from krm_fn.model.changes import Plan, step
    from krm_fn.model.index import PlainWorkload, Workload

    assert Workload(None, None, {}) != Workload(None, None, {})
    assert PlainWorkload(None, None, {}) != PlainWorkload(None, None, {})
    one, two = Plan().then(step(ops={0: [{"op": "remove", "path": "/a"}]})), Plan()
    assert one == Plan().then(step(ops={0: [{"op": "remove", "path": "/a"}]})) and one != two
    with pytest.raises(AttributeError):
        one.ops = {}  # type: ignore[misc]


def test_the_outcomes_are_plain_subclasses_of_reference():
    from krm_fn.model import decisions as d

    for cls in (d.Inject, d.Override, d.NotVisible, d.Unrenamed, d.Broken):
        assert issubclass(cls, d.Reference) and "__slots__" in vars(cls) and not issubclass(cls, tuple)
    assert issubclass(d.Unrenamed, d.NotVisible)  # isinstance(x, NotVisible) takes Unrenamed too
    got = d.Unrenamed(None, ("spec",), "cfg", "cfg", None, False, generated="cfg-2g4h6k8m9t")
    assert (got.source_name, got.derived_found, got.generated, got.field) == ("cfg", False, "cfg-2g4h6k8m9t", "spec")
    # Values: equal by their fields and their outcome, never changed.
    assert got == d.Unrenamed(None, ("spec",), "cfg", "cfg", None, False, generated="cfg-2g4h6k8m9t")
    assert got != d.NotVisible(None, ("spec",), "cfg", "cfg", None, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.generated = "other"  # type: ignore[misc]


def test_the_workloads_decisions_and_plan_are_frozen_dataclasses_with_slots():
    """Immutable, and as cheap as the hand-written classes were: slots, no per-instance dict (an index holds
    one Workload per workload of a 10 000-item input)."""
    from krm_fn.model import decisions as d
    from krm_fn.model.changes import Plan
    from krm_fn.model.index import PlainWorkload, Workload

    for cls in (Workload, PlainWorkload, Plan, d.Reference, d.Inject, d.Override, d.NotVisible, d.Unrenamed, d.Broken):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls  # type: ignore[attr-defined]
        assert "__slots__" in vars(cls) and "__dict__" not in dir(cls), cls
    w = Workload(None, None, {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        w.data = {}  # type: ignore[misc]


def test_results_are_not_mistaken_for_plain_tuples_where_they_are_compared():
    """A NamedTuple equals any tuple of its fields: the places that compare results and references
    compare them with their own kind only."""
    from krm_fn.text.results import ResourceRef, Result, Severity

    assert issubclass(Severity, Enum)
    ref = ResourceRef("v1", "ConfigMap", "c")
    assert Result(Severity.INFO, "m", ref)._replace(message="n") == Result(Severity.INFO, "n", ref)
    assert {ref: 0}[ResourceRef("v1", "ConfigMap", "c", "")] == 0  # sort_results looks references up by value
