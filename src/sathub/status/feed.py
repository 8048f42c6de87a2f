"""Pure parts of a satellite's Atom feed (RFC 4287): its size and its entries' times."""

from __future__ import annotations

from datetime import date

ENTRIES = 50
# First minute of each quarter: the earliest instant a report of that quarter can describe, so an
# entry is never dated in the future.
_QUARTER_START = {0: 0, 1: 16, 2: 31, 3: 46}


def entry_time(day: date, hour: int, period: int) -> str:
    return f"{day.isoformat()}T{hour:02d}:{_QUARTER_START.get(period, 0):02d}:00Z"

