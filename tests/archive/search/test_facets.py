"""Facets (archive/search/facets.py, migration 0015): the words of a date range are exactly the
dates in it, held to the words the migration's SQL makes of a stored date; and a word of text is
asked of the text columns alone when it could be mistaken for a facet."""

import importlib
import sqlite3
from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.dialects import sqlite as sqlite_dialect

from sathub.archive.search.facets import could_be_facets, date_words, list_word

migration = importlib.import_module("sathub.migrations.versions.0015_search_facets")
STORED = sqlite_dialect.DATETIME().bind_processor(sqlite_dialect.dialect())  # a date's text, stored


def stored_facets(list_id: int, moment: datetime) -> set[str]:
    """The facets the migration's view gives an email of `list_id` dated `moment`, as SQLite
    computes them from the date's text as SQLAlchemy stores it."""
    with sqlite3.connect(":memory:") as conn:
        conn.execute("CREATE TABLE emails (list_id INTEGER, date TEXT)")
        conn.execute("INSERT INTO emails VALUES (?, ?)", (list_id, STORED(moment)))
        (text,) = conn.execute(f"SELECT {migration.FACETS} FROM emails e").fetchone()
    return set(text.split())


days = st.dates(min_value=datetime(1, 1, 1).date(), max_value=datetime(9999, 12, 31).date())
near = st.integers(min_value=-800, max_value=800)


@given(days, st.one_of(st.none(), days), st.one_of(st.none(), days), st.integers(0, 86_399))
def test_a_date_is_in_a_range_exactly_when_its_facets_meet_the_ranges_words(day, start, end, second):
    if start and end and start >= end:
        start, end = end, start
    if start == end and start is not None:
        end = None
    moment = datetime.combine(day, datetime.min.time()) + timedelta(seconds=second)
    low = datetime.combine(start, datetime.min.time()) if start else None
    high = datetime.combine(end, datetime.min.time()) if end else None
    inside = (low is None or moment >= low) and (high is None or moment < high)
    assert bool(stored_facets(3, moment) & set(date_words(low, high))) == inside


@given(days, near, near)
def test_ranges_near_a_date_too(day, before, after):
    """Bounds a few days, months or years around the date, where the tiling's edges are."""
    moment = datetime.combine(day, datetime.min.time())
    # The bounds clamped to the dates Python has (year 1 to 9999), as a reader's range would be.
    try:
        low = moment + timedelta(days=min(before, after))
    except OverflowError:
        low = datetime(1, 1, 1)
    try:
        high = moment + timedelta(days=max(before, after) + 1)
    except OverflowError:
        high = None
    inside = moment >= low and (high is None or moment < high)
    assert bool(stored_facets(3, moment) & set(date_words(low, high))) == inside


def test_the_words_of_a_range_are_few():
    assert date_words(datetime(2010, 1, 1), datetime(2011, 1, 1)) == ["y2010"]
    assert date_words(datetime(2010, 3, 30), datetime(2010, 5, 2)) == ["d20100330", "d20100331", "m201004", "d20100501"]
    assert date_words(None, datetime(2010, 7, 1))[-7:] == ["x200", *(f"m20100{m}" for m in range(1, 7))]
    assert len(date_words(datetime(1987, 6, 5), None)) < 150


def test_the_list_and_the_date_are_facets_of_an_email():
    assert stored_facets(17, datetime(2010, 3, 15, 12, 30)) == {
        list_word(17),
        "c20",
        "x201",
        "y2010",
        "m201003",
        "d20100315",
    }


@pytest.mark.parametrize(
    ("words", "prefix", "could"),
    [
        (("gpsd",), False, False),
        (("l3",), False, True),
        (("y2010",), False, True),
        (("d20100315",), False, True),
        (("l3", "cache"), False, False),
        (("l3", "c20"), False, True),
        (("y20",), True, True),
        (("d",), True, True),
        (("da",), True, False),
        (("2010",), False, False),
    ],
)
def test_words_that_could_be_facets(words, prefix, could):
    assert could_be_facets(words, prefix) is could


def test_bounds_are_whole_days():
    with pytest.raises(ValueError, match="whole days"):
        date_words(datetime(2010, 1, 1, 12), None)
