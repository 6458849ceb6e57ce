"""`@dataclass` without `dataclasses`: the record classes of this package, built cheaply at import.

The function starts once per render, and its start is mostly imports. `dataclasses` imports `inspect`
(with `ast`, `dis`, `tokenize`) and compiles five or six methods per class with `exec` while the module is
imported: about a fifth of a one-Workspace start (docs/performance.md). Here nothing is compiled: every
record class shares one `__init__`, `__repr__`, `__eq__`, `__hash__` and frozen `__setattr__`, which read
the class's fields from attributes set when the class is built. The shared `__init__` binds arguments
in Python, about a microsecond more per instance than a compiled one, and compiles the class its own
after 64 instances; one compile costs 50-180 microseconds, and a one-Workspace run creates the first
instances of fifteen record classes.

The same spelling as `dataclasses` for what this package uses, so a module switches by its import line:
`frozen`, `eq`, `repr`, `order`; `field(default=, default_factory=, repr=, compare=)`; `KW_ONLY`;
`__post_init__`; inheritance between records; `replace`. Anything else (`slots`, `unsafe_hash`, `init=False`,
`InitVar`) is refused when the class is built, never silently ignored.
"""
from __future__ import annotations

from operator import attrgetter, ge, gt, itemgetter, le, lt

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # type checkers treat `dataclass` as dataclasses' (PEP 681); at run time, no typing
    from typing import dataclass_transform
else:
    def dataclass_transform(**_: object) -> Callable:
        return lambda f: f

