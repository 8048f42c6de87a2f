"""store/sitemap.py on SQLite and PostgreSQL, over the hand-built archive: expected values come from
the fixture's mails (api_fixtures.py), computed here without the store."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from sathub.archive.store.lists import find_list
from sathub.archive.store.sitemap import crawlable_lists, list_state, month_entries, months_with_newest
from sathub.db.engines import connect
from tests.archive.api_fixtures import MAILS, THREADS, seed_archive

DEV = "dev@example.org"


def list_id(conn, name: str) -> int:
    return find_list(conn, name).id


def test_the_crawlable_lists_are_those_not_private_and_say_which_have_mail(engine):
    seed_archive(engine)
    with engine.connect() as conn:
        rows = [tuple(row) for row in crawlable_lists(conn)]
    assert rows == [(DEV, True), ("other@example.org", True), ("quiet@example.org", False)]


def test_a_lists_state_is_its_count_and_newest_id(engine):
    ids = seed_archive(engine)
    with engine.connect() as conn:
        state = list_state(conn, list_id(conn, DEV))
        quiet = list_state(conn, list_id(conn, "quiet@example.org"))
    dev_ids = [ids[mail.key] for mail in MAILS if mail.list_name == DEV]
    assert tuple(state) == (len(dev_ids), max(dev_ids))
    assert tuple(quiet) == (0, None)


def test_the_months_with_mail_carry_their_count_and_newest_date_newest_first(engine):
    seed_archive(engine)
    expected: dict[tuple[int, int], list[datetime]] = {}
    for mail in MAILS:
        if mail.list_name == DEV:
            expected.setdefault((mail.date.year, mail.date.month), []).append(mail.date)
    with engine.connect() as conn:
        months = months_with_newest(conn, list_id(conn, DEV))
    assert months == [
        (year, month, len(dates), max(dates)) for (year, month), dates in sorted(expected.items(), reverse=True)
    ]


def test_a_months_entries_come_in_index_order_in_chunks_within_the_window(engine):
    ids = seed_archive(engine)
    january = sorted((mail for mail in MAILS if mail.list_name == DEV and mail.date.month == 1), key=lambda m: m.date)
    with engine.connect() as conn:
        dev = list_id(conn, DEV)
    month = (datetime(2021, 1, 1), datetime(2021, 2, 1))
    for skip, take in ((0, 4), (1, 2), (3, 5), (4, 1)):
        chunks = list(month_entries(partial(connect, engine), dev, month, skip, take, 1))
        assert all(len(chunk) == 1 for chunk in chunks)
        rows = [row for chunk in chunks for row in chunk]
        assert [row.id for row in rows] == [ids[mail.key] for mail in january[skip : skip + take]]
    rows = next(month_entries(partial(connect, engine), dev, month, 0, 10, 10))
    root = next(mail for mail in MAILS if mail.key == "A")
    newest = max(mail.date for mail in MAILS if mail.key in THREADS["A"])
    assert [(row.started_thread, row.thread_newest) for row in rows] == [(root.hash, newest)] + [(None, None)] * 3
