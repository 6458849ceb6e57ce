"""krm_fn.text.record behaves as dataclasses does for what the package uses: the same classes built both ways
must construct, compare, hash, print, freeze and copy alike."""
from __future__ import annotations

import dataclasses
from dataclasses import KW_ONLY
from types import MappingProxyType

import pytest

from krm_fn.text import record

SHARED: list = []


def define(dc, field):
    """The package's record shapes, built with one implementation's `dataclass` and `field`. `_: KW_ONLY`
    is a string under `from __future__ import annotations`: dataclasses looks the name up in this module,
    record reads the name."""

    @dc(frozen=True)
    class Point:
        x: int
        y: int = 0

    @dc(frozen=True)
    class Tuned:
        name: str
        table: object = field(default_factory=lambda: frozenset({"a"}))
        tags: tuple = field(default=())
        hidden: dict = field(default_factory=dict, compare=False, repr=False)

    @dc(frozen=True)
    class Finding:
        message: str
        key: str = ""
        proposed: str | None = None
        _: KW_ONLY
        id: str
        severity: int

    @dc
    class Index:
        items: list = field(default_factory=list)
        seen: set = field(default_factory=set)
        config: frozenset = frozenset()
        _memo: dict | None = None

    @dc(eq=False)
    class Item:
        index: int
        source: str
        _data: object = field(default=None, repr=False)

    @dc(frozen=True, eq=False)
    class Workload:
        item: object
        value: object = None

    @dc(frozen=True)
    class Reference:
        workload: object
        current: str | None

        @property
        def field(self) -> str:
            return f"at {self.current}"

    @dc(frozen=True)
    class Inject(Reference):
        json: str
        problem: str = ""

    @dc(frozen=True)
    class Step:
        ops: dict = field(default_factory=lambda: MappingProxyType({}))
        added: tuple = ()

    @dc(frozen=True)
    class Plan(Step):
        _data: dict = field(default_factory=dict, compare=False, repr=False)

    @dc(frozen=True, order=True)
    class Version:
        major: int
        minor: int

    @dc
    class Counted:
        n: int

        def __post_init__(self) -> None:
            SHARED.append(self.n)

    return locals()


REAL = define(dataclasses.dataclass, dataclasses.field)
OURS = define(record.dataclass, record.field)


def both(name):
    return REAL[name], OURS[name]


def test_the_kw_only_marker_is_read_as_modules_spell_it():
    """Modules write `_: KW_ONLY` under `from __future__ import annotations`: the annotation is the string
    "KW_ONLY"."""
    ns: dict = {"KW_ONLY": record.KW_ONLY, "dataclass": record.dataclass}
    exec("from __future__ import annotations\n@dataclass(frozen=True)\nclass F:\n    a: str\n    _: KW_ONLY\n"
         "    id: str\n", ns)
    f = ns["F"]("x", id="SD1")
    assert (f.a, f.id, ns["F"].__match_args__) == ("x", "SD1", ("a",))
    with pytest.raises(TypeError):
        ns["F"]("x", "SD1")


@pytest.mark.parametrize("make", [
    lambda c: c["Point"](1),
    lambda c: c["Point"](1, 2),
    lambda c: c["Point"](y=3, x=4),
    lambda c: c["Tuned"]("t"),
    lambda c: c["Tuned"]("t", tags=("a",), hidden={"z": 1}),
    lambda c: c["Index"](),
    lambda c: c["Index"]([1], config=frozenset({2})),
    lambda c: c["Inject"]("w", None, "{}"),
    lambda c: c["Inject"]("w", "cm", "{}", problem="p"),
    lambda c: c["Plan"](),
    lambda c: c["Plan"](ops={1: 2}, _data={3: 4}),
    lambda c: c["Version"](0, 10),
], ids=lambda f: "")
def test_construct_print_compare_hash_alike(make):
    real, ours = make(REAL), make(OURS)
    assert repr(ours) == repr(real)
    assert ours == make(OURS) and not (ours != make(OURS))
    assert (ours == real) is False  # other classes: NotImplemented both ways, then identity
    if type(real).__hash__ is None:
        assert type(ours).__hash__ is None
    else:
        try:
            expected = hash(real)
        except TypeError:  # a field's value is unhashable
            with pytest.raises(TypeError):
                hash(ours)
        else:
            assert hash(ours) == expected
    assert type(ours).__match_args__ == type(real).__match_args__
    for name in dataclasses.fields(real):
        assert getattr(ours, name.name) == getattr(real, name.name)


def test_a_class_created_in_bulk_gets_a_compiled_init_that_behaves_the_same():
    cls = OURS["Finding"]
    first = cls.__init__
    made = [cls("m", id=str(i), severity=i) for i in range(record.HOT + 5)]
    assert cls.__init__ is not first  # compiled after HOT instances
    assert [repr(f) for f in made] == [repr(REAL["Finding"]("m", id=str(i), severity=i)) for i in range(record.HOT + 5)]
    assert repr(cls("m", "k", "p", id="x", severity=1)) == repr(REAL["Finding"]("m", "k", "p", id="x", severity=1))
    with pytest.raises(TypeError):
        cls("m", "k", "p", "x")
    tuned = [OURS["Tuned"]("t") for _ in range(record.HOT + 2)]
    assert tuned[-1] == tuned[0] and tuned[-1].table == frozenset({"a"}) and tuned[-1].hidden is not tuned[0].hidden
    with pytest.raises(record.FrozenInstanceError):
        tuned[-1].name = "u"


