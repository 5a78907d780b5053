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


def both(values: tuple[str, tuple[str, ...], str, dict[str, str]]) -> tuple[Any, Any]:
    node, gpus, note, tags = values
    return (AsRecord.Seat(node, gpus, note=note, tags=dict(tags)),
            AsDataclass.Seat(node, gpus, note=note, tags=dict(tags)))


@settings(max_examples=300, derandomize=True)
@given(seats, seats)
def test_a_record_compares_orders_and_prints_as_its_dataclass(a: Any, b: Any) -> None:
    (ra, da), (rb, db) = both(a), both(b)
    assert shown(ra) == shown(da)
    assert (ra == rb) == (da == db)
    assert orders(ra, rb) == orders(da, db)
    if not a[3] and not b[3]:  # a dict field is left out of the hash, not out of equality
        assert (hash(ra) == hash(rb)) == (hash(da) == hash(db))
    assert ra.size == da.size == len(a[1])
    assert asdict(ra) == dataclasses.asdict(da)
    assert [f.name for f in fields(ra)] == [f.name for f in dataclasses.fields(da)]
    assert type(ra).__match_args__ == type(da).__match_args__


@settings(max_examples=100, derandomize=True)
@given(seats, names)
def test_a_copy_changed_pickled_or_copied_is_the_dataclass_one(a: Any, node: str) -> None:
    ra, da = both(a)
    assert shown(replace(ra, node=node)) == shown(dataclasses.replace(da, node=node))
    for item in (ra, da):
        assert pickle.loads(pickle.dumps(item)) == item
        assert copy.deepcopy(item) == item and copy.copy(item) == item


def test_construction_refuses_what_a_dataclass_refuses() -> None:
    for side in (AsRecord, AsDataclass):
        with pytest.raises(TypeError):
            side.Seat()  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            side.Seat("n", (), "", {}, 3)  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            side.Pair(1, 2, right=3)  # type: ignore[misc]
    with pytest.raises(ValueError, match="init=False"):
        replace(AsRecord.Seat("n"), size=3)


def test_a_record_is_frozen_and_slotted() -> None:
    seat = AsRecord.Seat("n", ("a",))
    with pytest.raises(FrozenRecordError):
        seat.node = "m"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del seat.node  # type: ignore[misc]
    assert not hasattr(seat, "__dict__")
    assert AsRecord.Seat.LIMIT == 8 and "LIMIT" not in AsRecord.Seat.__slots__
    assert AsRecord.Seat("n").tags is not AsRecord.Seat("n").tags  # one dict each


def test_records_compare_only_with_their_own_class() -> None:
    assert AsRecord.Pair(1, 2) != (1, 2)
    assert AsRecord.Pair(1, 2) != AsDataclass.Pair(1, 2)
    with pytest.raises(TypeError):
        _ = AsRecord.Seat("a") < AsRecord.Pair(1)  # type: ignore[operator]


def test_nothing_is_compiled_until_a_method_is_called() -> None:
    class Late(Record):
        value: int

    assert Late.__init__.__name__ == "__init__" and Late.__dict__["__init__"].__code__ \
        .co_name == "first_call"
    assert repr(Late(3)) == "test_nothing_is_compiled_until_a_method_is_called.<locals>" \
        ".Late(value=3)"
    assert Late.__dict__["__init__"].__code__.co_filename.startswith("<record ")
    assert Late(3) == Late(3) and hash(Late(3)) == hash(Late(3))


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
