"""The package's records are the standard library's forms, not a second `dataclasses`: value records are
subclasses of a `collections.namedtuple` (typing.NamedTuple would import typing and compile every field's
annotation at start-up), with each field's type written as an annotation in the class; records that need
identity, a cache, subclasses or mutable state are plain classes with `__slots__` and their own `__init__`.
(dataclasses and typing stay out of every start: tests/test_startup.py.)"""
from __future__ import annotations

import ast
import importlib
import inspect
from enum import Enum
from pathlib import Path

import pytest

KRM_FN = Path(__file__).resolve().parent.parent / "krm_fn"
RECORD = KRM_FN / "text" / "record.py"
# Converted separately (the one reader of issue 20): until then they alone still build records with
# krm_fn.text.record; once none does, the module goes too.
NOT_YET: set[str] = set()  # every module is converted; record.py is gone


def _module_of(path: Path) -> str:
    parts = path.relative_to(KRM_FN.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_of(p): p for p in sorted(KRM_FN.rglob("*.py")) if p != RECORD and p.name != "__main__.py"}


def _imports_record(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = (node.module or "").split(".")
            if target[-1:] == ["record"] or (not node.module and any(a.name == "record" for a in node.names)):
                return True
        elif isinstance(node, ast.Import) and any(a.name.endswith(".record") for a in node.names):
            return True
    return False


def test_no_module_builds_records_with_a_dataclasses_of_its_own():
    importers = {m for m, p in MODULES.items() if _imports_record(p)}
    assert importers <= NOT_YET, f"use collections.namedtuple or a plain class with __slots__: {sorted(importers - NOT_YET)}"
    if not importers:
        assert not RECORD.exists(), "nothing imports krm_fn/text/record.py any more: delete it"


def test_no_class_is_made_by_a_decorator():
    """`@dataclass` (ours or the standard library's) on no class: what a record needs is written in it."""
    found = []
    for module, path in MODULES.items():
        if module in NOT_YET:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.decorator_list:
                found.append(f"{module}.{node.name}")
    assert found == []


def _classes():
    for module in sorted(set(MODULES) - NOT_YET):
        mod = importlib.import_module(module)
        for name, cls in vars(mod).items():
            if inspect.isclass(cls) and cls.__module__ == module:
                yield f"{module}.{name}", cls


CLASSES = dict(_classes())
NAMED_TUPLES = {name: cls for name, cls in CLASSES.items() if issubclass(cls, tuple) and hasattr(cls, "_fields")}


def test_every_record_class_is_a_standard_form():
    assert len(NAMED_TUPLES) >= 20, sorted(NAMED_TUPLES)  # the probe finds them
    odd = [name for name, cls in CLASSES.items() if hasattr(cls, "__record_fields__")]
    assert odd == []


@pytest.mark.parametrize("name", sorted(NAMED_TUPLES))
def test_a_named_tuples_annotations_name_its_fields_in_order(name):
    """The class body's annotations are the fields' types for a reader: they name exactly the tuple's
    fields, in order, and the class adds no instance dictionary (`__slots__ = ()`)."""
    cls = NAMED_TUPLES[name]
    assert tuple(vars(cls).get("__annotations__", {})) == cls._fields
    assert vars(cls).get("__slots__") == ()


@pytest.mark.parametrize("name", sorted(NAMED_TUPLES))
def test_a_named_tuples_defaults_are_immutable(name):
    """A NamedTuple's default is one object shared by every instance (what a dataclass's default_factory
    avoided): never a list, dict or set."""
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


def test_results_are_not_mistaken_for_plain_tuples_where_they_are_compared():
    """A NamedTuple equals any tuple of its fields: the places that compare results and references
    compare them with their own kind only."""
    from krm_fn.text.results import ResourceRef, Result, Severity

    assert issubclass(Severity, Enum)
    ref = ResourceRef("v1", "ConfigMap", "c")
    assert Result(Severity.INFO, "m", ref)._replace(message="n") == Result(Severity.INFO, "n", ref)
    assert {ref: 0}[ResourceRef("v1", "ConfigMap", "c", "")] == 0  # sort_results looks references up by value
