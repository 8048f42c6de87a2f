"""Pure layout of a satellite's history: its page's strip, one square per two-hour block over the
last 30 days, coloured and patterned by the status grid's rule (grid.block_state). Its Atom feed
is notify/atom.py's."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from sathub.status.grid import BLOCKS_PER_DAY, Counts, State, block_state
from sathub.status.pages.report_grid import day_label

DAYS = 30
CELL = 12  # pixels per square, gap included
LABEL_WIDTH = 44


@dataclass(frozen=True)
class Square:
    x: int
    y: int
    state: State
    title: str


@dataclass(frozen=True)
class Strip:
    width: int
    height: int
    plot_x: int  # where the squares start, right of the hour labels
    squares: list[Square]
    day_labels: list[tuple[int, str]]  # (x, label) every 5 days
    hour_labels: list[tuple[int, str]]  # (y, label) for 00, 06, 12, 18 UTC
    reported_blocks: int


def first_day(today: date) -> date:
    return today - timedelta(days=DAYS - 1)


def build_strip(today: date, counts: Iterable[tuple[date, int, str, int]]) -> Strip:
    """Days run left to right (oldest first), blocks top to bottom (00:00 first); `counts` are
    (day, hour, report value, count) rows."""
    start = first_day(today)
    values: dict[tuple[date, int], Counter] = defaultdict(Counter)
    for day, hour, report, count in counts:
        if start <= day <= today and 0 <= hour <= 23:
            values[day, hour // 2][report] += count
    squares = []
    for (day, block), totals in sorted(values.items()):
        state, _ = block_state(Counts.of_totals(totals))
        total = sum(totals.values())
        x = LABEL_WIDTH + (day - start).days * CELL
        y = block * CELL
        title = (
            f"{day_label(day)}, {2 * block:02d}:00-{2 * block + 1:02d}:59 UTC: {state.label} "
            f"({total} report{'s' if total != 1 else ''})"
        )
        squares.append(Square(x, y, state, title))
    day_labels = [(LABEL_WIDTH + n * CELL, day_label(start + timedelta(days=n))) for n in range(0, DAYS, 5)]
    hour_labels = [(block * CELL, f"{2 * block:02d}h") for block in range(0, BLOCKS_PER_DAY, 3)]
    return Strip(
        width=LABEL_WIDTH + DAYS * CELL,
        height=BLOCKS_PER_DAY * CELL + 16,
        plot_x=LABEL_WIDTH,
        squares=squares,
        day_labels=day_labels,
        hour_labels=hour_labels,
        reported_blocks=len(squares),
    )
