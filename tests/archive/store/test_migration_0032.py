"""Migration 0032 (SQLite): an inserted attachment's triggers run only when its email is there.
What they do is unchanged: an attachment of an email already stored indexes it again with its
name and moves its list's revision; one stored before its email (as the writers store a new
email's) does neither; the downgrade gives the triggers back as they were."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from tests.archive.migration_fixtures import store_one_email
from tests.conftest import BACKENDS, migrate, scratch_engine

TRIGGERS = ("attachments_search_insert_forget", "attachments_search_insert_add", "attachments_revision_insert")


def triggers(engine) -> dict[str, str]:
    with engine.connect() as conn:
        return dict(
            conn.exec_driver_sql(
                f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN {TRIGGERS}"
            ).all()
        )


def attach(conn, email_id: int, name: str) -> None:
    conn.exec_driver_sql(
        "INSERT INTO attachments (email_id, counter, name, content_type, encoding, size, content) "
        f"VALUES ({email_id}, 2, '{name}', 'text/plain', 'utf-8', 1, x'41')"
    )


def indexed_by_name(conn, word: str) -> list[int]:
    query = f"SELECT rowid FROM email_search WHERE email_search MATCH 'files:{word}'"
    return [row[0] for row in conn.exec_driver_sql(query)]


def revision(conn) -> int:
    return conn.exec_driver_sql("SELECT revision FROM mailing_lists WHERE id = 1").scalar_one()


@pytest.mark.parametrize("database_url", [BACKENDS[0]], indirect=True)  # SQLite
def test_the_triggers_of_an_attachment_run_when_its_email_is_there(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0031")
        before = triggers(engine)
        migrate(engine, "0032")
        condition = "WHEN EXISTS (SELECT 1 FROM emails WHERE id = NEW.email_id)"
        assert all(condition in sql for sql in triggers(engine).values())
        store_one_email(engine, article_number=1)
        with engine.begin() as conn:
            moved_from = revision(conn)
            attach(conn, 4, "orbit.txt")
            assert indexed_by_name(conn, "orbit") == [4]
            assert revision(conn) > moved_from
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
            moved_from = revision(conn)
            attach(conn, 99, "early.txt")  # its email is not stored yet
            assert indexed_by_name(conn, "early") == [] and revision(conn) == moved_from
            conn.rollback()
        migrate(engine, "0031", command.downgrade)
        assert triggers(engine) == before
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one() == "0031"
