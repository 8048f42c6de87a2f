"""Pure rules of `sathub status import-legacy`: one upstream report row in, one report to store
(or the reason it is skipped) out, and the window that lets a later row of a slot win.

No I/O here. Upstream rows are whatever its form and API let through over the years (its form
stored any hour, period, date or value), so nothing is trusted; the bounds checked here are the
columns of our reports table, so a row that passes cannot make a batch fail."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping
from datetime import date, datetime

from sathub.status.rules import normalize_report, php_trim
from sathub.status.tables import column_length, reports

REPORT_COLUMNS = ("name", "day", "hour", "period", "callsign", "report", "grid_square")


MAX_NAME, MAX_CALLSIGN, MAX_GRID = (column_length(reports.c[column]) for column in ("name", "callsign", "grid_square"))

_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_INTEGER = re.compile(r"[0-9]+")

# Folding ASCII only, as SQLite's lower()/upper() do: a slot key never merges rows the database
# keeps apart (PostgreSQL may fold more; importer.py handles that).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def name_key(name: str) -> str:
    return name.translate(_ASCII_LOWER)


def slot_key(report: Mapping) -> tuple:
    """The slot of status-api.md 5.5: name and callsign case-insensitive, value and grid not part of it."""
    return (
        name_key(report["name"]),
        report["day"],
        report["hour"],
        report["period"],
        report["callsign"].translate(_ASCII_UPPER),
    )


def catalog_names(entries: list[dict]) -> dict[str, str]:
    """Every name a report may carry for a catalog entry (API name, display name, retired alias),
    by name_key, to the entry's API name; API names win over display names over aliases, as in
    store.resolve_api_name, and the first entry wins a tie."""
    names: dict[str, str] = {}
    for field in ("aliases", "display_name", "api_name"):  # lowest precedence first, overwritten
        claimed: dict[str, str] = {}
        for entry in entries:
            values = entry[field] if field == "aliases" else [entry[field]]
            for value in values:
                claimed.setdefault(name_key(php_trim(value)), entry["api_name"])
        names.update(claimed)
    return names


def clean_report(row: Mapping, api_names: Mapping[str, str]) -> dict | str:
    """The report to store for an upstream row, or the reason it is skipped.

    Values come typed from MariaDB (date, int, None) or as text from a CSV export."""
    name = _text(row["name"])
    if not name:
        return "empty satellite name"
    name = api_names.get(name_key(name), name)
    if len(name) > MAX_NAME:
        return "satellite name too long"
    day = _day(row["day"])
    if day is None:
        return "bad day"
    hour = _integer(row["hour"])
    if hour is None or not 0 <= hour <= 23:
        return "hour outside 0-23"
    period = _integer(row["period"])
    if period is None or not 0 <= period <= 3:
        return "period outside 0-3"
    callsign = _text(row["callsign"])
    if not callsign:
        return "empty callsign"
    if len(callsign) > MAX_CALLSIGN:
        return "callsign too long"
    report = normalize_report(_text(row["report"]))
    if report is None:
        return "unknown report value"
    grid = None if row["grid_square"] is None else _text(row["grid_square"])
    if grid is not None and len(grid) > MAX_GRID:
        return "grid square too long"
    return {
        "name": name,
        "day": day,
        "hour": hour,
        "period": period,
        "callsign": callsign,
        "report": report,
        "grid_square": grid,
    }


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return php_trim(str(value))


def _day(value) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    # MariaDB hands back zero and invalid dates ('0000-00-00') as text, like a CSV does.
    text = _text(value)
    if not _ISO_DAY.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _integer(value) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = _text(value)
    return int(text) if _INTEGER.fullmatch(text) else None


class SlotWindow:
    """The latest report of each recent slot, held back until `size` newer slots have arrived.

    Upstream had no unique slot, so two near-simultaneous submissions left two rows whose ids
    are close. Collapsing them here, before anything is written, lets the later one win without
    writing the earlier one first, so a repeated import finds every slot unchanged. Duplicates
    further apart than the window are still resolved by the database (the later one replaces)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.superseded = 0
        self._reports: OrderedDict[tuple, dict] = OrderedDict()

    def add(self, report: dict) -> list[dict]:
        """Hold `report`; returns the oldest `size` reports once 2 * size are held, else []."""
        key = slot_key(report)
        if self._reports.pop(key, None) is not None:
            self.superseded += 1
        self._reports[key] = report
        if len(self._reports) < 2 * self.size:
            return []
        return [self._reports.popitem(last=False)[1] for _ in range(self.size)]

    def drain(self) -> list[dict]:
        """Everything still held, oldest first."""
        reports = list(self._reports.values())
        self._reports.clear()
        return reports
