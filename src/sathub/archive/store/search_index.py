"""`sathub archive reindex`: the search index of migration 0010 rebuilt from the stored emails.

The triggers keep the index as mail is written; this rebuilds it after a restore that bypassed
them, or whenever an operator doubts it. With a list, only that list's emails are indexed again."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.archive.tables import emails

BATCH = 5_000


def reindex(conn: Connection, list_id: int | None = None) -> int:
    """Index again every email (of `list_id` when given, on PostgreSQL; SQLite's index holds
    the mail of lists that are not private alone); returns how many were."""
    if conn.dialect.name == "sqlite":
        return _rebuild_sqlite(conn)
    chosen = sa.select(emails.c.id).order_by(emails.c.id)
    ids = list(conn.scalars(chosen if list_id is None else chosen.where(emails.c.list_id == list_id)))
    if list_id is None:
        conn.execute(sa.text("DELETE FROM email_search"))
    for first in range(0, len(ids), BATCH):
        conn.execute(sa.text("SELECT index_emails(:ids)"), {"ids": ids[first : first + BATCH]})
    conn.execute(sa.text("ANALYZE email_search"))
    return len(ids)


def _rebuild_sqlite(conn: Connection) -> int:
    # FTS5 forgets a row of an external-content index only when told the values it indexed, which
    # an index in doubt may not have: SQLite rebuilds the whole index from the view, every list.
    # The view shows the mail of lists that are not private alone (migration 0017).
    conn.execute(sa.text("INSERT INTO email_search(email_search) VALUES ('rebuild')"))
    return conn.scalar(sa.text("SELECT count(*) FROM email_search_source")) or 0


def index_sizes(conn: Connection) -> dict[str, int]:
    """Bytes on disk of the search index and of the text it indexes (the benchmark's figures)."""
    if conn.dialect.name == "postgresql":
        # The GIN indexes alone (`document`'s, and `heading`'s since 0013); the tsvectors they are
        # built from are the table (pg_total_relation_size).
        index = conn.scalar(sa.text(_GIN_SIZE))
    else:
        index = conn.scalar(
            sa.text("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'email_search%' AND name != 'email_search_source'")
        )
    size = "length(CAST({} AS BLOB))" if conn.dialect.name == "sqlite" else "octet_length({})"
    columns = ("subject", "content", "sender_name", "sender_address")
    text = conn.scalar(sa.text(f"SELECT sum({' + '.join(size.format(c) for c in columns)}) FROM emails"))
    return {"index_bytes": int(index or 0), "text_bytes": int(text or 0)}


# Each partition's (migration 0033): a partitioned index has no pages of its own.
_GIN_SIZE = """SELECT sum(pg_relation_size(t.relid)) FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am m ON m.oid = c.relam
CROSS JOIN pg_partition_tree(i.indexrelid) t
WHERE i.indrelid = 'email_search'::regclass AND m.amname = 'gin' AND t.isleaf"""
