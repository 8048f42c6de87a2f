"""The satellite page's map of where it was heard: the reported Maidenhead locators drawn as an
SVG over the locator fields themselves (no map tiles, no CDN, nothing fetched: the page works
offline). Pure: built from store.report_walk.located_hours rows, tested without a server.

The projection is equirectangular (longitude and latitude in proportion, north up), zoomed to
the fields that hold reports with one field around them, so a satellite heard over one region
shows that region's squares large enough to see. A 6-character subsquare is drawn at least
MIN_SIDE pixels wide, centred on its place, so that it stays visible at any zoom."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sathub.status import grid, locators
from sathub.status.rules import REPORT_VALUES

WIDTH = 720  # pixels of the drawing's width; the height follows the view's proportion
MIN_SIDE = 4.0
FIELD_LON, FIELD_LAT = 20, 10
_LETTERS = "ABCDEFGHIJKLMNOPQR"


@dataclass(frozen=True)
class Square:
    locator: str
    x: float
    y: float
    width: float
    height: float
    state: grid.State
    title: str


@dataclass(frozen=True)
class Field:
    label: str
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class LocatorMap:
    width: int
    height: int
    fields: list[Field]
    squares: list[Square]
    report_count: int

    @property
    def empty(self) -> bool:
        return not self.squares


def _title(locator: str, totals: dict[str, int]) -> str:
    total = sum(totals.values())
    parts = ", ".join(f"{totals[value]} {value}" for value in REPORT_VALUES if totals.get(value))
    return f"{locator}: {total} report{'s' if total != 1 else ''}" + (f" ({parts})" if parts else "")


def build(rows: Iterable) -> LocatorMap:
    """The map of (grid_square, report, latest hour number, report_count) rows
    (store.report_walk.located_hours); locators that are not 4 or 6 characters (old data) are left out."""
    totals: dict[str, dict[str, int]] = {}
    boxes: dict[str, locators.Box] = {}
    for grid_square, report, _latest, count in rows:
        box = locators.box(grid_square or "")
        if box is None:
            continue
        key = grid_square[:2].upper() + grid_square[2:4] + grid_square[4:6].lower()
        boxes[key] = box
        values = totals.setdefault(key, {})
        values[report] = values.get(report, 0) + count
    if not boxes:
        return LocatorMap(WIDTH, WIDTH // 2, _fields(0, 0, 18, 18, WIDTH / 360, 90), [], 0)
    # The fields holding reports, one more on every side, within the world.
    columns = [int((box.west + 180) // FIELD_LON) for box in boxes.values()]
    rows_ = [int((box.south + 90) // FIELD_LAT) for box in boxes.values()]
    first_col, last_col = max(0, min(columns) - 1), min(17, max(columns) + 1)
    first_row, last_row = max(0, min(rows_) - 1), min(17, max(rows_) + 1)
    west = first_col * FIELD_LON - 180
    north = (last_row + 1) * FIELD_LAT - 90
    scale = WIDTH / ((last_col - first_col + 1) * FIELD_LON)
    height = round((last_row - first_row + 1) * FIELD_LAT * scale)
    squares = []
    for key in sorted(boxes, key=lambda k: (len(k), k)):  # subsquares drawn over their squares
        box = boxes[key]
        width, tall = (box.east - box.west) * scale, (box.north - box.south) * scale
        x, y = (box.west - west) * scale, (north - box.north) * scale
        if width < MIN_SIDE:
            x, width = x + width / 2 - MIN_SIDE / 2, MIN_SIDE
        if tall < MIN_SIDE:
            y, tall = y + tall / 2 - MIN_SIDE / 2, MIN_SIDE
        state, _ = grid.block_state(grid.Counts.of_totals(totals[key]))
        squares.append(
            Square(key, round(x, 2), round(y, 2), round(width, 2), round(tall, 2), state, _title(key, totals[key]))
        )
    fields = _fields(first_col, first_row, last_col + 1, last_row + 1, scale, north)
    count = sum(sum(values.values()) for values in totals.values())
    return LocatorMap(WIDTH, height, fields, squares, count)


def _fields(first_col: int, first_row: int, end_col: int, end_row: int, scale: float, north: float) -> list[Field]:
    """The locator fields of the view, labelled (AA at 180 W, 90 S; the first letter eastward)."""
    west = first_col * FIELD_LON - 180
    return [
        Field(
            _LETTERS[col] + _LETTERS[row],
            round((col * FIELD_LON - 180 - west) * scale, 2),
            round((north - ((row + 1) * FIELD_LAT - 90)) * scale, 2),
            round(FIELD_LON * scale, 2),
            round(FIELD_LAT * scale, 2),
        )
        for col in range(first_col, end_col)
        for row in range(first_row, end_row)
    ]
