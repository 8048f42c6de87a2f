"""The archive's revisions (store/revisions.py), kept by migration 0024's triggers: every write of
a list's mail, threads, sources, attachments or settings moves its revision, whoever writes
(here plain statements on a connection of their own, as another process would), and nothing else
does; the whole archive's revision grows with any of them. On PostgreSQL (migration 0027) a
transaction writes each list's row once, however many statements it runs."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from sathub import db
from sathub.archive.mailman import live_ingest
from sathub.archive.store import lists
from sathub.archive.store.revisions import archive_revision, list_revision
from sathub.archive.tables import attachments, email_sources, emails, mailing_lists, senders, threads
from tests.archive.api_fixtures import DEV, MAIL
from tests.archive.messages import raw_message
from tests.conftest import BACKENDS


def revision(engine, name: str = DEV) -> int:
    with db.connect(engine) as conn:
        return list_revision(conn, name).revision


def whole(engine):
    with db.connect(engine) as conn:
        return archive_revision(conn)


def test_every_write_of_a_lists_rows_moves_its_revision(engine, archive):
    other = revision(engine, MAIL["X"].list_name)
    a = archive["A"]
    writes = [
        emails.update().where(emails.c.id == a).values(subject="edited"),
        threads.update().where(threads.c.starting_email_id == a).values(subject="edited"),
        email_sources.insert().values(email_id=a, compression="none", size=1, data=b"x"),
        email_sources.update().where(email_sources.c.email_id == a).values(size=2),
        attachments.update().where(attachments.c.email_id == archive["E"]).values(name="renamed.txt"),
        attachments.delete().where(attachments.c.email_id == archive["E"]),
        email_sources.delete().where(email_sources.c.email_id == a),
        emails.delete().where(emails.c.id == archive["H"]),
    ]
    for statement in writes:
        before, total = revision(engine), whole(engine).revision
        with engine.begin() as conn:
            assert conn.execute(statement).rowcount != 0, statement  # -1: an insert, not counted
        assert revision(engine) > before, statement
        assert whole(engine).revision > total, statement
    assert revision(engine, MAIL["X"].list_name) == other


def test_live_mail_and_settings_move_it_and_a_setting_unchanged_does_not(engine, archive):
    before = revision(engine)
    with db.connect(engine, write=True) as conn:
        live_ingest.store(conn, DEV, live_ingest.parse(raw_message("new@example.org")))
    moved = revision(engine)
    assert moved > before
    with db.connect(engine, write=True) as conn:
        found = lists.find_list(conn, DEV)
        lists.update_list(conn, found.id, {"display_name": found.display_name, "archive_policy": "public"})
    assert revision(engine) == moved
    with db.connect(engine, write=True) as conn:
        lists.update_list(conn, found.id, {"description": "new words"})
    assert revision(engine) == moved + 1


def test_revised_at_is_when_and_never_moves_back(engine, archive):
    with engine.begin() as conn:
        conn.execute(mailing_lists.update().where(mailing_lists.c.name == DEV).values(revised_at=datetime(2999, 1, 1)))
    with db.connect(engine, write=True) as conn:
        live_ingest.store(conn, DEV, live_ingest.parse(raw_message("later@example.org")))
    with db.connect(engine) as conn:
        assert list_revision(conn, DEV).revised_at == datetime(2999, 1, 1)
    with engine.begin() as conn:
        conn.execute(mailing_lists.update().where(mailing_lists.c.name == DEV).values(revised_at=None))
    start = datetime.utcfromtimestamp(int(time.time()))
    with db.connect(engine, write=True) as conn:
        live_ingest.store(conn, DEV, live_ingest.parse(raw_message("now@example.org")))
    with db.connect(engine) as conn:
        revised_at = list_revision(conn, DEV).revised_at
    assert revised_at.microsecond == 0 and 0 <= (revised_at - start).total_seconds() <= 5


def test_the_archives_revision_tells_a_new_and_a_deleted_list(engine, archive):
    first = whole(engine)
    with db.connect(engine, write=True) as conn:
        lists.create_list(conn, "new@example.org", {"created_at": datetime(2020, 1, 1)})
    second = whole(engine)
    assert (second.lists, second.newest_list) != (first.lists, first.newest_list)
    with engine.begin() as conn:
        conn.execute(mailing_lists.delete().where(mailing_lists.c.name == "new@example.org"))
    assert whole(engine).lists == first.lists
    with db.connect(engine) as conn:
        assert list_revision(conn, "NEW@example.org") is None


def test_a_senders_new_mailman_id_moves_the_lists_it_wrote_to(engine, archive):
    dev, other = revision(engine), revision(engine, MAIL["X"].list_name)
    with engine.begin() as conn:
        conn.execute(senders.update().where(senders.c.address == "bob@example.net").values(mailman_id="b" * 32))
    assert revision(engine) > dev
    assert revision(engine, MAIL["X"].list_name) == other  # bob never wrote there
    moved = revision(engine)
    with engine.begin() as conn:
        conn.execute(senders.update().where(senders.c.address == "bob@example.net").values(mailman_id="b" * 32))
    assert revision(engine) == moved  # the same id again


def several_writes(archive) -> list:
    """Statements of one transaction on dev's rows, as an import's batch or Mailman's call runs."""
    a = archive["A"]
    return [
        emails.update().where(emails.c.id == a).values(subject="edited"),
        threads.update().where(threads.c.starting_email_id == a).values(subject="edited"),
        email_sources.insert().values(email_id=a, compression="none", size=1, data=b"x"),
        attachments.update().where(attachments.c.email_id == archive["E"]).values(name="renamed.txt"),
        emails.update().where(emails.c.id == a).values(subject="edited again"),
    ]


