"""public-inbox's SQL (sathub.archive.store.public_inbox) on the hand-built archive of api_fixtures,
both backends: only readable lists, a Message-ID's first archived copy, a thread's emails joined
through References (archived by Mailman's archive call) and by subject, topics and the newest
messages."""

from __future__ import annotations

import sqlalchemy as sa

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.mailman import live_ingest
from sathub.archive.store import lists, public_inbox
from sathub.archive.tables import PRIVATE, emails
from tests.archive.api_fixtures import LISTS, MAIL
from tests.archive.messages import raw_message

DEV = "dev@example.org"


def test_only_readable_lists_are_inboxes(engine, archive):
    with engine.begin() as conn:
        assert [row.name for row in public_inbox.public_lists(conn)] == [
            name for name in LISTS if name != "private@example.org"
        ]
        lists.update_list(conn, lists.find_list(conn, "other@example.org").id, {"archive_policy": PRIVATE})
        assert "other@example.org" not in [row.name for row in public_inbox.public_lists(conn)]


def test_a_message_id_is_found_on_the_lists_given(engine, archive):
    with engine.connect() as conn:
        dev, other = (lists.find_list(conn, name).id for name in ("dev@example.org", "other@example.org"))
        both = public_inbox.find_message(conn, [other, dev], MAIL["A"].message_id)
        assert both is not None and both.list_id == dev  # the first archived of the cross-posted copies
        assert public_inbox.find_message(conn, [other], MAIL["A"].message_id).list_id == other
        assert public_inbox.find_message(conn, [other], MAIL["B"].message_id) is None
        assert public_inbox.find_message(conn, [], MAIL["A"].message_id) is None


def test_subject_candidates_hold_the_word(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org").id
        by_word = public_inbox.subject_candidates(conn, dev, "TIE")  # any case
        assert [row.message_id for row in by_word] == [MAIL["F"].message_id, MAIL["G"].message_id]
        assert public_inbox.subject_candidates(conn, dev, "%") == []  # a LIKE wildcard is a character
        assert public_inbox.subject_candidates(conn, dev, None) == []


def test_mail_without_references_read_is_joined_by_its_parent(engine, archive):
    with engine.connect() as conn:  # api_fixtures' rows: in_reply_to alone, as mail stored before 0029
        dev = lists.find_list(conn, "dev@example.org").id
        for key in "AC":
            thread = public_inbox.references_thread(conn, dev, MAIL[key].message_id)
            assert [row.message_id for row in thread] == [MAIL[key].message_id for key in "ABCD"]  # arrival order


def arrive(engine, message_id: str, *headers: str, reply_to: str | None = None) -> None:
    """A message archived by Mailman's archive call (store/one_message.py)."""
    email = live_ingest.parse(raw_message(message_id, subject=message_id, reply_to=reply_to, headers=headers))
    with db.connect(engine, write=True) as conn:
        lists.find_list(conn, DEV) or lists.create_list(conn, DEV, {"created_at": utc_now()})
        assert live_ingest.store(conn, DEV, email).new


def joined(engine, message_id: str) -> list[str]:
    with engine.connect() as conn:
        dev = lists.find_list(conn, DEV).id
        return [row.message_id for row in public_inbox.references_thread(conn, dev, message_id)]


def threads_by_key(engine) -> dict[str, list[str]]:
    with engine.connect() as conn:
        return {
            row.message_id: row.thread_id for row in conn.execute(sa.select(emails.c.message_id, emails.c.thread_id))
        }


def test_references_join_through_every_entry_and_messages_never_received(engine):
    """public-inbox's `tid`: B names A but answers a message never received (its HyperKitty parent),
    C names only that one: one thread of A, B and C; D names none of them."""
    arrive(engine, "a@x")
    arrive(engine, "b@x", "References: <a@x> <gone@x>", reply_to="gone@x")
    arrive(engine, "c@x", "References: <gone@x>")
    arrive(engine, "d@x")
    hyperkitty = threads_by_key(engine)
    assert len({hyperkitty[key] for key in ("a@x", "b@x", "c@x")}) == 3  # three threads there
    for message_id in ("a@x", "b@x", "c@x", "gone@x"):
        assert joined(engine, message_id) == ["a@x", "b@x", "c@x"]
    assert joined(engine, "d@x") == ["d@x"]


def test_topics_and_newest(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org").id
        topics = public_inbox.topics(conn, [dev], 2, 0)
        assert [row.message_id for row in topics] == [MAIL["H"].message_id, MAIL["F"].message_id]
        assert [row.message_id for row in public_inbox.topics(conn, [dev], 2, 2)] == [
            MAIL["G"].message_id,
            MAIL["E"].message_id,
        ]
        assert [row.message_id for row in public_inbox.newest(conn, [dev], 2)] == [
            MAIL["H"].message_id,
            MAIL["G"].message_id,
        ]
        found = public_inbox.find_message(conn, [dev], MAIL["C"].message_id)
        (row,) = public_inbox.message_rows(conn, [found.id])
        assert row.content == MAIL["C"].content and row.data is None  # no source kept: rebuilt when asked
        assert public_inbox.message_rows(conn, []) == []