__all__ = ["KW_ONLY", "FrozenInstanceError", "NamedTuple", "dataclass", "field", "fields", "replace"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class _KwOnly:
    """The `_: KW_ONLY` marker: the fields after it are keyword-only parameters of `__init__`."""

    def __repr__(self) -> str:
        return "KW_ONLY"


if TYPE_CHECKING:  # the marker type checkers know
    from dataclasses import KW_ONLY
else:
    KW_ONLY = _KwOnly()
# What the marker's annotation reads as under `from __future__ import annotations`.
_KW_ONLY_NAMES = ("KW_ONLY", "dataclasses.KW_ONLY", "record.KW_ONLY")
_CLASS_VAR_PREFIXES = ("ClassVar", "typing.ClassVar")
_INIT_VAR_PREFIXES = ("InitVar", "dataclasses.InitVar")


class FrozenInstanceError(AttributeError):
    """Assigning to or deleting a field of a frozen record (as `dataclasses.FrozenInstanceError`)."""


class Field:
    __slots__ = ("name", "default", "default_factory", "repr", "compare", "kw_only")

    def __init__(self, default: object, default_factory: object, repr: bool, compare: bool) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.kw_only = False

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True,
          compare: bool = True) -> Any:
    """A field with a default, a default factory, or left out of `repr` or of comparison."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, repr, compare)


def fields(obj: object) -> tuple[Field, ...]:
    """The fields of a record class or instance, in `__init__` order of declaration."""
    try:
        return tuple(type.__getattribute__(obj if isinstance(obj, type) else type(obj), "__record_fields__").values())
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def replace(obj: Any, /, **changes: Any) -> Any:
    """A copy of a record with some fields changed (as `dataclasses.replace`)."""
    for name in type(obj).__record_fields__:  # type: ignore[attr-defined]
        if name not in changes:
            changes[name] = getattr(obj, name)
    return type(obj)(**changes)


@dataclass_transform(field_specifiers=(field, Field))
def dataclass(cls: type | None = None, /, *, frozen: bool = False, eq: bool = True, repr: bool = True,
              order: bool = False) -> Any:
    """Make `cls` a record: as `dataclasses.dataclass` with the same arguments."""
    def wrap(cls: type) -> type:
        return _build(cls, frozen, eq, repr, order)
    return wrap if cls is None else wrap(cls)


def _build(cls: Any, frozen: bool, eq: bool, want_repr: bool, order: bool) -> Any:
    """Read the fields and attach the shared methods; everything else waits for the first instance."""
    body = cls.__dict__
    found: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        inherited = base.__dict__.get("__record_fields__")
        if inherited:
            found.update(inherited)
            if base.__dict__["__record_frozen__"] and not frozen:
                raise TypeError(f"{cls.__name__}: cannot inherit a non-frozen record from a frozen one")
    kw_only = False
    for name, annotation in body.get("__annotations__", {}).items():
        if annotation.__class__ is str:
            if annotation in _KW_ONLY_NAMES:
                kw_only = True
                continue
            if annotation.startswith(_CLASS_VAR_PREFIXES):
                continue
            if annotation.startswith(_INIT_VAR_PREFIXES):
                raise TypeError(f"{cls.__name__}.{name}: InitVar is not supported by krm_fn.text.record")
        elif annotation is KW_ONLY:
            kw_only = True
            continue
        default = body.get(name, MISSING)
        if default.__class__ is Field:
            f = default
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(default, MISSING, True, True)
        if f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        f.name = name
        f.kw_only = kw_only
        found[name] = f
    seen_default = False
    shown: list[str] = []
    compared: list[str] = []
    positional: list[str] = []
    for f in found.values():
        if f.repr:
            shown.append(f.name)
        if f.compare:
            compared.append(f.name)
        if not f.kw_only:
            positional.append(f.name)
            if f.default is not MISSING or f.default_factory is not MISSING:
                seen_default = True
            elif seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
    cls.__record_fields__ = found
    cls.__record_frozen__ = frozen
    cls.__record_init__ = None  # the _Binding, made by the first instance
    cls.__record_repr__ = shown
    cls.__record_key__ = _key(compared)
    if "__init__" not in body:
        cls.__init__ = _init
    if "__match_args__" not in body:
        cls.__match_args__ = tuple(positional)  # type: ignore[misc]
    if want_repr and "__repr__" not in body:
        cls.__repr__ = _repr
    if eq and "__eq__" not in body:
        cls.__eq__ = _eq
    if order:
        for name, method in _ORDER.items():
            if name in body:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. Consider using functools.total_ordering")
            setattr(cls, name, method)
    if not frozen and "__setattr__" in body:
        raise TypeError(f"{cls.__name__}: a record's __init__ stores its fields directly, past its own __setattr__")
    if frozen:
        if "__setattr__" in body or "__delattr__" in body:
            raise TypeError(f"Cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
    # The hash rules of dataclasses (its _hash_action table, without unsafe_hash).
    class_hash = body.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in body))
    if eq and not explicit_hash:
        cls.__hash__ = _hash if frozen else None
    return cls


# The methods every record class shares: each reads its class's fields from the attributes _build set.

def _key(names: list[str]):  # type: ignore[no-untyped-def]
    """The compared fields of an instance as a tuple (what dataclasses' `(self.a, self.b,)` builds)."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        get = attrgetter(names[0])
        return lambda self: (get(self),)
    return attrgetter(*names)


def _repr(self: object) -> str:
    inner = ", ".join([f"{n}={getattr(self, n)!r}" for n in type(self).__record_repr__])  # type: ignore[attr-defined]
    return f"{type(self).__qualname__}({inner})"


def _eq(self: object, other: object) -> bool:
    if other.__class__ is self.__class__:
        key = self.__class__.__record_key__  # type: ignore[attr-defined]
        return key(self) == key(other)  # type: ignore[no-any-return]
    return NotImplemented


def _hash(self: object) -> int:
    return hash(self.__class__.__record_key__(self))  # type: ignore[attr-defined]


def _ordering(compare):  # type: ignore[no-untyped-def]
    def method(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            key = self.__class__.__record_key__  # type: ignore[attr-defined]
            return compare(key(self), key(other))  # type: ignore[no-any-return]
        return NotImplemented
    method.__name__ = f"__{compare.__name__}__"
    return method


_ORDER = {f"__{op.__name__}__": _ordering(op) for op in (lt, le, gt, ge)}


def _frozen_setattr(self: object, name: str, value: object) -> None:
    cls = type(self)
    if "__record_fields__" in cls.__dict__ or name in cls.__record_fields__:  # type: ignore[attr-defined]
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: object, name: str) -> None:
    cls = type(self)
    if "__record_fields__" in cls.__dict__ or name in cls.__record_fields__:  # type: ignore[attr-defined]
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


class _TupleRecord(type):
    """Builds `class Finding(NamedTuple): message: str; …` as `typing.NamedTuple` does (a tuple with named
    fields, defaults from class attributes), but without `typing` and without the `eval` of
    `collections.namedtuple`."""

    def __new__(mcls, name: str, bases: tuple, ns: dict) -> Any:
        if bases != (globals().get("_TupleBase"),):  # _TupleBase itself, or a subclass of a named tuple
            return super().__new__(mcls, name, bases, ns)
        names = tuple(n for n, a in ns.get("__annotations__", {}).items()
                      if not (isinstance(a, str) and a.startswith(_CLASS_VAR_PREFIXES)))
        defaults = {n: ns.pop(n) for n in names if n in ns}
        for i, n in enumerate(names):
            ns[n] = property(itemgetter(i), doc=f"Alias for field number {i}")
        ns.update(__slots__=(), _fields=names, _field_defaults=defaults, __match_args__=names,
                  __new__=_tuple_new(name, names, defaults))
        return super().__new__(mcls, name, bases, ns)  # type: ignore[arg-type]


def _tuple_new(name: str, names: tuple[str, ...], defaults: dict):  # type: ignore[no-untyped-def]
    count = len(names)

    def __new__(cls: type, *args: object, **kwargs: object) -> tuple:
        if kwargs or len(args) != count:
            if len(args) > count:
                raise TypeError(f"{name}.__new__() takes {count + 1} positional arguments but {len(args) + 1} were given")
            bound = list(args)
            for n in names[len(args):]:
                if n in kwargs:
                    bound.append(kwargs.pop(n))
                elif n in defaults:
                    bound.append(defaults[n])
                else:
                    raise TypeError(f"{name}.__new__() missing required argument: {n!r}")
            if kwargs:
                raise TypeError(f"{name}.__new__() got an unexpected keyword argument {next(iter(kwargs))!r}")
            args = tuple(bound)
        return tuple.__new__(cls, args)
    return __new__


class _TupleBase(tuple, metaclass=_TupleRecord):
    """A base for named tuples written as classes, as with `typing.NamedTuple`."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(self._fields, self))
        return f"{type(self).__name__}({inner})"

    def __getnewargs__(self) -> tuple:
        return tuple(self)

    def _asdict(self) -> dict:
        return dict(zip(self._fields, self))

    def _replace(self, **changes: object):  # type: ignore[no-untyped-def]
        return type(self)(**{**self._asdict(), **changes})


if TYPE_CHECKING:  # the same behaviour, which type checkers know by this name
    from typing import NamedTuple
else:
    NamedTuple = _TupleBase


# Instances of one class after which its `__init__` is compiled: a class a run creates in bulk (items,
# results) then builds each as fast as a dataclass does, one that it creates a few times costs no compile.
HOT = 64


class _Binding:
    """How a record class's `__init__` binds its arguments, worked out on its first instance."""

    __slots__ = ("specs", "names", "most", "simple", "post_init", "qualname", "made")

    def __init__(self, cls: type) -> None:
        fields: dict[str, Field] = cls.__record_fields__  # type: ignore[attr-defined]
        self.specs = [(f.name, f.kw_only, f.default, f.default_factory) for f in fields.values()]
        self.names = tuple(fields)
        self.most = len([f for f in fields.values() if not f.kw_only])
        self.simple = self.most == len(self.names)
        self.post_init = any("__post_init__" in c.__dict__ for c in cls.__mro__)
        self.qualname = f"{cls.__qualname__}.__init__()"
        self.made = 0


def _init(self: object, *args: object, **kwargs: object) -> None:
    """The `__init__` dataclasses would write, as one shared function rather than compiled code per class
    (a compile costs more than a start creates records): positional fields, then keyword-only ones;
    values stored in declaration order straight into the instance's `__dict__` (what `object.__setattr__`
    does for a frozen one); default factories called when their argument was not given; then
    `__post_init__`."""
    cls = type(self)
    b = cls.__record_init__  # type: ignore[attr-defined]
    if b is None:
        b = cls.__record_init__ = _Binding(cls)  # type: ignore[attr-defined]
    b.made += 1
    if b.made == HOT and cls.__dict__.get("__init__") is _init:
        cls.__init__ = _compile_init(cls)  # type: ignore[method-assign]
    given = len(args)
    if given > b.most:
        raise TypeError(f"{b.qualname} takes {b.most + 1} positional arguments but {given + 1} were given")
    values = self.__dict__
    if b.simple and given == b.most and not kwargs:
        values.update(zip(b.names, args))
    else:
        at = 0
        missing = []
        for name, kw_only, default, factory in b.specs:
            if not kw_only and at < given:
                if name in kwargs:
                    raise TypeError(f"{b.qualname} got multiple values for argument {name!r}")
                values[name] = args[at]
                at += 1
            elif name in kwargs:
                values[name] = kwargs.pop(name)
            elif factory is not MISSING:
                values[name] = factory()  # type: ignore[operator]
            elif default is not MISSING:
                values[name] = default
            else:
                missing.append(name)
        if missing:
            raise TypeError(f"{b.qualname} missing {len(missing)} required argument{'s' if len(missing) > 1 else ''}: "
                            + ", ".join([repr(n) for n in missing]))
        if kwargs:
            raise TypeError(f"{b.qualname} got an unexpected keyword argument {next(iter(kwargs))!r}")
    if b.post_init:
        self.__post_init__()  # type: ignore[attr-defined]


def _compile_init(cls: type):  # type: ignore[no-untyped-def]
    """The `__init__` dataclasses would write, compiled: the same behaviour as `_init`'s, and as fast as a
    dataclass's."""
    found: dict[str, Field] = cls.__record_fields__  # type: ignore[attr-defined]
    frozen = cls.__record_frozen__  # type: ignore[attr-defined]
    names: dict[str, object] = {"__record_missing__": MISSING, "__record_setattr__": object.__setattr__}
    positional: list[str] = []
    keyword: list[str] = []
    lines: list[str] = []
    for name, f in found.items():
        if f.default_factory is not MISSING:
            names[f"__record_factory_{name}__"] = f.default_factory
            param = f"{name}=__record_missing__"
            value = f"__record_factory_{name}__() if {name} is __record_missing__ else {name}"
        elif f.default is not MISSING:
            names[f"__record_default_{name}__"] = f.default
            param = f"{name}=__record_default_{name}__"
            value = name
        else:
            param = value = name
        (keyword if f.kw_only else positional).append(param)
        lines.append(f"    __record_setattr__(self, {name!r}, {value})" if frozen else f"    self.{name} = {value}")
    if any("__post_init__" in c.__dict__ for c in cls.__mro__):
        lines.append("    self.__post_init__()")
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({params}):\n" + ("\n".join(lines) or "    pass") + "\n"
    exec(source, names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    return init
