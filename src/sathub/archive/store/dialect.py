"""The archive's writes whose SQL differs between SQLite and PostgreSQL: new ids, and inserts that
skip existing rows (with the dialect's INSERT that sathub.db picks for both interfaces)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db import dialect_insert


def allocate_ids(conn: Connection, table: sa.Table, count: int) -> list[int]:
    """`count` new primary keys of `table`, increasing. Knowing the ids before inserting lets a
    batch be written with plain executemany (no RETURNING) and with its final thread columns."""
    if count == 0:
        return []
    if conn.dialect.name == "postgresql":
        sequence = sa.func.pg_get_serial_sequence(table.name, "id")
        return sorted(conn.scalars(sa.select(sa.func.nextval(sequence)).select_from(
            sa.func.generate_series(1, count))))
    # SQLite has one writer at a time; a concurrent commit makes this transaction fail and retry.
    first = (conn.scalar(sa.select(sa.func.max(table.c.id))) or 0) + 1
    return list(range(first, first + count))


def insert_ignoring_conflicts(conn: Connection, table: sa.Table, rows: list[dict]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING (another import may have created the same row)."""
    conn.execute(dialect_insert(conn)(table).on_conflict_do_nothing(), rows)
