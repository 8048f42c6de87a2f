"""grid.count_grid (what /api/v2/status is drawn from: hourly counts) and grid.build_grid (the
page: every report) give the same rows, cells and looks for the same reports, by one rule."""

import random
from collections import Counter
from datetime import timedelta

from sathub.status.pages import grid
from tests.status.pages.grid_reports import TODAY, report

VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active", "Beacon?")


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


def test_both_grids_agree_cell_by_cell():
    for seed in range(5):
        for days in (1, 6, 30):
            reports = random_reports(seed)
            page = grid.build_grid(TODAY, reports, days)
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


def test_the_column_rule():
    first = grid.first_columns(TODAY, 2)
    assert grid.column_of(first, TODAY, 23) == 0 and grid.column_of(first, TODAY, 22) == 0
    assert grid.column_of(first, TODAY, 0) == 11
    assert grid.column_of(first, TODAY - timedelta(days=1), 23) == 12
    assert grid.column_of(first, TODAY - timedelta(days=2), 12) is None
    assert grid.column_of(first, TODAY, 24) is None and grid.column_of(first, TODAY, -1) is None
