"""`sathub archive reindex` (archive/store/search_index.py): the search index rebuilt from the stored
emails, of every list or of one, on SQLite and PostgreSQL; and what the triggers write to the index
that it rebuilds: on PostgreSQL a new email's entry once, with its attachments (migration 0017)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from click.testing import CliRunner

from sathub.archive.commands import archive
from sathub.archive.tables import attachments, emails
from tests.archive.api_fixtures import MAIL, message_id_hash, seed_archive
from tests.archive.search.test_freshness import found
from tests.archive.store.test_search_fts5 import indexed
from tests.conftest import BACKENDS, migrate, scratch_engine


def emptied_index(engine) -> None:
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("DELETE FROM email_search"))
        else:
            conn.execute(sa.text("INSERT INTO email_search(email_search) VALUES ('delete-all')"))


def test_reindex_rebuilds_the_index(engine, database_url):
    seed_archive(engine)
    emptied_index(engine)
    assert found(engine, "welcome") == set()
    runner = CliRunner()
    result = runner.invoke(archive, ["reindex", "--list", "OTHER@example.org", "--database-url", database_url])
    assert result.exit_code == 0, result.output
    # PostgreSQL indexes the list's one email again; SQLite rebuilds its whole FTS5 index, which
    # holds the 9 emails of lists that are not private (P is private).
    every = 10 if database_url.startswith("postgresql") else 9
    count = 1 if database_url.startswith("postgresql") else every
    assert result.output == f"Indexed {count} email(s) for search of other@example.org.\n"
    assert MAIL["X"].message_id in found(engine, "welcome")
    result = runner.invoke(archive, ["reindex", "--database-url", database_url])
    assert (result.exit_code, result.output) == (0, f"Indexed {every} email(s) for search.\n")
    assert found(engine, "welcome") == {MAIL[k].message_id for k in "ABCDX"}
    refused = runner.invoke(archive, ["reindex", "--list", "nobody@example.org", "--database-url", database_url])
    assert refused.exit_code == 2 and "no list 'nobody@example.org'" in refused.output


def index_rows_written(conn) -> int:
    """Rows PostgreSQL's index was written (inserted, or updated by ON CONFLICT) by this backend,
    not yet reported to the cumulative statistics: compared within one transaction, during which
    nothing is reported. Of every partition (migration 0033)."""
    return conn.exec_driver_sql(
        "SELECT coalesce(sum(n_tup_ins + n_tup_upd), 0) FROM pg_stat_xact_user_tables "
        "WHERE relid IN (SELECT relid FROM pg_partition_tree('email_search'))"
    ).scalar_one()


def store_with_attachments(conn, message_id: str, names: list[str], *, per_row: bool = False) -> None:
    """A copy of E (on dev@, "See attached.") as `message_id`, with attachments named `names`,
    stored in one statement, or one statement each with `per_row` (psycopg runs an executemany so)."""
    # The columns of the revisions these tests start from (0023 added the first two, 0028, 0029 and
    # 0030 the others).
    later = ("sender_comment", "scrubbed", "article_number", "references_read", "overview")
    columns = [column for column in emails.c if column.name not in later]
    copy = conn.execute(sa.select(*columns).where(emails.c.message_id == MAIL["E"].message_id)).one()._asdict()
    copy.pop("id")
    copy.update(message_id=message_id, message_id_hash=message_id_hash(message_id))
    email_id = conn.execute(emails.insert().values(copy)).inserted_primary_key[0]
    rows = [
        {"email_id": email_id, "counter": n, "name": name, "content_type": "text/plain", "size": 1, "content": b"x"}
        for n, name in enumerate(names, start=2)
    ]
    if per_row:
        conn.execute(attachments.insert(), rows)
    else:
        conn.execute(attachments.insert().values(rows))


@pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)  # PostgreSQL
@pytest.mark.parametrize("per_row", [False, True], ids=["one statement", "a statement each"])
def test_a_new_email_is_indexed_once_with_its_attachments(engine, per_row):
    """The import stores a batch's attachments in one statement, Mailman's archive call one
    statement each (an executemany). The emails' trigger indexed the new email and the
    attachments' trigger indexed it again after each statement: 2 (3) entries written."""
    seed_archive(engine)
    with engine.begin() as conn:
        written = index_rows_written(conn)
        store_with_attachments(conn, "new@example.org", ["orbit2.txt", "orbit3.txt"], per_row=per_row)
        conn.exec_driver_sql("SET CONSTRAINTS ALL IMMEDIATE")  # what the commit does first
        assert index_rows_written(conn) - written == 1
    assert found(engine, "n:orbit2") == {"new@example.org"}
    assert found(engine, "n:orbit3 see attached") == {"new@example.org"}


def test_the_migration_of_a_database_with_mail_and_back(database_url, tmp_path):
    """0017 takes the private mail out of SQLite's index (FTS5 checks the index against the view),
    and its downgrade puts it back; on PostgreSQL new mail is indexed with its attachments by
    0017's triggers, and by 0010's again after the downgrade."""
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0016")
        private = seed_archive(engine)["P"]
        for revision, step, also_private in (("0017", command.upgrade, False), ("0016", command.downgrade, True)):
            migrate(engine, revision, step)
            if engine.dialect.name == "sqlite":
                with engine.connect() as conn:
                    stored = set(conn.scalars(sa.select(emails.c.id)))
                assert indexed(engine) == (stored if also_private else stored - {private}), revision
            with engine.begin() as conn:
                store_with_attachments(conn, f"at-{revision}@example.org", [f"orbit{revision}.txt"])
            assert found(engine, f"n:orbit{revision} see attached") == {f"at-{revision}@example.org"}
            assert found(engine, "welcome") == {MAIL[k].message_id for k in "ABCDX"}
