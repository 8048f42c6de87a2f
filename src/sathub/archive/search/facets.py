"""Facets: an email's list and date as words of the SQLite index (migration 0015), so that a list,
a date range and the leaving out of private lists are asked of FTS5 with the words, and a search
counts and windows its matches from the index alone, never joining each match to `emails`.

The `facets` column of `email_search` holds, for an email of list 17 dated 2010-03-15:
`l17 c20 x201 y2010 m201003 d20100315` (list; century, decade, year, month and day of the date as
stored, UTC). A date range is the few whole centuries, decades, years, months and days that tile it
(`d:2010-03-15..2011-06` is `d20100315 … d20100331 m201004 … m201106`: at most about 150 words,
fewer than 60 for any range of a century or less). The migration builds
the same words in SQL from the stored date's text; tests/archive/search/test_facets.py holds the
two to each other."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta

Day = tuple[int, int, int]
_EARLIEST: Day = (0, 1, 1)  # before any date: an open start; the centuries tile from here
_AFTER_ALL: Day = (10000, 1, 1)  # after any date: an open end
_FACET = re.compile(r"[lcxymd][0-9]+")  # every facet word: a letter, then digits
_FACET_START = re.compile(r"[lcxymd][0-9]*")  # what begins one
# (years a unit spans, its letter, digits of the year it keeps) from the largest.
_YEAR_UNITS = ((100, "c", 2), (10, "x", 3), (1, "y", 4))


def could_be_facets(words: Sequence[str], prefix: bool = False) -> bool:
    """Whether the words (the last a prefix, with `prefix`) could be found among facets: a word of
    text that cannot is asked of the whole index, which is faster than of its text columns."""
    *whole, last = words
    return all(_FACET.fullmatch(word) for word in whole) and bool((_FACET_START if prefix else _FACET).fullmatch(last))


def list_word(list_id: int) -> str:
    return f"l{list_id}"


def date_words(start: datetime | None, end: datetime | None) -> list[str]:
    """The facet words whose emails are exactly those dated in [start, end) (day-aligned bounds,
    as the query parser makes them; either open)."""
    return list(_tile(_day(start) if start else _EARLIEST, _day(end) if end and end != datetime.max else _AFTER_ALL))


def _day(moment: datetime) -> Day:
    if moment.time() != datetime.min.time():
        raise ValueError(f"a date range's bounds are whole days: {moment}")
    return moment.year, moment.month, moment.day


def _tile(cursor: Day, end: Day) -> Iterator[str]:
    """The largest whole units from `cursor` to `end`, in order."""
    while cursor < end:
        year, month, day = cursor
        unit = _whole_years(cursor, end)
        following = (year + month // 12, month % 12 + 1, 1)
        if unit is not None:
            size, letter, digits = unit
            yield f"{letter}{year // size:0{digits}d}"
            cursor = (year + size, 1, 1)
        elif day == 1 and following <= end:
            yield f"m{year:04d}{month:02d}"
            cursor = following
        else:
            yield f"d{year:04d}{month:02d}{day:02d}"
            cursor = _next_day(cursor)


def _whole_years(cursor: Day, end: Day) -> tuple[int, str, int] | None:
    """The largest century, decade or year that begins at `cursor` and ends by `end`, if any."""
    year, month, day = cursor
    if (month, day) != (1, 1):
        return None
    return next((unit for unit in _YEAR_UNITS if year % unit[0] == 0 and (year + unit[0], 1, 1) <= end), None)


def _next_day(day: Day) -> Day:
    try:
        after = date(*day) + timedelta(days=1)
    except OverflowError:  # the last day of year 9999
        return _AFTER_ALL
    return after.year, after.month, after.day
