"""/api/v2's answers as documents, built from the store's rows by pure functions: the status grid
(from grid.count_grid: the page's rule, the page's numbers), the catalog, and the reported
locators as GeoJSON (a page of reports is records.report_records, the stream's record too)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta

from sathub.status import grid, locators, times
from sathub.status.records import STATUS_OF_STATE
from sathub.status.rules import REPORT_VALUES

EMPTY_COLOUR = "C0C0C0"  # the page's empty cell: bgcolor without '#' (clients.md item 16)


def _counts(totals: Mapping[str, int]) -> dict[str, int]:
    return {value: totals.get(value, 0) for value in REPORT_VALUES}


def _cell_times(today: date, column: int) -> tuple[str, str]:
    first, _ = grid.block_hours(column)
    day = grid.block_day(today, column)
    start = datetime(day.year, day.month, day.day, first)
    return times.iso_z(start), times.iso_z(start + timedelta(hours=2))


def _empty_cell(start: str, end: str) -> dict:
    return {
        "start": start,
        "end": end,
        "status": "none",
        "colour": EMPTY_COLOUR,
        "text": "",
        "counts": _counts({}),
        "report_count": 0,
        "latest_report_time": "",
    }


def _cell(cell: grid.CountedCell, start: str, end: str) -> dict:
    state, text = cell.look
    assert cell.latest is not None, "a counted cell has a report"
    return {
        "start": start,
        "end": end,
        "status": STATUS_OF_STATE[state.key],
        "colour": state.colour,
        "text": text.strip(),
        "counts": _counts(cell.totals),
        "report_count": sum(cell.totals.values()),
        "latest_report_time": times.read_form_time(*cell.latest),
    }


def status_document(today: date, days: int, rows: list[grid.CountedRow], display_names: Mapping[str, str]) -> dict:
    """Every row of grid.count_grid in the page's order, every cell newest first; `display_names`
    by API name lower-cased."""
    columns = days * grid.BLOCKS_PER_DAY
    spans = [_cell_times(today, column) for column in range(columns)]
    data = []
    for name, row in rows:
        cells = [
            _empty_cell(*spans[column]) if cell is None else _cell(cell, *spans[column])
            for column, cell in enumerate(row)
        ]
        latest = max((cell["latest_report_time"] for cell in cells), default="")
        data.append(
            {
                "name": name,
                "display_name": display_names.get(name.lower(), ""),
                "latest_report_time": latest,
                "cells": cells,
            }
        )
    return {
        "data": data,
        "meta": {"count": len(data), "days": days, "cells": columns, "start": spans[-1][0], "end": spans[0][1]},
    }


def satellites_document(entries: Sequence, aliases: Mapping[int, list[str]]) -> dict:
    data = [
        {
            "name": entry.api_name,
            "display_name": entry.display_name,
            "website": entry.website,
            "aliases": aliases.get(entry.id, []),
            "report_values": list(REPORT_VALUES),
            "report_count": entry.report_count,
            "latest_report_time": times.read_form_time(entry.latest_day, entry.latest_hour) if entry.latest_day else "",
        }
        for entry in entries
    ]
    return {"data": data, "meta": {"count": len(data)}}


def grid_square_document(located: Iterable, meta: dict) -> dict:
    """store.report_walk.located_hours rows summed per locator (normalised; rows whose locator is
    not a 4- or 6-character one, from old data, are left out) as a GeoJSON FeatureCollection,
    features ordered by locator."""
    squares: dict[str, dict] = {}
    for grid_square, report, latest, count in located:
        box = locators.box(grid_square or "")
        if box is None:
            continue
        key = grid_square_key(grid_square)
        square = squares.setdefault(key, {"box": box, "totals": {}, "latest": latest})
        square["totals"][report] = square["totals"].get(report, 0) + count
        square["latest"] = max(square["latest"], latest)
    features = []
    for key in sorted(squares):
        square = squares[key]
        totals, box = square["totals"], square["box"]
        state, _ = grid.block_state(grid.Counts.of_totals(totals))
        features.append(
            {
                "type": "Feature",
                "id": key,
                "bbox": list(box),
                "geometry": {"type": "Polygon", "coordinates": [box.ring()]},
                "properties": {
                    "grid_square": key,
                    "precision": len(key),
                    "counts": _counts(totals),
                    "report_count": sum(totals.values()),
                    "status": STATUS_OF_STATE[state.key],
                    "latest_report_time": times.read_form_time_of_hour_number(square["latest"]),
                },
            }
        )
    return {"type": "FeatureCollection", "features": features, "meta": {**meta, "count": len(features)}}


def grid_square_key(grid_square: str) -> str:
    """A stored locator as the API names it (rules.normalize_grid's case: FN42ab)."""
    text = grid_square.strip()
    return text[:2].upper() + text[2:4] + text[4:6].lower()