def row_versions_written(conn) -> int:
    """The rows of mailing_lists this PostgreSQL transaction has updated so far (with what the
    backend counted before it and has not reported yet: compare two reads of one transaction)."""
    return conn.exec_driver_sql(
        "SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relname = 'mailing_lists'"
    ).scalar_one()


# SQLite's row triggers update the list's row per row written: it leaves no dead row versions.
on_postgresql = pytest.mark.parametrize("database_url", [BACKENDS[1]], indirect=True)


def test_several_writes_in_one_transaction_change_the_lists_etag(engine, archive, client):
    url = f"/archive/api/list/{DEV}/threads/"
    etag, before = client.get(url).headers["ETag"], revision(engine)
    with engine.begin() as conn:
        for statement in several_writes(archive):
            conn.execute(statement)
    assert revision(engine) > before
    assert client.get(url).headers["ETag"] != etag


@on_postgresql
def test_on_postgresql_a_transaction_writes_each_lists_row_once(engine, archive):
    dev, other = revision(engine), revision(engine, MAIL["X"].list_name)
    with db.connect(engine, write=True) as conn:
        start = row_versions_written(conn)
        live_ingest.store(conn, DEV, live_ingest.parse(raw_message("new@example.org")))
        for statement in several_writes(archive):
            conn.execute(statement)
        conn.execute(emails.update().where(emails.c.id == archive["X"]).values(subject="edited"))
        conn.execute(emails.update().where(emails.c.id == archive["X"]).values(subject="edited again"))
        assert row_versions_written(conn) - start == 2  # dev's row and other's, one version each
    assert (revision(engine), revision(engine, MAIL["X"].list_name)) == (dev + 1, other + 1)
    # The record of what moved is the transaction's: the next one on the same connection moves it again.
    with engine.connect() as conn:
        for expected in (dev + 2, dev + 3):
            with conn.begin():
                conn.execute(emails.update().where(emails.c.id == archive["A"]).values(subject=str(expected)))
            assert revision(engine) == expected


def test_a_savepoint_rolled_back_takes_back_its_move_and_the_next_write_moves_it(engine, archive):
    before = revision(engine)
    with engine.begin() as conn:
        savepoint = conn.begin_nested()
        conn.execute(emails.update().where(emails.c.id == archive["A"]).values(subject="undone"))
        savepoint.rollback()
        conn.execute(emails.update().where(emails.c.id == archive["B"]).values(subject="kept"))
    assert revision(engine) > before


def test_mail_written_after_a_settings_update_that_changed_nothing_moves_it(engine, archive):
    """The list's row written in the transaction is not its revision moved (why not xmin, 0027)."""
    before = revision(engine)
    with db.connect(engine, write=True) as conn:
        found = lists.find_list(conn, DEV)
        lists.update_list(conn, found.id, {"display_name": found.display_name})
        conn.execute(emails.update().where(emails.c.id == archive["A"]).values(subject="edited"))
    assert revision(engine) > before


@on_postgresql
def test_migration_0027_down_brings_back_one_move_per_statement_and_up_one_per_transaction(database_url, tmp_path):
    from alembic import command

    from tests.archive.api_fixtures import seed_archive
    from tests.conftest import migrate, scratch_engine

    def row_versions_of_several_writes(engine, archive) -> int:
        with engine.begin() as conn:
            start = row_versions_written(conn)
            for statement in several_writes(archive):
                conn.execute(statement)
            conn.execute(email_sources.delete())
            return row_versions_written(conn) - start

    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "head")
        archive = seed_archive(engine)
        migrate(engine, "0026", step=command.downgrade)
        assert row_versions_of_several_writes(engine, archive) == 6  # 0024's: one per statement
        migrate(engine, "head")
        assert row_versions_of_several_writes(engine, archive) == 1