def test_fields_left_out_of_comparison_and_repr():
    for ns in (REAL, OURS):
        a, b = ns["Tuned"]("t", hidden={1: 1}), ns["Tuned"]("t", hidden={2: 2})
        assert a == b and hash(a) == hash(b) and "hidden" not in repr(a)
        assert ns["Plan"](_data={1: 1}) == ns["Plan"]()


def test_defaults_are_class_attributes_and_factories_are_not():
    for ns in (REAL, OURS):
        assert ns["Point"].y == 0 and ns["Tuned"].tags == ()
        assert not hasattr(ns["Tuned"], "table") and not hasattr(ns["Index"], "items")
        assert ns["Index"]().items is not ns["Index"]().items


def test_arguments_refused_alike():
    for ns in (REAL, OURS):
        with pytest.raises(TypeError):
            ns["Point"]()
        with pytest.raises(TypeError):
            ns["Point"](1, 2, 3)
        with pytest.raises(TypeError):
            ns["Point"](1, z=2)
        with pytest.raises(TypeError):
            ns["Inject"]("w", None)  # json is required, after the base's fields
        with pytest.raises(TypeError):
            ns["Finding"]("m", id="SD1")  # severity is keyword-only and required


def test_frozen_and_identity_semantics():
    for ns, error in ((REAL, dataclasses.FrozenInstanceError), (OURS, record.FrozenInstanceError)):
        p = ns["Point"](1)
        with pytest.raises(error):
            p.x = 2
        with pytest.raises(error):
            del p.y
        with pytest.raises(AttributeError):
            p.z = 1
        w = ns["Workload"]("i")
        assert w != ns["Workload"]("i") and hash(w) == object.__hash__(w)
        item = ns["Item"](0, "s")
        item.source = "t"  # not frozen
        assert item != ns["Item"](0, "t")  # eq=False: identity
        assert ns["Inject"]("w", "c", "{}").field == "at c"  # a property named like field() still works


def test_order_and_post_init():
    for ns in (REAL, OURS):
        assert sorted([ns["Version"](1, 0), ns["Version"](0, 17), ns["Version"](0, 9)]) == [
            ns["Version"](0, 9), ns["Version"](0, 17), ns["Version"](1, 0)]
        SHARED.clear()
        ns["Counted"](7)
        assert SHARED == [7]


def test_replace():
    real = dataclasses.replace(REAL["Inject"]("w", "c", "{}"), problem="p", current=None)
    ours = record.replace(OURS["Inject"]("w", "c", "{}"), problem="p", current=None)
    assert repr(ours) == repr(real)
    f = record.replace(OURS["Finding"]("m", id="SD1", severity=2), key="k")
    assert (f.message, f.key, f.id, f.severity) == ("m", "k", "SD1", 2)
    with pytest.raises(TypeError):
        record.replace(OURS["Point"](1), z=3)
    assert [f.name for f in record.fields(OURS["Plan"])] == ["ops", "added", "_data"]


def test_what_it_does_not_support_is_refused_when_the_class_is_built():
    with pytest.raises(TypeError):
        record.dataclass(slots=True)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        @record.dataclass
        class Mutable:
            items: list = []  # noqa: RUF012
    with pytest.raises(TypeError):
        @record.dataclass(frozen=True)
        class Own:
            x: int

            def __setattr__(self, name, value):
                pass


def test_the_package_builds_no_dataclass():
    """Every record class of the package is a krm_fn.text.record one (an import line switched back would bring
    dataclasses, and inspect with it, back to every start)."""
    import importlib
    import pkgutil

    import krm_fn
    for info in pkgutil.walk_packages(krm_fn.__path__, "krm_fn."):
        if info.name == "krm_fn.__main__":
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == info.name:
                assert not dataclasses.is_dataclass(value), f"{info.name}.{value.__name__}"


def _named_tuples(base):
    class Finding(base):
        """A finding."""
        message: str
        field: str
        id: str

    class Added(base):
        after: int
        data: object = None

    return Finding, Added


def test_named_tuples_as_typing_builds_them():
    import typing
    (real_f, real_a), (ours_f, ours_a) = _named_tuples(typing.NamedTuple), _named_tuples(record.NamedTuple)
    for make in (lambda F, A: F("m", "f", "SD1"), lambda F, A: F(message="m", id="SD1", field="f"),
                 lambda F, A: A(1), lambda F, A: A(1, ("x", 1)), lambda F, A: A(after=2, data=3)):
        real, ours = make(real_f, real_a), make(ours_f, ours_a)
        assert (repr(ours), tuple(ours), hash(ours), ours == real, ours._asdict()) == (
            repr(real), tuple(real), hash(real), True, real._asdict())
        assert isinstance(ours, tuple) and type(ours)._fields == type(real)._fields
    message, field, id = ours_f("m", "f", "SD1")
    assert (message, field, id) == ("m", "f", "SD1") and ours_f("m", "f", "x").field == "f"
    assert ours_f("m", "f", "x")._replace(id="y") == ("m", "f", "y") and ours_f.__doc__ == "A finding."
    for bad in (lambda: ours_f("m"), lambda: ours_f("m", "f", "x", "y"), lambda: ours_f("m", "f", idd="x")):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(AttributeError):
        ours_f("m", "f", "x").extra = 1  # __slots__ = (): no instance dict
