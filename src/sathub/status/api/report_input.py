"""Report submissions through POST /api/v1/reports.php: reading the body's fields and checking
them in the order of status-api.md 4.3 (first failure wins)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson
from starlette.requests import Request

from sathub.status import rules, times
from sathub.status.api.responses import ApiError
from sathub.status.store import catalog
from sathub.web import form_fields, read_body


async def request_fields(request: Request) -> dict:
    """The submission's fields: a JSON object (an array has none), else form fields, else none."""
    body = await read_body(request)
    content_type = request.headers.get("content-type", "").lower()
    if "application/json" in content_type:
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise ApiError(400, "invalid_json", "The request body must be a JSON object.") from exc
        if isinstance(value, list):
            return {}
        if not isinstance(value, dict):
            raise ApiError(400, "invalid_json", "The request body must be a JSON object.")
        return value
    fields = await form_fields(request, with_files=True)
    return {key: value if isinstance(value, str) else ["file"] for key, value in fields.items()}


def as_text(value) -> str:
    """A field as PHP sees it after a string cast; arrays and objects become 'Array'."""
    if isinstance(value, str):
        return value
    if value is None or value is False:
        return ""
    if value is True:
        return "1"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)  # 1e20 is 10**20, as a number
    if isinstance(value, (list, dict)):
        return "Array"
    return str(value)


def _aliased(fields: dict, name: str, alias: str) -> str:
    """The field, falling back to its alias only when absent or null (not when empty)."""
    value = fields.get(name)
    if value is None:
        value = fields.get(alias)
    return as_text(value)


@dataclass(frozen=True)
class Accepted:
    name: str
    report: str
    callsign: str
    grid_square: str
    instant: datetime

    def row(self) -> dict:
        return dict(
            name=self.name,
            day=self.instant.date(),
            hour=self.instant.hour,
            period=rules.period_of_minute(self.instant.minute),
            callsign=self.callsign,
            report=self.report,
            grid_square=self.grid_square,
        )


def validate_api(fields: dict, conn, now: datetime, resolve=catalog.resolve_api_name) -> Accepted:
    name = rules.php_trim(_aliased(fields, "name", "satellite"))
    if not name:
        raise ApiError(422, "missing_name", "The satellite name is required.")
    api_name = resolve(conn, name)
    if api_name is None:
        raise ApiError(422, "unknown_satellite", "The satellite name does not match a known satellite.")
    report = rules.normalize_report(_aliased(fields, "report", "status"))
    if report is None:
        raise ApiError(
            422, "invalid_report", "The report value is not supported.", {"allowed_values": list(rules.REPORT_VALUES)}
        )
    grid_text = rules.normalize_grid(as_text(fields.get("grid_square")))
    callsign, grid = rules.split_api_callsign(as_text(fields.get("callsign")), grid_text)
    if not rules.is_valid_callsign(callsign):
        raise ApiError(422, "invalid_callsign", "The callsign is not a valid amateur callsign.")
    if grid_text:
        parsed_grid = rules.parse_grid(grid_text)
        if parsed_grid is None:
            raise ApiError(422, "invalid_grid_square", "The grid square is not a Maidenhead locator.")
        grid = parsed_grid
    instant = reported_instant(fields, now)
    if instant > now:
        raise ApiError(422, "future_reported_at", "The reported time is in the future.")
    return Accepted(name=api_name, report=report, callsign=callsign, grid_square=grid, instant=instant)


def reported_instant(fields: dict, now: datetime) -> datetime:
    """`reported_at` when given, else the year/month/day/hour[/minute] parts (UTC)."""
    reported_at = rules.php_trim(as_text(fields.get("reported_at")))
    if reported_at:
        instant = times.parse_timestamp(reported_at, now)
        if instant is None:
            raise ApiError(422, "invalid_reported_at", "The reported_at value is not a valid timestamp.")
        return instant
    if any(key not in fields for key in ("year", "month", "day", "hour")):
        raise ApiError(422, "missing_reported_at", "Give reported_at, or all of year, month, day and hour.")
    year, month, day, hour = (rules.php_intval(as_text(fields[key])) for key in ("year", "month", "day", "hour"))
    minute_value = fields.get("minute")
    minute = 30 if minute_value is None else rules.php_intval(as_text(minute_value))
    try:
        if not (0 <= hour <= 23 and 0 <= minute <= 59):
            raise ValueError("time out of range")
        return datetime(year, month, day, tzinfo=times.UTC) + timedelta(hours=hour, minutes=minute)
    except (ValueError, OverflowError) as exc:
        raise ApiError(422, "invalid_reported_at", "The date and time parts are not a valid date.") from exc
