"""The feeds' SQL (sathub.archive.store.feeds) on the hand-built archive of api_fixtures, both
backends: the newest emails with their text, newest archived first (equal dates: the later
arrival first), and never an email of the private list."""

from __future__ import annotations

from sathub.archive.store import emails, feeds, lists, threads
from tests.archive.api_fixtures import MAIL


def keys(rows) -> str:
    by_hash = {mail.hash: key for key, mail in MAIL.items() if not mail.copy_of}
    return "".join("X" if row.list_name == "other@example.org" else by_hash[row.message_id_hash] for row in rows)


def test_a_lists_and_a_threads_newest(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        assert keys(feeds.list_items(conn, dev.id, 3)) == "HGF"
        welcome = threads.find_thread(conn, dev.id, MAIL["A"].hash)
        newest = feeds.thread_items(conn, welcome.id, 2)
        assert keys(newest) == "DB" and newest[0].thread_hash == MAIL["A"].hash
        assert newest[0].content == MAIL["D"].content


def test_a_senders_newest_leave_the_private_list_out(engine, archive):
    with engine.connect() as conn:
        alice = emails.find_sender(conn, "alice@example.org")
        assert keys(feeds.sender_items(conn, alice.id, 10)) == "FDXA"  # not P


def test_emails_by_id_in_the_order_given_without_the_private_list(engine, archive):
    with engine.connect() as conn:
        assert keys(feeds.items_by_ids(conn, [archive["E"], archive["P"], archive["A"]])) == "EA"
        assert feeds.items_by_ids(conn, []) == []
