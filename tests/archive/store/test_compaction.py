"""`archive compact` (store/compaction.py) on both backends: SQLite's search index forgets a
deleted email's words only once compacted, and its WAL is emptied; PostgreSQL's archive tables are
vacuumed."""

from __future__ import annotations

import os

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.archive.removal.operations import DELETE, run, scope_of
from sathub.archive.store.compaction import ARCHIVE_TABLES, compact
from tests.archive.api_fixtures import MAIL, seed_archive
from tests.conftest import BACKENDS

DEV = "dev@example.org"


def delete_every_welcome(engine) -> None:
    """ "Welcome" is in the subjects of thread A (A, B, C, D) on dev and of its copy X on other."""
    run(engine, DELETE, scope_of(thread=MAIL["A"].hash, list_name=DEV), "r", "test")
    run(engine, DELETE, scope_of(message_id_hash_=MAIL["X"].hash, list_name="other@example.org"), "r", "test")


def segments_holding(engine, word: bytes) -> int:
    """FTS5's segments (the blocks of email_search_data) whose bytes hold `word`."""
    with engine.connect() as conn:
        return sum(word in (block or b"") for block in conn.scalars(sa.text("SELECT block FROM email_search_data")))


def test_sqlite_segments_forget_deleted_words_once_compacted(tmp_path):
    # A database of its own: how far FTS5 has merged its segments depends on the index's history.
    engine = db.create_engine(f"sqlite:///{tmp_path / 'compact.db'}")
    try:
        db.upgrade(engine)
        seed_archive(engine)
        assert segments_holding(engine, b"welcome") > 0
        delete_every_welcome(engine)
        # The delete alone leaves the words in the segments, beside a note that they are deleted.
        assert segments_holding(engine, b"welcome") > 0
        done = compact(engine)
        assert segments_holding(engine, b"welcome") == 0
        assert segments_holding(engine, b"report") > 0  # E's subject: the index still holds the rest
        path = engine.url.database
        assert done.wal_emptied and os.path.getsize(f"{path}-wal") == 0
        assert done.bytes_after == os.path.getsize(path) <= done.bytes_before
    finally:
        engine.dispose()


def vacuumed(engine) -> set[str]:
    """The tables VACUUM ran on (autovacuum's runs are counted apart, in last_autovacuum): a
    partitioned one (`email_search`, migration 0033) when it ran on every partition."""
    with engine.connect() as conn:
        return set(conn.scalars(sa.text(VACUUMED)))


VACUUMED = """SELECT relname FROM pg_stat_user_tables WHERE last_vacuum IS NOT NULL
UNION SELECT 'email_search' WHERE NOT EXISTS (SELECT FROM pg_partition_tree('email_search') t
    JOIN pg_stat_user_tables s ON s.relid = t.relid WHERE t.isleaf AND s.last_vacuum IS NULL)"""


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)
def test_postgres_archive_tables_are_vacuumed(engine, archive):
    delete_every_welcome(engine)
    assert not vacuumed(engine) & set(ARCHIVE_TABLES)  # a fresh database of this session
    done = compact(engine)
    assert done.tables == len(ARCHIVE_TABLES) and {"emails", "email_search", "archive_removed"} <= set(ARCHIVE_TABLES)
    assert set(ARCHIVE_TABLES) <= vacuumed(engine)
