"""The statements of a live action in plain SQL: lock and read a game, append a log entry, store
the game. Everything else goes through the ORM.

Why: the ORM's own work per query (compiling the query, building the model) was most of an
action's CPU (``docs/performance.md``). These statements are built once per model and backend,
from the models' own metadata (table and column names), and every value goes through its
field's own conversion both ways
(``pre_save`` and ``get_db_prep_save`` on the way in; the backend's and the field's converters
on the way out): a row read or written here is what the ORM would read or write.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)


class _Statements:
    """A model's columns, converters and statement fragments on one database backend."""

    def __init__(self, model: type[Model]) -> None:
        meta, quote = model._meta, connection.ops.quote_name
        self.model = model
        self.fields: list[Field[Any, Any]] = list(meta.concrete_fields)
        self.by_name = {f.name: f for f in self.fields}
        self.attnames = [f.attname for f in self.fields]
        self.table = quote(meta.db_table)
        self.select = f"SELECT {', '.join(quote(f.column) for f in self.fields)} FROM {self.table}"
        self.for_update = " FOR UPDATE" if connection.features.has_select_for_update else ""
        self.converters = []
        for field in self.fields:
            col = field.get_col(meta.db_table)
            found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
            self.converters.append((col, found))
        pk = meta.pk
        assert pk is not None
        self.pk_column = quote(pk.column)
        self.inserted = [f for f in self.fields if f is not pk]
        columns = ", ".join(quote(f.column) for f in self.inserted)
        marks = ", ".join(["%s"] * len(self.inserted))
        self.insert = f"INSERT INTO {self.table} ({columns}) VALUES ({marks})"
        self.insert_plain = self.insert  # without RETURNING: for ``executemany``
        self.by_attname = {f.attname: f for f in self.fields}
        if connection.features.can_return_columns_from_insert:
            self.insert += f" RETURNING {self.pk_column}"

    def instance(self, row: tuple[Any, ...]) -> Model:
        values = []
        for raw, (col, converters) in zip(row, self.converters, strict=True):
            value = raw
            for convert in converters:
                value = convert(value, col, connection)
            values.append(value)
        return self.model.from_db(connection.alias, self.attnames, values)


@cache
def _statements(model: type[Model], vendor: str) -> _Statements:
    return _Statements(model)


def _for(model: type[Model]) -> _Statements:
    return _statements(model, connection.vendor)


def lock_one(model: type[M], where: str, params: list[Any], order: str = "") -> M | None:
    """``SELECT ... WHERE <where> [ORDER BY <order>] LIMIT 1 FOR UPDATE`` as a model instance,
    or None. ``where`` and ``order`` are SQL with ``%s`` placeholders, written by the caller."""
    s = _for(model)
    sql = f"{s.select} WHERE {where}"
    if order:
        sql += f" ORDER BY {order}"
    sql += f" LIMIT 1{s.for_update}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else s.instance(row)  # type: ignore[return-value]


def insert(obj: Model) -> None:
    """``INSERT`` of a new ``obj`` (auto primary key), as ``obj.save(force_insert=True)`` without
    the signals."""
    s = _for(type(obj))
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in s.inserted]
    with connection.cursor() as cursor:
        cursor.execute(s.insert, values)
        pk = (
            cursor.fetchone()[0]
            if connection.features.can_return_columns_from_insert
            else cursor.lastrowid
        )
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = connection.alias


def insert_many(model: type[Model], rows: list[dict[str, Any]], **same: Any) -> None:
    """``INSERT`` of new rows of ``model`` (auto primary key, not read back) in one
    ``executemany``: what ``bulk_create`` writes, without building and preparing a model per
    row. Each row is given by its fields' attribute names (``game_id``, not ``game``); ``same``
    holds the values every row shares (converted once), a time included (an ``auto_now_add``
    is the caller's to give)."""
    s = _for(model)
    db = connections[DEFAULT_DB_ALIAS]
    shared = {name: s.by_attname[name].get_db_prep_save(value, db) for name, value in same.items()}
    fields = [(f.attname, f.attname in shared, f) for f in s.inserted]
    params = [
        [shared[name] if fixed else f.get_db_prep_save(row[name], db) for name, fixed, f in fields]
        for row in rows
    ]
    with db.cursor() as cursor:
        cursor.executemany(s.insert_plain, params)


def update(obj: Model, fields: list[str]) -> None:
    """``UPDATE`` of ``fields`` of a stored ``obj``, as ``obj.save(update_fields=fields)``
    without the signals."""
    s = _for(type(obj))
    quote = connection.ops.quote_name
    chosen = [s.by_name[name] for name in fields]
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in chosen)
    values = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in chosen]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {s.table} SET {assignments} WHERE {s.pk_column} = %s", [*values, obj.pk]
        )
