"""A satellite's Atom feeds (RFC 4287), rendered once for every door that serves them: its newest
reports (the satellite page's /feeds/NAME.atom and /api/v2/satellites/NAME/reports.atom) and its
status changes (/api/v2/satellites/NAME/status.atom). Pure: rows in, a rendered page out.

Each entry's id is a URL that never changes meaning: the satellite page's, with the report's id
(`#report-41`) or the status event's (`#status-1234`). Both ids are given once and never reused
(a replaced report gets a new id; event ids are gap-free and only grow), so a feed reader sees
an entry once, whichever process renders it and however often it asks."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from sathub.status import grid
from sathub.status.notify.changes import StatusChange, stored_time
from sathub.status.records import STATUS_OF_STATE
from sathub.status.rules import period_label
from sathub.status.templating import CachedPage

ATOM = "application/atom+xml; charset=utf-8"
# Entries a feed holds, newest first (the satellite page's feed has always held 50): enough for a
# reader that polls every few minutes to miss nothing; /api/v2/reports and the stream give all.
FEED_ENTRIES = 50
# First minute of each quarter: the earliest instant a report of that quarter can describe, so a
# feed entry is never dated in the future.
_QUARTER_START = {0: 0, 1: 16, 2: 31, 3: 46}
# A status in the words of the status page's legend (grid.LEGEND), by its v2 name.
STATUS_LABELS = {STATUS_OF_STATE[state.key]: state.label for state in (*grid.LEGEND, grid.UNKNOWN)}


def entry_time(day: date, hour: int, period: int) -> str:
    """A report's entry time: the first minute of the report's quarter."""
    return f"{day.isoformat()}T{hour:02d}:{_QUARTER_START.get(period, 0):02d}:00Z"


def _start_of(today: date) -> str:
    # A feed without entries is dated at the start of the day, so that its bytes (and its ETag)
    # change only with its own entries, whichever process renders it and whatever else was written.
    return f"{today.isoformat()}T00:00:00Z"


def reports_feed(site: str, today: date, name: str, entry, rows: Sequence, self_url: str) -> CachedPage:
    """The satellite `name`'s newest reports (rows of store/reports.recent_reports, newest first);
    `entry` is its catalog entry (None: a name only reports are stored under)."""
    return CachedPage.render(
        "feed.atom",
        media_type=ATOM,
        site=site,
        name=name,
        entry=entry,
        reports=rows,
        updated=entry_time(rows[0].day, rows[0].hour, rows[0].period) if rows else _start_of(today),
        self_url=self_url,
        entry_time=entry_time,
        period_label=period_label,
    )


def status_feed(
    site: str, today: date, name: str, display_name: str, changes: Sequence[StatusChange], self_url: str
) -> CachedPage:
    """The satellite `name`'s status changes, newest first (notify/changes.py)."""
    return CachedPage.render(
        "status.atom",
        media_type=ATOM,
        site=site,
        name=name,
        display_name=display_name or name,
        changes=changes,
        updated=stored_time(changes[0].stored_at) if changes else _start_of(today),
        self_url=self_url,
        labels=STATUS_LABELS,
        stored_time=stored_time,
    )
