"""The status page's grid of reports (pages/report_grid.py, status-api.md section 7): columns,
rows, blocks, tooltips, callsigns and day labels. The state rule itself: tests/status/test_grid.py."""

from datetime import date
from types import SimpleNamespace

import pytest

from sathub.status import grid
from sathub.status.pages import report_grid
from sathub.status.pages.report_grid import build_grid
from tests.status.pages.grid_reports import TODAY, report


@pytest.mark.parametrize(
    "day, hour, column",
    [
        (TODAY, 23, 0),
        (TODAY, 22, 0),
        (TODAY, 21, 1),
        (TODAY, 1, 11),
        (TODAY, 0, 11),
        (date(2026, 5, 22), 23, 12),
        (date(2026, 5, 18), 0, 71),
    ],
)
def test_columns_count_two_hour_blocks_from_today_late_evening(day, hour, column):
    (row,) = build_grid(TODAY, [report(1, day=day, hour=hour)]).rows
    assert [block.column for block in row.blocks()] == [column]


@pytest.mark.parametrize("day, hour", [(date(2026, 5, 17), 23), (date(2026, 5, 24), 0), (TODAY, 24), (TODAY, -1)])
def test_reports_outside_the_six_days_or_at_impossible_hours_have_no_column(day, hour):
    assert build_grid(TODAY, [report(1, day=day, hour=hour)]).rows == []


def test_build_grid_groups_reports_by_name_and_block_newest_stored_first():
    rows = [
        report(5, hour=9, value="Not Heard", callsign="K1ABC"),
        report(4, hour=8),
        report(3, name="fo-29", hour=1),
        report(2, name="FO-29", day=date(2026, 5, 22), hour=23),
        report(1, day=date(2026, 5, 1)),
    ]
    result = build_grid(TODAY, rows)
    assert [row.name for row in result.rows] == ["AO-91", "FO-29", "fo-29"]
    block = result.rows[0].cells[7]
    assert [r.id for r in block.reports] == [5, 4]
    assert block.anchor == "a5"
    assert block.look == (grid.CONFLICTING, "_")
    assert [i for i, cell in enumerate(result.rows[0].cells) if cell] == [7]
    assert [i for i, cell in enumerate(result.rows[1].cells) if cell] == [12]


def test_reports_from_is_ordered_by_most_recent_report_and_skips_test_and_empty():
    rows = [
        report(6, callsign="test"),
        report(5, callsign="", hour=23),
        report(4, callsign="dl1abc", day=date(2026, 5, 20), hour=5),
        report(3, callsign="K1ABC", hour=3),
        report(2, callsign="w1aw", hour=3),
        report(1, callsign="W1AW", hour=20),
    ]
    assert build_grid(TODAY, rows).callsigns == ["W1AW", "K1ABC", "DL1ABC"]


def test_day_headers_start_today_and_alternate_dark_and_light():
    assert report_grid.day_headers(TODAY) == [
        ("May 23", True),
        ("May 22", False),
        ("May 21", True),
        ("May 20", False),
        ("May 19", True),
        ("May 18", False),
    ]


def test_block_time_names_the_day_and_hours_of_a_column():
    assert report_grid.block_time(TODAY, 0) == "May 23, 22:00-23:59 UTC"
    assert report_grid.block_time(TODAY, 13) == "May 22, 20:00-21:59 UTC"


def test_tooltip_lines_omit_an_empty_grid_square():
    # section 7: value, callsign, grid square (omitted when empty), day, hour + period label + " UTC"
    assert report(1, hour=8, period=1).tooltip_lines() == ("Heard", "W1AW", "FN42", "2026-05-23", "8:16-:30 UTC")
    without_grid = report(1, hour=8, period=3, grid_square="")
    assert without_grid.tooltip_lines() == ("Heard", "W1AW", "2026-05-23", "8:46-:59 UTC")
    assert report(1, period=7).tooltip_lines()[-1] == "8:?? UTC"  # any other period (5.4)


def test_the_latest_state_is_the_state_of_the_newest_reports_block():
    def row(hour, value):
        return SimpleNamespace(day=TODAY, hour=hour, report=value)

    # 08:00-09:59 holds the newest report: one Heard, two Not Heard; the 07:00 report is another block
    newest_first = [row(9, "Heard"), row(8, "Not Heard"), row(8, "Not Heard"), row(7, "Heard"), row(7, "Heard")]
    assert report_grid.latest_state(newest_first) == (grid.NOT_HEARD, "2")
    assert report_grid.latest_state([]) is None
