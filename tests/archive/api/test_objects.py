"""The JSON objects of the archive API (sathub.archive.api.objects), without a database: the date
form and the next/previous threads of a run, per spec/archive-api.md and archive-more.md."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace

from sathub.archive.api.objects import api_date, page_neighbours


def test_dates_are_utc_seconds_with_a_z():
    assert api_date(datetime(2021, 1, 2, 3, 4, 5, 678901)) == "2021-01-02T03:04:05Z"


def thread(thread_id: str, day: int):
    return SimpleNamespace(thread_id=thread_id, date_active=datetime(2021, 1, day))


def test_the_neighbours_of_a_run_are_the_first_threads_of_the_adjacent_dates():
    # Newest first: a on the 9th; b and c tie on the 8th; d on the 7th. Beyond the run, `z` is
    # newer and `y` older.
    run = [thread("a", 9), thread("b", 8), thread("c", 8), thread("d", 7)]
    around = {"newer": "z", "older": "y"}
    assert page_neighbours(run, around) == [("z", "b"), ("a", "d"), ("a", "d"), ("b", "y")]


def test_a_run_that_starts_inside_a_date_group_takes_its_true_first():
    run = [thread("c", 8), thread("d", 7)]  # b, the first of the 8th, is on the page before
    assert page_neighbours(run, {"newer": "a", "newest_first": "b"}) == [("a", "d"), ("b", None)]
