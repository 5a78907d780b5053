"""A record behaves as the frozen, slotted dataclass it replaces: the same declarations
give the same construction, text, equality, hash, order, copies and pickles."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfpolicy import records
from tfpolicy.records import FrozenRecordError, Record, asdict, field, fields, replace


def record_classes() -> Any:
    class AsRecord:
        class Seat(Record, order=True):
            node: str
            gpus: tuple[str, ...] = ()
            note: str = field(default="", compare=False)
            tags: dict[str, str] = field(default_factory=dict, hash=False)
            size: int = field(init=False, default=0)
            LIMIT: ClassVar[int] = 8

            def __post_init__(self) -> None:
                object.__setattr__(self, "size", len(self.gpus))

        class Pair(Record):
            left: Any
            right: Any = None

    return AsRecord


class AsDataclass:
    @dataclasses.dataclass(frozen=True, slots=True, order=True)
    class Seat:
        node: str
        gpus: tuple[str, ...] = ()
        note: str = dataclasses.field(default="", compare=False)
        tags: dict[str, str] = dataclasses.field(default_factory=dict, hash=False)
        size: int = dataclasses.field(init=False, default=0)
        LIMIT: ClassVar[int] = 8

        def __post_init__(self) -> None:
            object.__setattr__(self, "size", len(self.gpus))

    @dataclasses.dataclass(frozen=True, slots=True)
    class Pair:
        left: Any
        right: Any = None


# Two tiers of one declaration: methods compiled from the first call, and the generic
# methods a record answers its first calls with (never compiled while the tests run).
COMPILED, GENERIC = record_classes(), record_classes()
for _tier, _name in ((COMPILED, "COMPILED"), (GENERIC, "GENERIC")):
    for _cls in (_tier.Seat, _tier.Pair):
        _cls.__qualname__ = f"{_name}.{_cls.__name__}"  # where pickle finds it
        if _tier is COMPILED:
            records._build(_cls)
TIERS = pytest.mark.parametrize("tier", [COMPILED, GENERIC], ids=["compiled", "generic"])


@pytest.fixture(autouse=True)
def _generic_stays_generic(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(records, "COMPILE_AFTER", 10**9)
    yield
    assert GENERIC.Seat.__dict__["__init__"].__code__.co_name == "first_calls"


def shown(item: object) -> str:
    """An object's text without its class's qualified name, which differs by side."""
    name, _, rest = repr(item).partition("(")
    return f"{name.rpartition('.')[2]}({rest}"

def orders(a: Any, b: Any) -> list[object]:
    """The four comparisons, or the error each raises (dicts do not order)."""
    got: list[object] = []
    for compare in (lambda: a < b, lambda: a <= b, lambda: a > b, lambda: a >= b):
        try:
            got.append(compare())
        except TypeError as error:
            got.append(type(error))
    return got


names = st.text(alphabet="abcxyz-", max_size=4)
seats = st.tuples(names, st.lists(names, max_size=3).map(tuple), names,
                  st.dictionaries(names, names, max_size=2))


def both(tier: Any, values: tuple[str, tuple[str, ...], str, dict[str, str]]) -> tuple[Any, Any]:
    node, gpus, note, tags = values
    return (tier.Seat(node, gpus, note=note, tags=dict(tags)),
            AsDataclass.Seat(node, gpus, note=note, tags=dict(tags)))


@TIERS
@settings(max_examples=300, derandomize=True)
@given(a=seats, b=seats)
def test_a_record_compares_orders_and_prints_as_its_dataclass(tier: Any, a: Any, b: Any) -> None:
    (ra, da), (rb, db) = both(tier, a), both(tier, b)
    assert shown(ra) == shown(da)
    assert (ra == rb) == (da == db)
    assert orders(ra, rb) == orders(da, db)
    if not a[3] and not b[3]:  # a dict field is left out of the hash, not out of equality
        assert (hash(ra) == hash(rb)) == (hash(da) == hash(db))
    assert ra.size == da.size == len(a[1])
    assert asdict(ra) == dataclasses.asdict(da)
    assert [f.name for f in fields(ra)] == [f.name for f in dataclasses.fields(da)]
    assert type(ra).__match_args__ == type(da).__match_args__


@TIERS
@settings(max_examples=100, derandomize=True)
@given(a=seats, node=names)
def test_a_copy_changed_pickled_or_copied_is_the_dataclass_one(tier: Any, a: Any,
                                                                node: str) -> None:
    ra, da = both(tier, a)
    assert shown(replace(ra, node=node)) == shown(dataclasses.replace(da, node=node))
    for item in (ra, da):
        assert pickle.loads(pickle.dumps(item)) == item
        assert copy.deepcopy(item) == item and copy.copy(item) == item


@TIERS
def test_construction_refuses_what_a_dataclass_refuses(tier: Any) -> None:
    for side in (tier, AsDataclass):
        with pytest.raises(TypeError):
            side.Seat()  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            side.Seat("n", (), "", {}, 3)  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            side.Pair(1, 2, right=3)  # type: ignore[misc]
    with pytest.raises(ValueError, match="init=False"):
        replace(tier.Seat("n"), size=3)


@TIERS
def test_a_record_is_frozen_and_slotted(tier: Any) -> None:
    seat = tier.Seat("n", ("a",))
    with pytest.raises(FrozenRecordError):
        seat.node = "m"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del seat.node  # type: ignore[misc]
    assert not hasattr(seat, "__dict__")
    assert tier.Seat.LIMIT == 8 and "LIMIT" not in tier.Seat.__slots__
    assert tier.Seat("n").tags is not tier.Seat("n").tags  # one dict each


@TIERS
def test_records_compare_only_with_their_own_class(tier: Any) -> None:
    assert tier.Pair(1, 2) != (1, 2)
    assert tier.Pair(1, 2) != AsDataclass.Pair(1, 2)
    with pytest.raises(TypeError):
        _ = tier.Seat("a") < tier.Pair(1)


def test_a_class_is_compiled_after_its_first_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    class Late(Record):
        value: int

    monkeypatch.setattr(records, "COMPILE_AFTER", 3)
    assert repr(Late(3)) == ("test_a_class_is_compiled_after_its_first_calls.<locals>"
                             ".Late(value=3)")
    assert Late.__dict__["__init__"].__code__.co_name == "first_calls"
    assert Late(3) == Late(3)  # the fourth call and beyond: compiled
    for method in ("__init__", "__repr__", "__eq__", "__hash__"):
        assert Late.__dict__[method].__code__.co_filename.startswith("<record ")
    assert Late(3) == Late(3) and hash(Late(3)) == hash(Late(3)) and Late(3) != Late(4)


def test_a_class_keeps_the_methods_it_writes_itself() -> None:
    class Own(Record):
        value: int

        def __repr__(self) -> str:
            return "own"

    assert repr(Own(1)) == "own" and Own(1) == Own(1)


def test_a_default_before_a_required_field_is_refused() -> None:
    with pytest.raises(TypeError, match="non-default field 'b'"):
        class Bad(Record):
            a: int = 0
            b: int  # type: ignore[misc]


def test_the_module_defines_no_dataclass() -> None:
    assert "dataclasses" not in vars(records)
