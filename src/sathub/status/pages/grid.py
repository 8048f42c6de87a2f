"""Pure rules of the status page grid (status-api.md section 7): which two-hour block a report
falls in, what colour a block's reports make, and the rows, tooltips and callsign list built from
one query's worth of report rows. No I/O: tested in tests/status/pages/test_grid.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import NamedTuple

from sathub.status.rules import PERIOD_LABELS

DAYS = 6
BLOCKS_PER_DAY = 12
COLUMNS = DAYS * BLOCKS_PER_DAY


@dataclass(frozen=True)
class State:
    """How a block with reports looks: the colour scrapers read, and the letter and CSS pattern
    that make the state readable without colour."""

    key: str
    colour: str
    letter: str
    label: str


HEARD = State("heard", "#648fff", "H", "Sat/Mode Active")
TELEMETRY = State("telemetry", "#ffb000", "T", "TLM/Beacon only")
NOT_HEARD = State("not-heard", "#dc267f", "N", "Not Heard")
CONFLICTING = State("conflicting", "#fe6100", "?", "Conflicting reports")
CREW = State("crew", "#785ef0", "C", "ISS Crew Active")
# Reports whose value is none of the four (old imported rows): upstream's grey with a blank text.
UNKNOWN = State("unknown", "#C0C0C0", "-", "Unknown report value")
LEGEND = (HEARD, TELEMETRY, NOT_HEARD, CONFLICTING, CREW)


@dataclass(frozen=True)
class Counts:
    heard: int = 0
    telemetry: int = 0
    not_heard: int = 0
    crew: int = 0

    @classmethod
    def of(cls, reports: Iterable[str]) -> Counts:
        return cls.of_totals(Counter(reports))

    @classmethod
    def of_totals(cls, totals: Mapping[str, int]) -> Counts:
        """From a count per report value."""
        return cls(
            totals.get("Heard", 0),
            totals.get("Telemetry Only", 0),
            totals.get("Not Heard", 0),
            totals.get("Crew Active", 0),
        )


def block_state(counts: Counts) -> tuple[State, str]:
    """The state and cell text of a block with reports, by the first matching rule of section 7."""
    h, t, n, c = counts.heard, counts.telemetry, counts.not_heard, counts.crew
    if c:
        return CREW, str(c + h)
    if h > n and h > t:
        return HEARD, str(h)
    if n > h and n > t:
        return NOT_HEARD, str(n)
    if t > n and t > h:
        return TELEMETRY, str(t)
    if h + t + n:
        return CONFLICTING, "_"
    return UNKNOWN, " "


def first_day(today: date, days: int = DAYS) -> date:
    """The oldest day a grid of `days` days shows (the status page's: six)."""
    return today - timedelta(days=days - 1)


def block_hours(column: int) -> tuple[int, int]:
    """First and last hour of a column's two-hour block."""
    start = 22 - 2 * (column % BLOCKS_PER_DAY)
    return start, start + 1


def block_day(today: date, column: int) -> date:
    return today - timedelta(days=column // BLOCKS_PER_DAY)


def day_label(day: date) -> str:
    """PHP date('M j'): 'May 23', 'Jun 1'."""
    return f"{day:%b} {day.day}"


def day_headers(today: date) -> list[tuple[str, bool]]:
    """(label, dark) per day, today first; the first, third and fifth days are dark."""
    return [(day_label(today - timedelta(days=n)), n % 2 == 0) for n in range(DAYS)]


def period_label(period: int) -> str:
    return PERIOD_LABELS.get(period, ":??")


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


def first_columns(today: date, days: int = DAYS) -> dict[date, int]:
    """The column of each shown day's 22:00-23:59 block: 0 for today, 12 for yesterday..."""
    return {today - timedelta(days=n): n * BLOCKS_PER_DAY for n in range(days)}


def column_of(first_column: Mapping[date, int], day: date, hour: int) -> int | None:
    """The column of a report's hour (section 7): column 0 is today 22:00-23:59, 11 today
    00:00-01:59, 12 yesterday 22:00-23:59...; None outside the grid's days or for an hour that
    is not 0-23 (old imported rows)."""
    base = first_column.get(day)
    if base is None or not 0 <= hour <= 23:
        return None
    return base + (23 - hour) // 2


@dataclass
class CountedCell:
    """A block known by its counts per report value (the hourly counts), not its reports."""

    totals: dict[str, int] = field(default_factory=dict)
    latest: tuple[date, int] | None = None  # the newest (day, hour) with a report

    @property
    def look(self) -> tuple[State, str]:
        return block_state(Counts.of_totals(self.totals))


CountedRow = tuple[str, list[CountedCell | None]]  # a stored name and its cells


def count_grid(today: date, hourly: Iterable[tuple[date, int, str, str, int]], days: int = DAYS) -> list[CountedRow]:
    """The grid's rows from counts of (day, hour, stored name, report value, count), in the page's
    row order: build_grid's rows and looks, from a few rows per hour instead of every report (what
    /api/v2/status serves, with no tooltip to print)."""
    first_column = first_columns(today, days)
    rows: dict[str, list[CountedCell | None]] = {}
    for day, hour, name, report, count in hourly:
        column = column_of(first_column, day, hour)
        if column is None or count <= 0:
            continue
        cells = rows.get(name)
        if cells is None:
            cells = rows[name] = [None] * (days * BLOCKS_PER_DAY)
        cell = cells[column]
        if cell is None:
            cell = cells[column] = CountedCell()
        cell.totals[report] = cell.totals.get(report, 0) + count
        if cell.latest is None or (day, hour) > cell.latest:
            cell.latest = (day, hour)
    return sorted(rows.items(), key=lambda row: (row[0].lower(), row[0]))


def build_grid(today: date, reports: Iterable[Report], days: int = DAYS) -> Grid:
    """The grid of the reports, given newest stored first (id descending), over `days` days: the
    status page's six, or what /api/v2/status asks for, by the same rule (one rule, one grid)."""
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
