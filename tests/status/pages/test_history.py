"""A satellite's history: the page's 30-day strip (the feed's entry times: tests/status/notify/test_atom.py)."""

from datetime import date

from sathub.status import grid
from sathub.status.pages import history
from tests.status.pages.grid_reports import TODAY


def test_history_strip_places_blocks_by_day_and_hour_and_colours_them():
    strip = history.build_strip(
        TODAY,
        [
            (TODAY, 9, "Heard", 2),
            (TODAY, 8, "Not Heard", 1),
            (date(2026, 4, 24), 0, "Telemetry Only", 1),
            (date(2026, 4, 23), 0, "Heard", 1),
        ],
    )
    assert strip.reported_blocks == 2
    oldest, newest = strip.squares
    assert (oldest.x, oldest.y, oldest.state) == (history.LABEL_WIDTH, 0, grid.TELEMETRY)
    assert (newest.x, newest.y, newest.state) == (history.LABEL_WIDTH + 29 * history.CELL, 4 * history.CELL, grid.HEARD)
    assert newest.title == "May 23, 08:00-09:59 UTC: Sat/Mode Active (3 reports)"
