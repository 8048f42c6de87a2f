"""The status page's grid of the reports themselves (status-api.md section 7): each satellite's
row of two-hour blocks holding their reports, most recently stored first, with the tooltips, day
labels and callsign list the page prints; the state of a block is the core's rule (status/grid.py).
No I/O: tested in tests/status/pages/test_report_grid.py."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import NamedTuple

from sathub.status.grid import BLOCKS_PER_DAY, DAYS, Counts, State, block_day, block_hours, block_state, first_columns
from sathub.status.rules import period_label


def day_label(day: date) -> str:
    """PHP date('M j'): 'May 23', 'Jun 1'."""
    return f"{day:%b} {day.day}"


def day_headers(today: date) -> list[tuple[str, bool]]:
    """(label, dark) per day, today first; the first, third and fifth days are dark."""
    return [(day_label(today - timedelta(days=n)), n % 2 == 0) for n in range(DAYS)]


class Report(NamedTuple):
    """One stored report, in the column order of store.reports.grid_window (a tuple: cheap to build
    by the thousand)."""

    id: int
    name: str
    day: date
    hour: int
    period: int
    callsign: str
    report: str
    grid_square: str | None

    def tooltip_lines(self) -> tuple[str, ...]:
        """The tooltip of one report: value, callsign, grid (omitted when empty), day, time."""
        time = f"{self.hour}{period_label(self.period)} UTC"
        if self.grid_square:
            return self.report, self.callsign, self.grid_square, self.day.isoformat(), time
        return self.report, self.callsign, self.day.isoformat(), time


@dataclass
class Block:
    """The reports of one satellite in one two-hour block, most recently stored first."""

    name: str
    column: int
    reports: list[Report] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        """'a' + the id of the block's newest report: upstream's tooltip key, kept for scrapers."""
        return f"a{self.reports[0].id}"

    @property
    def look(self) -> tuple[State, str]:
        return block_state(Counts.of(r.report for r in self.reports))


@dataclass
class Row:
    name: str
    cells: list[Block | None]

    def blocks(self) -> list[Block]:
        return [cell for cell in self.cells if cell is not None]


@dataclass
class Grid:
    today: date
    rows: list[Row]
    callsigns: list[str]
    days: int = DAYS

    def blocks(self) -> list[Block]:
        return [block for row in self.rows for block in row.blocks()]


def build_grid(today: date, reports: Iterable[Report], days: int = DAYS) -> Grid:
    """The grid of the reports, given newest stored first (id descending), over `days` days (the
    status page's six): the rows and looks grid.count_grid gives /api/v2/status from the hourly
    counts, by the same column rule (grid.column_of) and state rule."""
    columns = days * BLOCKS_PER_DAY
    rows: dict[str, Row] = {}
    # Per callsign, how many hours ago it was last heard (0 = today 23:00): a plain int to
    # compare, since this loop runs once per report of the window.
    heard_ago: dict[str, int] = {}
    first_column = first_columns(today, days)
    for report in reports:
        base = first_column.get(report.day)
        hour = report.hour
        if base is None or not 0 <= hour <= 23:
            continue
        name = report.name
        row = rows.get(name)
        if row is None:
            row = rows[name] = Row(name, [None] * columns)
        column = base + (23 - hour) // 2  # column_of's rule, inlined: this runs once per report
        block = row.cells[column]
        if block is None:
            block = row.cells[column] = Block(name, column)
        block.reports.append(report)
        callsign = report.callsign.upper()
        if callsign and callsign != "TEST":
            ago = base * 2 + 23 - hour  # base counts 12 blocks a day, so base * 2 hours
            if ago < heard_ago.get(callsign, columns * 2):
                heard_ago[callsign] = ago
    ordered = sorted(rows.values(), key=lambda row: (row.name.lower(), row.name))
    callsigns = sorted(heard_ago, key=lambda c: (heard_ago[c], c))
    return Grid(today, ordered, callsigns, days)


def block_time(today: date, column: int) -> str:
    """'May 23, 08:00-09:59 UTC' for a column."""
    first, last = block_hours(column)
    return f"{day_label(block_day(today, column))}, {first:02d}:00-{last:02d}:59 UTC"


def latest_state(newest_first: Sequence) -> tuple[State, str] | None:
    """The state of the two-hour block of the newest report (rows with day, hour, report)."""
    if not newest_first:
        return None
    newest = newest_first[0]
    same_block = [row.report for row in newest_first if row.day == newest.day and row.hour // 2 == newest.hour // 2]
    return block_state(Counts.of(same_block))
