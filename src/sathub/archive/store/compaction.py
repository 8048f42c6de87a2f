"""`sathub archive compact`: what deleted mail leaves in the database's files, gone
(docs/archive-removal.md, "Erase means erase").

SQLite: a delete overwrites the rows it frees (`secure_delete`), but the search index's segments
keep a deleted email's words beside a note that they are deleted until the segments are merged,
and the WAL keeps the pages of past transactions until it is checkpointed. Compacting merges the
segments into one (FTS5's `optimize`), rewrites the file (VACUUM) and empties the WAL (a TRUNCATE
checkpoint): no byte of erased mail remains in any of the files.

PostgreSQL: a deleted row is gone from every query at once; its bytes stay in the table's pages
as a dead tuple until VACUUM marks the space free for new rows (autovacuum does it too, when it
gets to it). Compacting runs VACUUM (ANALYZE) on the archive's tables now. Returning the space to
the operating system needs VACUUM FULL, which locks each table while it rewrites it: the
operator's choice, at a quiet hour."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sathub.archive import tables
from sathub.db.engines import connect

# Every table of the archive (tables.py) and the search index's table on PostgreSQL (migration 0013).
ARCHIVE_TABLES = (*sorted(t.name for t in vars(tables).values() if isinstance(t, sa.Table)), "email_search")


@dataclass(frozen=True, slots=True)
class Compaction:
    backend: str
    bytes_before: int  # the database's size (SQLite: the file and its WAL; PostgreSQL: the archive's tables)
    bytes_after: int
    wal_emptied: bool = True  # SQLite: False when a reader kept the checkpoint from emptying the WAL
    tables: int = 0  # PostgreSQL: how many tables were vacuumed


def compact(engine: Engine) -> Compaction:
    """Compact the database of `engine` as the module says; writers wait while it runs."""
    if engine.dialect.name == "sqlite":
        return _compact_sqlite(engine)
    return _compact_postgres(engine)


def _compact_sqlite(engine: Engine) -> Compaction:
    before = _sqlite_bytes(engine)
    with connect(engine, write=True) as conn:
        conn.execute(sa.text("INSERT INTO email_search(email_search) VALUES ('optimize')"))
    with _autocommit(engine) as conn:
        # VACUUM rewrites the database through the WAL; the checkpoint then copies it into the file
        # and truncates the WAL, the old frames (the erased mail's pages among them) with it.
        conn.execute(sa.text("VACUUM"))
        busy = conn.execute(sa.text("PRAGMA wal_checkpoint(TRUNCATE)")).one()[0]
    return Compaction("sqlite", before, _sqlite_bytes(engine), wal_emptied=not busy)


def _compact_postgres(engine: Engine) -> Compaction:
    with _autocommit(engine) as conn:  # VACUUM cannot run inside a transaction block
        present = [name for name in ARCHIVE_TABLES if conn.scalar(sa.text("SELECT to_regclass(:t)"), {"t": name})]
        before = _postgres_bytes(conn, present)
        conn.execute(sa.text(f"VACUUM (ANALYZE) {', '.join(present)}"))
        return Compaction("postgresql", before, _postgres_bytes(conn, present), tables=len(present))


@contextlib.contextmanager
def _autocommit(engine: Engine) -> Iterator[Connection]:
    """A connection outside the pool, each statement on its own, closed afterwards: it never goes
    back to the pool in that mode for someone else (as db/revision_probe.py's)."""
    conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    conn.detach()
    with conn:
        yield conn


def _sqlite_bytes(engine: Engine) -> int:
    """The database file and its WAL, on disk."""
    path = engine.url.database
    if not path or path == ":memory:":
        return 0
    return sum(os.path.getsize(name) for name in (path, f"{path}-wal") if os.path.exists(name))


def _postgres_bytes(conn: Connection, names: list[str]) -> int:
    """The tables `names` on disk, a partitioned one's partitions (migration 0033's `email_search`)."""
    return int(
        conn.scalar(
            sa.text(
                "SELECT sum(pg_total_relation_size(p.relid)) "
                "FROM unnest(CAST(:names AS text[])) t, pg_partition_tree(to_regclass(t)) p"
            ),
            {"names": names},
        )
        or 0
    )
