"""Interface A's status rule (status/grid.py, status-api.md section 7): the state of a block's
counts, the column of a report's hour, the time span of a column, and grid.count_grid (what
/api/v2/status is drawn from: hourly counts) giving the same rows, cells and looks as the page's
pages/report_grid.build_grid (every report) for the same reports."""

import random
from collections import Counter
from datetime import date, timedelta

import pytest

from sathub.status import grid
from sathub.status.grid import Counts, block_state
from sathub.status.pages.report_grid import build_grid
from tests.status.pages.grid_reports import TODAY, report

VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active", "Beacon?")


@pytest.mark.parametrize(
    "counts, colour, text",
    [
        (Counts(heard=2), "#648fff", "2"),
        (Counts(not_heard=3, heard=1), "#dc267f", "3"),
        (Counts(telemetry=2, heard=1, not_heard=1), "#ffb000", "2"),
        (Counts(heard=1, not_heard=1), "#fe6100", "_"),
        (Counts(heard=1, telemetry=1, not_heard=1), "#fe6100", "_"),
        (Counts(crew=1, heard=2, not_heard=5), "#785ef0", "3"),
        (Counts(), "#C0C0C0", " "),
    ],
)
def test_block_state_follows_the_first_matching_rule(counts, colour, text):
    state, shown = block_state(counts)
    assert (state.colour, shown) == (colour, text)


def test_counts_of_report_values_ignore_values_none_of_the_four():
    values = ["Heard", "Crew Active", "Heard", "Beacon?", "Not Heard", "Telemetry Only"]
    assert Counts.of(values) == Counts(heard=2, telemetry=1, not_heard=1, crew=1)
    assert Counts.of(["Beacon?"]) == Counts()


def test_every_state_has_its_own_letter_and_pattern_key():
    states = [*grid.LEGEND, grid.UNKNOWN]
    assert len({s.letter for s in states}) == len({s.key for s in states}) == len(states)


def test_the_column_rule():
    # (today - day) * 12 + (23 - hour) // 2, within the grid's days and hours 0-23 (section 7)
    first = grid.first_columns(TODAY, 2)
    assert grid.column_of(first, TODAY, 23) == 0 and grid.column_of(first, TODAY, 22) == 0
    assert grid.column_of(first, TODAY, 0) == 11
    assert grid.column_of(first, TODAY - timedelta(days=1), 23) == 12
    assert grid.column_of(first, TODAY - timedelta(days=2), 12) is None
    assert grid.column_of(first, TODAY, 24) is None and grid.column_of(first, TODAY, -1) is None


@pytest.mark.parametrize(
    "column, day, hours",
    [(0, TODAY, (22, 23)), (11, TODAY, (0, 1)), (12, date(2026, 5, 22), (22, 23)), (71, date(2026, 5, 18), (0, 1))],
)
def test_a_column_is_a_two_hour_block_of_one_day(column, day, hours):
    assert (grid.block_day(TODAY, column), grid.block_hours(column)) == (day, hours)


def test_the_page_shows_six_days_of_twelve_blocks():
    assert grid.COLUMNS == 72
    assert grid.first_day(TODAY) == date(2026, 5, 18) and grid.first_day(TODAY, 1) == TODAY


def random_reports(seed: int, count: int = 600):
    rng = random.Random(seed)
    return [
        report(
            id=count - n,
            day=TODAY - timedelta(days=rng.randrange(9)),
            hour=rng.choice([*range(24), 24, -1]),  # two impossible hours, as old rows hold
            period=rng.randrange(4),
            callsign=f"W{rng.randrange(5)}AW",
            value=rng.choices(VALUES, weights=[6, 3, 3, 1, 1])[0],
            name=rng.choice(["AO-91", "ao-91", "FO-29", "ISS-FM", "Ω-1"]),
        )
        for n in range(count)
    ]


def hourly(reports):
    counts = Counter((r.day, r.hour, r.name, r.report) for r in reports)
    return [(*key, count) for key, count in counts.items()]


def test_the_counted_grid_and_the_pages_grid_agree_cell_by_cell():
    for seed in range(5):
        for days in (1, 6, 30):
            reports = random_reports(seed)
            page = build_grid(TODAY, reports, days)
            counted = grid.count_grid(TODAY, hourly(reports), days)
            assert [name for name, _ in counted] == [row.name for row in page.rows]
            for (_, cells), row in zip(counted, page.rows, strict=True):
                assert len(cells) == len(row.cells) == days * grid.BLOCKS_PER_DAY
                for cell, block in zip(cells, row.cells, strict=True):
                    assert (cell is None) == (block is None)
                    if block is not None:
                        assert cell.look == block.look
                        assert sum(cell.totals.values()) == len(block.reports)
                        assert cell.latest == max((r.day, r.hour) for r in block.reports)


def test_a_counted_cell_sums_its_hours_and_keeps_the_newest():
    hourly_counts = [
        (TODAY, 9, "AO-91", "Heard", 2),
        (TODAY, 8, "AO-91", "Not Heard", 1),
        (TODAY, 8, "AO-91", "Heard", 1),
        (TODAY, 9, "AO-91", "Crew Active", 0),  # an hour whose count fell to 0: no report
    ]
    ((name, cells),) = grid.count_grid(TODAY, hourly_counts)
    # 08:00-09:59 today is column (23 - 8) // 2 = 7
    assert name == "AO-91" and [column for column, cell in enumerate(cells) if cell] == [7]
    assert cells[7].totals == {"Heard": 3, "Not Heard": 1}
    assert cells[7].latest == (TODAY, 9)
    assert cells[7].look == (grid.HEARD, "3")
