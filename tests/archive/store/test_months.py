"""The months of a list (sathub.archive.store.months) on the hand-built archive of api_fixtures,
whose dev list archived A–D in January 2021, E in February, F and G on 1 March, H on 1 April; both
backends (each has its own statement for the months with mail)."""

from __future__ import annotations

from datetime import datetime

from sathub.archive.store import lists, months
from tests.archive.api_fixtures import MAIL


def test_the_months_with_mail_newest_first_with_their_counts(engine, archive):
    with engine.connect() as conn:
        dev, quiet = lists.find_list(conn, "dev@example.org"), lists.find_list(conn, "quiet@example.org")
        assert months.months_with_mail(conn, dev.id) == [(2021, 4, 1), (2021, 3, 2), (2021, 2, 1), (2021, 1, 4)]
        assert months.months_with_mail(conn, quiet.id) == []


def test_the_threads_of_a_month(engine, archive):
    with engine.connect() as conn:
        dev = lists.find_list(conn, "dev@example.org")
        [welcome] = months.month_threads(conn, dev.id, datetime(2021, 1, 1), datetime(2021, 2, 1))
        assert (welcome.thread_id, welcome.subject, welcome.emails_count) == (MAIL["A"].hash, "[dev] Welcome", 4)
        assert (welcome.in_month, welcome.last_in_month, welcome.starter_name) == (4, MAIL["D"].date, "Alice Liddell")
        # F and G: the same last date; the thread ids decide, as on every page.
        march = months.month_threads(conn, dev.id, datetime(2021, 3, 1), datetime(2021, 4, 1))
        assert [row.thread_id for row in march] == sorted([MAIL["F"].hash, MAIL["G"].hash])
        assert months.month_threads(conn, dev.id, datetime(2020, 1, 1), datetime(2020, 2, 1)) == []


def test_the_dates_around_a_month_and_the_newest(engine, archive):
    with engine.connect() as conn:
        dev, quiet = lists.find_list(conn, "dev@example.org"), lists.find_list(conn, "quiet@example.org")
        february = months.mail_around(conn, dev.id, datetime(2021, 2, 1), datetime(2021, 3, 1))
        assert (february.before, february.after) == (MAIL["D"].date, MAIL["F"].date)
        january = months.mail_around(conn, dev.id, datetime(2021, 1, 1), datetime(2021, 2, 1))
        assert (january.before, january.after) == (None, MAIL["E"].date)
        assert months.newest_archived(conn, dev.id) == MAIL["H"].date
        assert months.newest_archived(conn, quiet.id) is None
