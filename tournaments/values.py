"""Frozen dataclasses made by the ten thousand (pure Python: the scoring imports it too).

A frozen dataclass's ``__init__`` writes each field with an ``object.__setattr__`` call; the
standings of a 10,000-entry stage make 10,000 rows and 10,000 lines per answer that way (a
row of 11 fields: 16 ms per 10,000, against 4 ms with :func:`frozen`).
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, TypeVar

__all__ = ["frozen"]

T = TypeVar("T")
_new = object.__new__
_set = object.__setattr__
_checked: set[type] = set()
_post_init: set[type] = set()  # the checked classes that have a __post_init__


def frozen(cls: type[T], values: dict[str, Any]) -> T:
    """``cls(**values)`` for the frozen dataclass ``cls``, ``values`` every field in the
    class's order (its ``repr`` and ``vars`` read them so): written as its ``__dict__`` at once,
    then its ``__post_init__`` (a validation) if it has one. Only for a class whose
    ``__init__`` does nothing else (no slots, no ``InitVar``), which is checked at the first
    call for a class, with the fields' names and order (the callers write them literally).

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
    if cls in _post_init:
        made.__post_init__()  # type: ignore[attr-defined]
    return made


def _check(cls: type, values: dict[str, Any]) -> None:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    names = [field.name for field in dataclasses.fields(cls)]
    # Its __init__ takes its fields and nothing else (an InitVar), and stores them all.
    taken = list(inspect.signature(cls).parameters)
    if hasattr(cls, "__slots__") or taken != names:
        raise TypeError(f"{cls.__name__}'s __init__ does more than store its fields")
    if list(values) != names:
        raise TypeError(f"{cls.__name__} has the fields {names}, not {list(values)}")
    if hasattr(cls, "__post_init__"):
        _post_init.add(cls)
    _checked.add(cls)
