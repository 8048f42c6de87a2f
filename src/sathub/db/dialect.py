"""What SQL differs between SQLite and PostgreSQL, written once for both interfaces: the INSERT
that offers ON CONFLICT, an INSERT of many rows in one statement text, inserts that skip existing
rows, and new ids."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

# The largest value an INTEGER column or parameter holds on PostgreSQL (SQLite's hold 64 bits): an
# integer from a request beyond it is answered as one no row has, never sent to the database.
MAX_INTEGER = 2**31 - 1


def insert_for(dialect_name: str):
    """The dialect's INSERT, which offers ON CONFLICT DO NOTHING / DO UPDATE (SQLite, PostgreSQL);
    by the dialect's name, so that statements can be built once per dialect."""
    return postgresql.insert if dialect_name == "postgresql" else sqlite.insert


def insert_given(dialect_name: str, table: sa.Table, columns: tuple[str, ...]):
    """INSERT of rows given as parameters (as_given): on SQLite a VALUES row per parameter set
    (executemany); on PostgreSQL, one array parameter per column, unnested. A statement of one
    text, whatever the number of rows, is one psycopg converts to $n placeholders once and the
    server plans once (it prepares it): the text of a VALUES list grows with every row, and
    converting it was the group-commit writer's largest item in a write burst's profile."""
    statement = insert_for(dialect_name)(table)
    if dialect_name != "postgresql":
        return statement
    # Text arrays, not VARCHAR(n): a cast to VARCHAR(n) would cut a longer value where the column refuses it.
    arrays = [
        sa.bindparam(name, type_=sa.ARRAY(sa.Text if isinstance(table.c[name].type, sa.String) else table.c[name].type))
        for name in columns
    ]
    rows = sa.func.unnest(*arrays).table_valued(*columns).render_derived(with_types=False)
    return statement.from_select(columns, sa.select(*(rows.c[name] for name in columns)))


def insert_as_is(conn: Connection, table: sa.Table, rows: list[dict]) -> None:
    """INSERT of many rows whose values the driver takes as they are (numbers, text, bytes: no
    date, which SQLAlchemy writes as text on SQLite), without SQLAlchemy's work for each row: the
    driver's executemany on SQLite, COPY on PostgreSQL (one statement: its statement triggers run
    once). 998 attachments: 9.7 -> 6.7 ms on SQLite; on PostgreSQL the arrays of insert_given
    took 13-15 ms of this process's CPU to write, COPY 6-8."""
    columns = tuple(rows[0])
    names = ", ".join(columns)
    values = list(map(itemgetter(*columns), rows)) if len(columns) > 1 else [(row[columns[0]],) for row in rows]
    if conn.dialect.name == "postgresql":
        psycopg_connection: Any = conn.connection.dbapi_connection
        with psycopg_connection.cursor() as cursor, cursor.copy(f"COPY {table.name} ({names}) FROM STDIN") as copy:
            for row in values:
                copy.write_row(row)
        return
    conn.exec_driver_sql(f"INSERT INTO {table.name} ({names}) VALUES ({', '.join('?' * len(columns))})", values)


def as_given(conn: Connection, rows: list[dict], columns: tuple[str, ...]) -> list[dict] | dict:
    """The parameters of an insert_given statement: the rows, or on PostgreSQL one array per column."""
    if conn.dialect.name != "postgresql":
        return rows
    return {name: [row[name] for row in rows] for name in columns}


def insert_ignoring_conflicts(conn: Connection, table: sa.Table, rows: list[dict]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING (another writer may have created the same row)."""
    conn.execute(insert_for(conn.dialect.name)(table).on_conflict_do_nothing(), rows)


def allocate_ids(conn: Connection, table: sa.Table, count: int, shadow: sa.Table | None = None) -> list[int]:
    """`count` new primary keys of `table`, increasing. Knowing the ids before inserting lets a
    batch be written with plain executemany (no RETURNING) and with its final thread columns.
    `shadow`: a table holding rows taken out of `table` that may come back with their ids."""
    if count == 0:
        return []
    if conn.dialect.name == "postgresql":
        return sorted(
            conn.scalars(sa.select(sa.func.nextval(_sequence(table))).select_from(sa.func.generate_series(1, count)))
        )
    # SQLite has one writer at a time (it holds the write lock), so max(id) + 1 is free.
    first = conn.execute(sa.select(_next_free(table, shadow))).scalar_one()
    return list(range(first, first + count))


def new_id(dialect_name: str, table: sa.Table, *, per_row: bool = False, shadow: sa.Table | None = None):
    """allocate_ids for one row, inside a statement: the sequence's next value on PostgreSQL;
    max(id) + 1 on SQLite. With `per_row` (an ON CONFLICT DO UPDATE that gives each replaced row
    a new id) the SQLite expression is correlated with the updated row, so that it is computed
    again for each row of the statement: an uncorrelated one is computed once and would give two
    replacements one id. `shadow` as for allocate_ids."""
    if dialect_name == "postgresql":
        return sa.func.nextval(_sequence(table))
    if per_row:
        return sa.literal_column(
            f"(SELECT max(newest.id) + 1 FROM {table.name} AS newest WHERE newest.id >= {table.name}.id)"
        )
    return sa.select(_next_free(table, shadow)).scalar_subquery()


def _next_free(table: sa.Table, shadow: sa.Table | None):
    """max(id) + 1 of `table`, and of `shadow` when given."""
    newest: sa.ColumnElement = sa.func.coalesce(sa.select(sa.func.max(table.c.id)).scalar_subquery(), 0)
    if shadow is not None:
        newest = sa.func.max(newest, sa.func.coalesce(sa.select(sa.func.max(shadow.c.id)).scalar_subquery(), 0))
    return newest + 1


def _sequence(table: sa.Table):
    return sa.func.pg_get_serial_sequence(table.name, "id")
