"""Frozen records: the value classes of every layer, cheap to define.

A record is declared like a frozen, slotted dataclass and behaves as one:

    class Seat(Record):
        node: str
        gpus: tuple[str, ...] = ()

gives ``__init__`` (positional or keyword, defaults, ``field(default_factory=…)``,
``__post_init__``), ``__repr__``, ``__eq__`` and ``__hash__`` over the compared fields,
the four orderings with ``class X(Record, order=True)``, ``__match_args__``, slots,
no assignment after construction, and pickling (the process pool sends records between
workers). ``replace``, ``fields`` and ``asdict`` work as their ``dataclasses`` namesakes.

Why not ``dataclasses`` itself: a dataclass compiles six methods and, with slots, builds
its class twice when its module is imported, and the start of a small ``check`` defines
dozens of them (a whole ``check`` of one file costs more CPU with dataclasses: the
figures are in docs/speed.md, "Records against the standard library"). Nor
``typing.NamedTuple``: a record would be a tuple (equal to a plain tuple, iterable,
indexable), and could have no field set after ``__init__`` nor a default factory.

A record builds nothing when it is defined. Its first calls are answered by generic
methods that read the fields at each call; after ``COMPILE_AFTER`` calls its own methods
are compiled, together, and take their place. A small run compiles nothing, a bulk run
compiles each busy class once. ``dataclasses.replace`` does not take a record (it is no
dataclass): ``replace`` below is its twin.
"""

from __future__ import annotations

from tfpolicy.records_generic import GENERIC, MISSING

TYPE_CHECKING = False  # typing's own, without importing typing at every start
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

    R = TypeVar("R", bound="Record")
    T = TypeVar("T")


_FACTORY: Any = type("_Factory", (), {"__slots__": (), "__repr__": lambda _: "<factory>"})()


class FrozenRecordError(AttributeError):
    """An assignment to a record after it was made."""


class Field:
    """One field of a record, as ``dataclasses.Field`` describes one."""

    __slots__ = ("compare", "default", "default_factory", "hash", "init", "name", "repr")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool,
                 compare: bool, hash: bool | None) -> None:
        self.name = ""
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare, self.hash = init, repr, compare, hash

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"

    @property
    def required(self) -> bool:
        """Whether ``__init__`` must be given it: taken by init, no default of any kind."""
        return self.init and self.default is MISSING and self.default_factory is MISSING

    @property
    def hashed(self) -> bool:
        """Whether it is in ``__hash__``: as compared, unless ``hash=`` says otherwise."""
        return self.compare if self.hash is None else self.hash


if TYPE_CHECKING:
    @overload
    def field(*, default: T, init: bool = ..., repr: bool = ..., compare: bool = ...,
              hash: bool | None = ...) -> T: ...

    @overload
    def field(*, default_factory: Callable[[], T], init: bool = ..., repr: bool = ...,
              compare: bool = ..., hash: bool | None = ...) -> T: ...

    @overload
    def field(*, init: bool = ..., repr: bool = ..., compare: bool = ...,
              hash: bool | None = ...) -> Any: ...

    def field(**options: Any) -> Any: ...

else:
    def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True,
              compare=True, hash=None):
        """A field's options, as ``dataclasses.field`` takes them."""
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        return Field(default, default_factory, init, repr, compare, hash)

    def dataclass_transform(**_: object):
        return lambda cls: cls


def _is_classvar(annotation: object) -> bool:
    """A ``ClassVar[…]`` annotation, written as text (``from __future__ import
    annotations``) or as the object itself."""
    shown = annotation if isinstance(annotation, str) else repr(annotation)
    return shown.startswith(("ClassVar", "typing.ClassVar"))


def _declare(ns: dict[str, Any]) -> tuple[Field, ...]:
    """The fields a class body declares, its defaults taken out of the namespace (a slot
    and a class attribute of one name cannot live together)."""
    declared = []
    for name, annotation in ns.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        value = ns.pop(name, MISSING)
        spec = value if isinstance(value, Field) else Field(value, MISSING, True, True, True,
                                                            None)
        spec.name = name
        declared.append(spec)
    return tuple(declared)


def _order_check(specs: tuple[Field, ...], name: str) -> None:
    seen_default = False
    for spec in specs:
        if not spec.init:
            continue
        if seen_default and spec.required:
            raise TypeError(f"{name}: non-default field {spec.name!r} follows a default one")
        seen_default = seen_default or not spec.required


_LAZY = ("__init__", "__repr__", "__eq__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class RecordMeta(type):
    """Makes each class body a record: slots for its fields, methods on first use."""

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any],
                order: bool = False) -> RecordMeta:
        specs = _declare(ns)
        _order_check(specs, name)
        ns["__slots__"] = tuple(s.name for s in specs)
        ns["__record_fields__"] = specs
        ns["__match_args__"] = tuple(s.name for s in specs if s.init)
        wanted = _LAZY if order else _LAZY[:4]
        lazy = tuple(m for m in wanted if m not in ns)
        ns["__record_lazy__"] = lazy
        for method in lazy:
            ns[method] = _stub(method)
        ns.setdefault("__setattr__", _frozen)
        ns.setdefault("__delattr__", _frozen)
        ns.setdefault("__getstate__", _getstate)
        ns.setdefault("__setstate__", _setstate)
        return super().__new__(mcs, name, bases, ns)


