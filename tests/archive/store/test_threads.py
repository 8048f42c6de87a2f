"""Reading threads (sathub.archive.store.threads) on the hand-built archive of api_fixtures, both
backends: a list's threads newest activity first (ties by thread id), one thread, its
participants, the most active of a period."""

from __future__ import annotations

from datetime import datetime

from sathub.archive.store import lists, threads
from sathub.archive.store.listing import Page
from tests.archive.api_fixtures import MAIL

# The dev list's threads by date_active (their last arrival's date): H, then F and G (a tie), E, A.
TIE = sorted([MAIL["F"].hash, MAIL["G"].hash])
NEWEST_FIRST = [MAIL["H"].hash, *TIE, MAIL["E"].hash, MAIL["A"].hash]


def test_a_lists_threads_newest_activity_first(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        assert [row.thread_id for row in threads.list_threads(conn, dev.id, None)] == NEWEST_FIRST
        assert [row.thread_id for row in threads.list_threads(conn, dev.id, Page(2, 1))] == TIE
        assert threads.count_threads(conn, dev.id) == 5


def test_one_thread_and_its_participants_in_order_of_arrival(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        welcome = threads.find_thread(conn, dev.id, MAIL["A"].hash)
        assert (welcome.subject, welcome.date_active, welcome.emails_count) == ("[dev] Welcome", MAIL["D"].date, 4)
        assert threads.find_thread(conn, dev.id, MAIL["P"].hash) is None  # a thread of another list
        # A (alice), B (bob, no display name), C (zoë); D is alice again.
        assert [tuple(row) for row in threads.participants(conn, welcome.id)] == [
            ("alice@example.org", "Alice Liddell"),
            ("bob@example.net", "bob@example.net"),
            ("zoe@example.com", "Zoë Ünïcode"),
        ]


def test_the_most_active_threads_since_a_date(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        since_january = threads.most_active_threads(conn, dev.id, datetime(2021, 1, 1), 2)
        assert [row.thread_id for row in since_january] == [MAIL["A"].hash, MAIL["H"].hash]  # 4 emails; then the latest
        since_march = threads.most_active_threads(conn, dev.id, datetime(2021, 3, 1), 10)
        assert [row.thread_id for row in since_march] == [MAIL["H"].hash, *TIE]
