"""SQL written once for both dialects (db/dialect.py), run on SQLite and PostgreSQL: the rows
each statement leaves are counted back with plain SELECTs."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from sathub.db import dialect

metadata = sa.MetaData()
things = sa.Table(
    "dialect_things",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(8), nullable=False, unique=True),
    sa.Column("size", sa.Integer, nullable=False),
)


@pytest.fixture
def conn(engine):
    """A connection with an empty `dialect_things` table, rolled back afterwards."""
    with engine.connect() as connection:
        transaction = connection.begin()
        metadata.create_all(connection)
        yield connection
        transaction.rollback()


def rows(conn) -> list[tuple]:
    return [tuple(row) for row in conn.execute(sa.select(things.c.name, things.c.size).order_by(things.c.name))]


def test_insert_given_writes_every_row_given_whatever_their_number(conn):
    columns = ("name", "size")
    statement = dialect.insert_given(conn.dialect.name, things, columns)
    for count in (1, 3):
        given = [{"name": f"{count}-{n}", "size": n} for n in range(count)]
        conn.execute(statement, dialect.as_given(conn, given, columns))
    assert rows(conn) == [("1-0", 0), ("3-0", 0), ("3-1", 1), ("3-2", 2)]


def test_a_text_longer_than_its_column_is_refused_not_cut(conn):
    """The arrays are text: the column's own limit refuses (PostgreSQL) or keeps (SQLite) a long
    value, never a cast that would shorten it unseen."""
    columns = ("name", "size")
    statement = dialect.insert_given(conn.dialect.name, things, columns)
    given = [{"name": "ten chars!", "size": 1}]
    if conn.dialect.name == "postgresql":
        with pytest.raises(sa.exc.DataError):
            conn.execute(statement, dialect.as_given(conn, given, columns))
    else:
        conn.execute(statement, dialect.as_given(conn, given, columns))
        assert rows(conn) == [("ten chars!", 1)]


def test_insert_ignoring_conflicts_keeps_the_first_row(conn):
    dialect.insert_ignoring_conflicts(conn, things, [{"name": "a", "size": 1}])
    dialect.insert_ignoring_conflicts(conn, things, [{"name": "a", "size": 2}, {"name": "b", "size": 3}])
    assert rows(conn) == [("a", 1), ("b", 3)]


def test_allocated_ids_are_new_increasing_and_usable(conn):
    dialect.insert_ignoring_conflicts(conn, things, [{"name": "first", "size": 0}])
    existing = conn.scalar(sa.select(things.c.id))
    assert dialect.allocate_ids(conn, things, 0) == []
    ids = dialect.allocate_ids(conn, things, 4)
    assert len(set(ids)) == 4 and ids == sorted(ids) and min(ids) > existing
    conn.execute(things.insert(), [{"id": id_, "name": f"n{id_}", "size": id_} for id_ in ids])
    assert conn.scalar(sa.select(sa.func.count()).select_from(things)) == 5


def test_new_id_inside_an_insert(conn):
    statement = things.insert().values(id=dialect.new_id(conn.dialect.name, things), name=sa.bindparam("name"), size=0)
    conn.execute(statement, {"name": "a"})
    conn.execute(statement, {"name": "b"})
    ids = list(conn.scalars(sa.select(things.c.id).order_by(things.c.name)))
    assert len(set(ids)) == 2 and ids[0] < ids[1]


def test_every_row_an_upsert_replaces_gets_an_id_of_its_own(conn):
    """`per_row`: one ON CONFLICT DO UPDATE statement replacing two rows gives them two new ids."""
    dialect.insert_ignoring_conflicts(conn, things, [{"name": "a", "size": 1}, {"name": "b", "size": 1}])
    before = set(conn.scalars(sa.select(things.c.id)))
    insert = dialect.insert_for(conn.dialect.name)(things)
    replace = insert.on_conflict_do_update(
        index_elements=[things.c.name],
        set_={"size": insert.excluded.size, "id": dialect.new_id(conn.dialect.name, things, per_row=True)},
    )
    conn.execute(replace, [{"name": "a", "size": 2}, {"name": "b", "size": 2}])
    after = set(conn.scalars(sa.select(things.c.id)))
    assert len(after) == 2 and not after & before
    assert rows(conn) == [("a", 2), ("b", 2)]
