"""The generic methods a record answers its first calls with (tfpolicy/records.py).

Each reads the class's fields at every call, so none needs compiling; they behave as
the methods ``records`` compiles for a class once it is called often, which the tests
of ``tests/rewrite/test_records.py`` hold against dataclasses for both.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # a field without a default


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    """``__init__`` read off the fields at each call, as the compiled one behaves."""
    cls = type(self)
    specs = cls.__record_fields__
    named = [spec.name for spec in specs if spec.init]
    if len(args) > len(named):
        raise TypeError(f"{cls.__qualname__}.__init__() takes {len(named) + 1} positional "
                        f"arguments but {len(args) + 1} were given")
    given = dict(zip(named, args, strict=False))
    for name, value in kwargs.items():
        if name not in named:
            raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword "
                            f"argument {name!r}")
        if name in given:
            raise TypeError(f"{cls.__qualname__}.__init__() got multiple values for "
                            f"argument {name!r}")
        given[name] = value
    missing = [spec.name for spec in specs if spec.required and spec.name not in given]
    if missing:
        raise TypeError(f"{cls.__qualname__}.__init__() missing {len(missing)} required "
                        f"positional argument{'s' if len(missing) > 1 else ''}: "
                        + " and ".join(repr(name) for name in missing))
    for spec in specs:
        if spec.init and spec.name in given:
            object.__setattr__(self, spec.name, given[spec.name])
        elif spec.default_factory is not MISSING:
            object.__setattr__(self, spec.name, spec.default_factory())
        elif spec.default is not MISSING:
            object.__setattr__(self, spec.name, spec.default)
    if hasattr(cls, "__post_init__"):
        self.__post_init__()


def _repr(self: Any) -> str:
    shown = ", ".join(f"{spec.name}={getattr(self, spec.name)!r}"
                      for spec in type(self).__record_fields__ if spec.repr)
    return f"{type(self).__qualname__}({shown})"


def _compared(item: Any) -> tuple[Any, ...]:
    return tuple(getattr(item, spec.name) for spec in type(item).__record_fields__
                 if spec.compare)


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, spec.name) for spec in type(self).__record_fields__
                      if spec.hashed))


def _comparison(test: Callable[[tuple[Any, ...], tuple[Any, ...]], bool]) -> Callable[..., Any]:
    def compare(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return test(_compared(self), _compared(other))

    return compare


GENERIC: dict[str, Callable[..., Any]] = {
    "__init__": _init, "__repr__": _repr, "__hash__": _hash,
    "__eq__": _comparison(lambda a, b: a == b), "__lt__": _comparison(lambda a, b: a < b),
    "__le__": _comparison(lambda a, b: a <= b), "__gt__": _comparison(lambda a, b: a > b),
    "__ge__": _comparison(lambda a, b: a >= b),
}
