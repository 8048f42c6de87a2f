"""The index is kept in the transaction of every write (SQLite and PostgreSQL): Mailman's archive
call, the import, a re-import's corrections, attachments, a list deleted; the migration of a database
that had mail before 0010 (`archive reindex`: tests/archive/store/test_search_index.py)."""

from __future__ import annotations

import sqlalchemy as sa

from sathub.archive.search.query import parse
from sathub.archive.store import search
from sathub.archive.tables import attachments, emails, mailing_lists
from sathub.db import connect
from tests.archive.api_fixtures import MAIL, seed_archive
from tests.archive.import_fixtures import archive as mbox
from tests.archive.import_fixtures import message, run
from tests.archive.mailman.test_endpoints import make_client, post
from tests.archive.mailman.test_endpoints import message as mailman_message
from tests.conftest import migrate, scratch_engine


def found(engine, query: str) -> set[str]:
    with connect(engine) as conn:
        ids = search.matching_ids(conn, parse(query))
        return set(conn.scalars(sa.select(emails.c.message_id).where(emails.c.id.in_(ids)))) if ids else set()


def test_mailmans_archive_call_is_searchable_in_its_answer(engine, settings):
    with make_client(engine, settings) as client:
        answer = post(client, mailman_message("fresh@example.org", subject="Perigee ephemerides"))
        assert answer.status_code == 200, answer.text
        body = client.get("/archive/api/search/?q=s:ephemerides").json()
    assert body["count"] == 1
    assert body["results"][0]["message_id"] == "fresh@example.org"


def test_the_import_and_a_corrected_row_are_searchable_at_once(engine, tmp_path):
    run(engine, mbox(tmp_path, "a.mbox", message("one", subject="Doppler", body="tracking the satellite\n")))
    assert found(engine, "doppler tracking") == {"one@example.org"}
    # What a re-import's correction does to an older row (store/corrections.py): an UPDATE.
    with engine.begin() as conn:
        conn.execute(emails.update().where(emails.c.message_id == "one@example.org").values(content="uplink only"))
    assert found(engine, "tracking") == set()
    assert found(engine, "b:uplink") == {"one@example.org"}


def test_attachments_and_deleted_lists_follow(engine):
    seed_archive(engine)
    assert found(engine, "n:report") == {MAIL["E"].message_id}
    with engine.begin() as conn:
        conn.execute(attachments.delete().where(attachments.c.name == "report.html"))
    assert found(engine, "n:report") == set()
    assert found(engine, "n:signature") == {MAIL["E"].message_id}
    with engine.begin() as conn:
        conn.execute(mailing_lists.delete().where(mailing_lists.c.name == "dev@example.org"))
    assert found(engine, "welcome") == {MAIL["X"].message_id}  # the cross-post on other@ stays


def test_a_database_with_mail_gains_the_index_by_migration(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0007")
        seed_archive(engine)
        migrate(engine, "heads")
        assert found(engine, "welcome") == {MAIL[k].message_id for k in "ABCDX"}
        assert found(engine, "n:signature") == {MAIL["E"].message_id}
