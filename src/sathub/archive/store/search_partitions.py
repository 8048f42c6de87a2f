"""PostgreSQL's search index in partitions of email ids (migration 0033): which there are, and the
next one made ahead of the ids.

The writers call `keep_ahead` after they commit mail. It makes the partition after the one the
next email id falls in, in a transaction of its own, so that a partition is there before any mail
reaches it. What reached the default partition all the same (a writer stopped before it made
the next one, a batch larger than a partition) is carved out into partitions of its own: a search
finds it either way, only faster in a partition of its own.

Making a partition attaches an empty table (`ATTACH PARTITION`), which takes a SHARE UPDATE
EXCLUSIVE lock of `email_search`: searches and writers go on, as the table created apart locks
nothing else. Attaching clones the foreign key, which takes SHARE ROW EXCLUSIVE of `emails` for
that instant. Processes agree by an advisory lock, and give up after LOCK_TIMEOUT (the next write
tries again): making a partition is never worth a writer's wait."""

from __future__ import annotations

import logging
import time
import weakref
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError

log = logging.getLogger(__name__)

SPAN = 100_000  # email ids a partition made here holds, as migration 0033's
CHECK_SECONDS = 1.0  # a process checks at most this often whether a partition is needed
LOCK_TIMEOUT = "2s"
_LOCK_KEY = 7_033_001  # the advisory lock of making partitions (any number, the same everywhere)
BEYOND = "email_search_beyond"  # the default partition

_checked: weakref.WeakKeyDictionary[Engine, float] = weakref.WeakKeyDictionary()

# Each partition's range, from its bound as PostgreSQL writes it ("FOR VALUES FROM (0) TO (100000)").
_PARTITIONS = sa.text(
    """SELECT c.relname AS name,
        substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\((\\d+)\\)')::int AS first,
        substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\((\\d+)\\)')::int AS after
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'email_search'::regclass ORDER BY first"""
)
_STATE = sa.text(
    f"""SELECT (SELECT last_value FROM emails_id_seq) AS next_id,
        (SELECT min(email_id) FROM {BEYOND}) AS stray_first, (SELECT max(email_id) FROM {BEYOND}) AS stray_last"""
)


class Partition(NamedTuple):
    """A partition of ids `first` to `after` (not included)."""

    name: str
    first: int
    after: int


def partitions(conn: Connection) -> list[Partition]:
    """The partitions of ranges, first ids first (the default partition left out)."""
    return [Partition(*row) for row in conn.execute(_PARTITIONS) if row.first is not None]


def keep_ahead(engine: Engine) -> None:
    """After mail is written: the partition after the next email id's made, and what reached the
    default partition carved out; checked at most every CHECK_SECONDS by this process."""
    if engine.dialect.name != "postgresql":
        return
    now = time.monotonic()
    if now - _checked.get(engine, -CHECK_SECONDS) < CHECK_SECONDS:
        return
    _checked[engine] = now
    try:
        with engine.begin() as conn:
            make_partitions(conn)
    except OperationalError as exc:  # the lock was not had in time: the next write tries again
        log.info("search partitions not made this time: %s", exc.orig)


def make_partitions(conn: Connection) -> None:
    """In `conn`'s transaction: partitions up to the one after the next id's, and the default
    partition's rows moved into partitions of their own ranges."""
    state = conn.execute(_STATE).one()
    after = max((p.after for p in partitions(conn)), default=0)
    wanted = max(state.next_id, state.stray_last or 0) + SPAN
    if wanted < after:
        return
    conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
    if not conn.scalar(sa.text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": _LOCK_KEY}):
        return  # another process makes them
    after = max((p.after for p in partitions(conn)), default=0)  # as that one may have left it
    if state.stray_first is not None:
        # Nothing more comes into it before this transaction ends; it is attached to, then.
        conn.exec_driver_sql(f"LOCK TABLE {BEYOND} IN EXCLUSIVE MODE")
    while after <= wanted:
        _attach(conn, after, after + SPAN)
        after += SPAN


def _attach(conn: Connection, first: int, after: int) -> None:
    name = f"email_search_{first}"
    conn.exec_driver_sql(f"CREATE TABLE {name} (LIKE email_search INCLUDING DEFAULTS)")
    conn.exec_driver_sql(
        f"ALTER TABLE {name} ALTER COLUMN heading SET STATISTICS 0, ALTER COLUMN document SET STATISTICS 0"
    )
    within = f"email_id >= {first} AND email_id < {after}"
    conn.exec_driver_sql(f"INSERT INTO {name} SELECT * FROM {BEYOND} WHERE {within}")
    conn.exec_driver_sql(f"DELETE FROM {BEYOND} WHERE {within}")
    conn.exec_driver_sql(f"ALTER TABLE email_search ATTACH PARTITION {name} FOR VALUES FROM ({first}) TO ({after})")
