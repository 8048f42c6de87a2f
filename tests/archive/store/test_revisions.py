"""The archive's revisions (store/revisions.py), kept by migration 0024's triggers: every write of
a list's mail, threads, sources, attachments or settings moves its revision, whoever writes
(here plain statements on a connection of their own, as another process would), and nothing else
does; the whole archive's revision grows with any of them."""

from __future__ import annotations

import time
from datetime import datetime

from sathub import db
from sathub.archive.mailman import live_ingest
from sathub.archive.store import lists
from sathub.archive.store.revisions import archive_revision, list_revision
from sathub.archive.tables import attachments, email_sources, emails, mailing_lists, senders, threads
from tests.archive.api_fixtures import DEV, MAIL
from tests.archive.messages import raw_message


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
