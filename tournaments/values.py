"""Frozen dataclasses made by the ten thousand (pure Python: the scoring imports it too).

A frozen dataclass's ``__init__`` writes each field with an ``object.__setattr__`` call; the
standings of a 10,000-entry stage make 10,000 rows and 10,000 lines per answer that way (a
row of 11 fields: 16 ms per 10,000, against 4 ms with :func:`frozen`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["frozen"]

T = TypeVar("T")
_new = object.__new__
_set = object.__setattr__
_checked: set[type] = set()


def frozen(cls: type[T], values: dict[str, Any]) -> T:
    """An instance of the frozen dataclass ``cls`` whose fields are ``values``: every field, in
    the class's order (its ``repr`` and ``vars`` read them so), written as its ``__dict__`` at
    once. Equal to ``cls(**values)`` for a class whose ``__init__`` only stores its fields
    (no ``__post_init__``, no slots), which is checked once per class.

    >>> @dataclasses.dataclass(frozen=True)
    ... class Point:
    ...     x: int
    ...     y: int
    >>> frozen(Point, {"x": 1, "y": 2}) == Point(1, 2)
    True
    """
    if cls not in _checked:
        _check(cls, values)
    made = _new(cls)
    _set(made, "__dict__", values)
    return made


def _check(cls: type, values: dict[str, Any]) -> None:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}'s __init__ does more than store its fields")
    names = [field.name for field in dataclasses.fields(cls)]
    if list(values) != names:
        raise TypeError(f"{cls.__name__} has the fields {names}, not {list(values)}")
    _checked.add(cls)