# Calls of a class's methods answered by the generic versions below before the class's
# own are compiled: a small run makes a few of each record and compiles nothing, a bulk
# run compiles each class it uses many times once, after its first calls.
COMPILE_AFTER = 32
_calls: dict[type, int] = {}


def _stub(method: str) -> Callable[..., Any]:
    generic = GENERIC[method]

    def first_calls(self: Any, *args: Any, **kwargs: Any) -> Any:
        cls = type(self)
        count = _calls[cls] = _calls.get(cls, 0) + 1
        if count > COMPILE_AFTER:
            _build(cls)
            return getattr(cls, method)(self, *args, **kwargs)
        return generic(self, *args, **kwargs)

    first_calls.__name__ = first_calls.__qualname__ = method
    return first_calls


def _frozen(self: object, name: str, *_: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _getstate(self: Record) -> tuple[Any, ...]:
    return tuple(getattr(self, s.name, MISSING) for s in type(self).__record_fields__)


def _setstate(self: Record, state: tuple[Any, ...]) -> None:
    for spec, value in zip(type(self).__record_fields__, state, strict=True):
        if value is not MISSING:
            object.__setattr__(self, spec.name, value)


class Record(metaclass=RecordMeta):
    """The base of every record (see the module's text)."""

    __slots__ = ()
    __record_fields__: ClassVar[tuple[Field, ...]]
    __record_lazy__: ClassVar[tuple[str, ...]]


def _build(cls: type[Record]) -> None:
    """Compile the class's methods in one go and put them in place of the stubs."""
    specs = cls.__record_fields__
    scope: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _FACTORY,
                             "MISSING": MISSING}
    source = "\n".join(_sources(cls, specs, scope))
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), scope)
    for method in cls.__record_lazy__:
        setattr(cls, method, scope[method])
    _calls.pop(cls, None)


def _sources(cls: type[Record], specs: tuple[Field, ...],
             scope: dict[str, Any]) -> Iterator[str]:
    wanted = cls.__record_lazy__
    if "__init__" in wanted:
        yield _init_source(cls, specs, scope)
    if "__repr__" in wanted:
        shown = ", ".join(f"{s.name}={{self.{s.name}!r}}" for s in specs if s.repr)
        yield f"def __repr__(self):\n return f'{{type(self).__qualname__}}({shown})'"
    mine = "(" + "".join(f"self.{s.name}," for s in specs if s.compare) + ")"
    theirs = mine.replace("self.", "other.")
    for method, op in (("__eq__", "=="), ("__lt__", "<"), ("__le__", "<="), ("__gt__", ">"),
                       ("__ge__", ">=")):
        if method in wanted:
            yield (f"def {method}(self, other):\n if other.__class__ is not self.__class__:\n"
                   f"  return NotImplemented\n return {mine} {op} {theirs}")
    if "__hash__" in wanted:
        hashed = "(" + "".join(f"self.{s.name}," for s in specs if s.hashed) + ")"
        yield f"def __hash__(self):\n return hash({hashed})"


def _init_source(cls: type, specs: tuple[Field, ...], scope: dict[str, Any]) -> str:
    params, body = [], []
    for spec in specs:
        default, factory = f"_default_{spec.name}", f"_factory_{spec.name}"
        scope[default], scope[factory] = spec.default, spec.default_factory
        if spec.init:
            if spec.default_factory is not MISSING:
                params.append(f"{spec.name}=_FACTORY")
                body.append(f" _set(self, {spec.name!r}, {factory}() "
                            f"if {spec.name} is _FACTORY else {spec.name})")
                continue
            params.append(spec.name if spec.default is MISSING else f"{spec.name}={default}")
            body.append(f" _set(self, {spec.name!r}, {spec.name})")
        elif spec.default_factory is not MISSING:
            body.append(f" _set(self, {spec.name!r}, {factory}())")
        elif spec.default is not MISSING:
            body.append(f" _set(self, {spec.name!r}, {default})")
    if hasattr(cls, "__post_init__"):
        body.append(" self.__post_init__()")
    return f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or " pass")


def fields(item: Record | type[Record]) -> tuple[Field, ...]:
    """The record's fields in their order, as ``dataclasses.fields`` gives them."""
    return item.__record_fields__


def replace(item: R, /, **changes: Any) -> R:
    """A copy of the record with the given fields changed (``dataclasses.replace``)."""
    for spec in fields(item):
        if spec.init and spec.name not in changes:
            changes[spec.name] = getattr(item, spec.name)
        elif not spec.init and spec.name in changes:
            raise ValueError(f"field {spec.name} is declared with init=False, it cannot be "
                             "specified with replace()")
    return type(item)(**changes)


def asdict(item: Record) -> dict[str, Any]:
    """The record's fields by name, nested records, lists, tuples and dicts converted
    as ``dataclasses.asdict`` converts them."""
    return {spec.name: _plain(getattr(item, spec.name)) for spec in fields(item)}


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return asdict(value)
    if isinstance(value, (list, tuple)):
        items = [_plain(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return type(value)((_plain(k), _plain(v)) for k, v in value.items())
    return value
