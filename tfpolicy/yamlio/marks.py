"""Where a rapidyaml view sits in a document's text: its address, and libyaml-like marks.

rapidyaml's scalars are views into the buffer it parsed; the offset of a
view from the buffer's start is the scalar's place in the text (in
characters, once the UTF-8 before it is counted). ``Mark`` is the part of
libyaml's mark the splice reads, its line and column counted only when read.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

from tfpolicy.yamlio.fast import Read

_T = TypeVar("_T")


class once(Generic[_T]):  # lower case: a decorator, as property is
    """A property computed on first read and then kept as a plain instance attribute.

    ``functools.cached_property`` does the same but takes a lock on every
    first read (Python 3.11), which cost more than the value on these nodes.
    """

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func, self.name = func, func.__name__

    @overload
    def __get__(self, obj: None, owner: type) -> once[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> _T: ...
    def __get__(self, obj: object | None, owner: type) -> once[_T] | _T:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


class NeedsLibyaml(ValueError):
    """This position is not known from rapidyaml's tree: read the document with libyaml."""


class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int),
                ("ndim", ctypes.c_int), ("format", ctypes.c_char_p),
                ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_release = ctypes.pythonapi.PyBuffer_Release
_release.argtypes = [ctypes.POINTER(_PyBuffer)]


def _address(view: Any) -> int:
    """Where a buffer's bytes are in memory (the ``ryml`` views expose no offset)."""
    info = _PyBuffer()
    _get_buffer(view, ctypes.byref(info), 0)
    try:
        return int(info.buf or 0)
    finally:
        _release(ctypes.byref(info))


class Mark:
    """The part of ``yaml.Mark`` the splice reads: index, line and column (0-based).

    The line and column are counted on first read: the splice mostly asks
    for the index alone.
    """

    __slots__ = ("_column", "_line", "_text", "index")

    def __init__(self, text: str, index: int) -> None:
        self._text, self.index = text, index
        self._line = self._column = -1

    @property
    def line(self) -> int:
        if self._line < 0:
            self._line = self._text.count("\n", 0, self.index)
        return self._line

    @property
    def column(self) -> int:
        if self._column < 0:
            self._column = self.index - (self._text.rfind("\n", 0, self.index) + 1)
        return self._column


class ReadText:
    """One read document: turns a view into an index of its text."""

    def __init__(self, read: Read) -> None:
        self.read = read
        self.text = read.text
        self.base = _address(memoryview(read.buffer))
        self.ascii = read.text.isascii()

    def index_of_view(self, view: Any) -> int:
        offset = _address(view) - self.base
        if not 0 <= offset <= len(self.read.buffer):
            raise NeedsLibyaml("a scalar rapidyaml rewrote outside the buffer")
        if self.ascii:
            return offset
        return len(self.read.source[:offset].decode("utf-8", "surrogatepass"))
