"""Interface A's status rule (status-api.md section 7), shared by the status page, /api/v2 and the
stream: which two-hour block a report falls in, what state (colour, letter, text) a block's
reports make, and the grid counted from the hourly counts. Pure, no I/O: tested in
tests/status/test_grid.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

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
    row order: the page's rows and looks (pages/report_grid.build_grid), from a few rows per hour
    instead of every report (what /api/v2/status serves, with no tooltip to print)."""
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
