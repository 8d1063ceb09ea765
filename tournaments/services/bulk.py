"""Writing a few columns of many rows in one statement per batch, in plain SQL.

Why: Django's ``bulk_update`` builds a ``Case(When(...))`` expression per row and resolves each
one: at the end of a 10,000-entry event that was seconds of Python for the final places and the
ratings (``docs/performance.md``). The statement here is the one ``bulk_update`` sends
(``UPDATE ... SET column = CASE pk WHEN ... THEN ... END WHERE pk IN (...)``), written directly;
every value goes through its field's own ``get_db_prep_save`` and is cast to the column's type
(``Field.db_type``), so a row written here is what the ORM would write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection
from django.db.models import Model

#: Rows per UPDATE.
BATCH = 1000


def rows_update(
    model: type[Model],
    fields: Sequence[str],
    rows: Mapping[Any, Sequence[Any]],
    *,
    batch_size: int = BATCH,
) -> int:
    """Set ``fields`` of each row of ``model`` whose primary key is a key of ``rows`` to the
    values there (in ``fields``' order); returns how many rows changed. No signals, no
    ``auto_now``: as ``QuerySet.bulk_update``."""
    meta, quote = model._meta, connection.ops.quote_name
    concrete = {field.name: field for field in meta.concrete_fields}
    columns = [concrete[name] for name in fields]
    pk = meta.pk
    assert pk is not None and pk.column is not None
    keys = list(rows)
    changed = 0
    with connection.cursor() as cursor:
        for start in range(0, len(keys), batch_size):
            chunk = keys[start : start + batch_size]
            sets, params = [], []
            for index, field in enumerate(columns):
                cast = field.db_type(connection)
                whens = " ".join([f"WHEN %s THEN CAST(%s AS {cast})"] * len(chunk))
                sets.append(f"{quote(field.column)} = CASE {quote(pk.column)} {whens} END")
                for key in chunk:
                    params.append(pk.get_db_prep_save(key, connection))
                    params.append(field.get_db_prep_save(rows[key][index], connection))
            marks = ", ".join(["%s"] * len(chunk))
            cursor.execute(
                f"UPDATE {quote(meta.db_table)} SET {', '.join(sets)} "
                f"WHERE {quote(pk.column)} IN ({marks})",
                [*params, *(pk.get_db_prep_save(key, connection) for key in chunk)],
            )
            changed += cursor.rowcount
    return changed
