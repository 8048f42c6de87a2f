"""Reading emails (sathub.archive.store.emails) on the hand-built archive of api_fixtures, both
backends: the one statement for the emails of a thread, which the API pages through and the
thread page reads whole with every text; a list's and a sender's, newest archived first."""

from __future__ import annotations

from sathub.archive.store import emails, lists
from sathub.archive.store.listing import Page
from tests.archive.api_fixtures import MAIL

# The Welcome thread in thread order: A, its replies C (dated before B) and B, then D (under B).
WELCOME = ["A", "C", "B", "D"]


def test_the_emails_of_a_thread_in_thread_order_with_or_without_their_text(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        rows = emails.thread_emails(conn, dev, MAIL["A"].hash, None)
        assert [row.message_id_hash for row in rows] == [MAIL[key].hash for key in WELCOME]
        assert [row.parent_hash for row in rows] == [None, MAIL["A"].hash, MAIL["A"].hash, MAIL["B"].hash]
        assert "content" not in rows[0]._fields
        texts = emails.thread_emails(conn, dev, MAIL["A"].hash, None, with_text=True)
        assert [row.content for row in texts] == [MAIL[key].content for key in WELCOME]
        assert [row[: len(emails.EMAIL_ROW)] for row in texts] == [tuple(row) for row in rows]
        page = emails.thread_emails(conn, dev, MAIL["A"].hash, Page(2, 1), with_text=True)
        assert [row.message_id_hash for row in page] == [MAIL["C"].hash, MAIL["B"].hash]
        assert emails.thread_emails(conn, dev, MAIL["P"].hash, None) == []  # the private list's thread
        assert emails.count_thread_emails(conn, dev.id, MAIL["A"].hash) == 4


def test_a_lists_and_a_senders_emails_newest_archived_first(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        # F and G share a date: the later arrival (G) first.
        assert [row.message_id_hash for row in emails.list_emails(conn, dev, None)] == [
            MAIL[key].hash for key in "HGFEDBCA"
        ]
        alice = emails.find_sender(conn, "Alice@Example.org")
        assert emails.find_sender(conn, alice.mailman_id).id == alice.id
        # Alice's P is on the private list: left out. X (other) and A share a date; X arrived later.
        assert [row.message_id_hash for row in emails.sender_emails(conn, alice, None)] == [
            MAIL[key].hash for key in "FDXA"
        ]
        assert emails.count_sender_emails(conn, alice) == 4
        assert emails.find_sender(conn, "nobody@example.org") is None


def test_one_email_with_its_text_and_replies(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        found = emails.find_email(conn, dev, MAIL["C"].hash)
        assert (found.subject, found.content, found.parent_hash) == (
            "Re: [dev] Welcome",
            MAIL["C"].content,
            MAIL["A"].hash,
        )
        welcome = emails.find_email(conn, dev, MAIL["A"].hash)
        assert list(emails.email_children(conn, welcome.id)) == [MAIL["C"].hash, MAIL["B"].hash]  # by date
        assert emails.find_email(conn, dev, MAIL["P"].hash) is None
