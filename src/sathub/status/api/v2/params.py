"""/api/v2's query parameters and the reports walk's cursor. Pure: no I/O.

Stricter than version 1 (a new API need not copy PHP's lenient number parsing): an integer is
decimal digits within its range and `order` one of its two words, exactly as the document says,
anything else (an empty value included) a 400 `invalid_parameter` naming the parameter and the
raw value. A repeated `name` means several satellites; for the other parameters the last
occurrence wins, as in version 1. Text parameters are trimmed; a parameter given filters, so one
left blank is refused like a bad integer, not read as absent (which answered `name=` and
`name=%00` with every satellite's reports)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from datetime import UTC, date, datetime, timedelta

from starlette.requests import Request

from sathub.status import rules, times
from sathub.status.api.responses import ApiError
from sathub.status.store.report_walk import Hour, Key, Visible
from sathub.status.store.text import storable

_DIGITS = re.compile(r"[0-9]{1,6}")
_SMALLINT = 2**15  # the hour and period columns (SMALLINT): a larger value would fail on PostgreSQL


MAX_NAMES = 100  # a walk reads one branch per name (store.report_walk), and SQLite allows 500 at most


def names(request: Request) -> tuple[str, ...]:
    """Every `name`, trimmed, in order, without repeats; given more than MAX_NAMES times
    (repeated ones counted, as the document counts items) or one of them blank is a 400."""
    given = request.query_params.getlist("name")
    if len(given) > MAX_NAMES:
        message = f"Parameter 'name' may be given at most {MAX_NAMES} times."
        raise ApiError(400, "invalid_parameter", message, {"name": len(given)})
    return tuple(dict.fromkeys(_filled("name", value) for value in given))


def text(request: Request, name: str) -> str | None:
    """The last `name`, trimmed; None when not given."""
    values = request.query_params.getlist(name)
    return _filled(name, values[-1]) if values else None


def _filled(name: str, raw: str) -> str:
    """A text parameter's value, trimmed; 400 when that leaves nothing or it holds a NUL. PHP's
    trim removes NUL, which made `%00` blank; inside a value no stored text has one (the
    writes turn it into U+FFFD, store/text.py), so it can only ask for nothing."""
    value = rules.php_trim(raw)
    if not value or "\x00" in raw:
        message = f"Parameter '{name}' must not be blank or hold a NUL character."
        raise ApiError(400, "invalid_parameter", message, {name: raw})
    return value


def integer(request: Request, name: str, default: int, low: int, high: int) -> int:
    values = request.query_params.getlist(name)
    if not values:
        return default
    raw = values[-1]
    if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
        raise ApiError(
            400, "invalid_parameter", f"Parameter '{name}' must be an integer from {low} to {high}.", {name: raw}
        )
    return int(raw)


def order(request: Request) -> bool:
    """True for `asc`, False for `desc` (the default)."""
    values = request.query_params.getlist("order")
    value = values[-1] if values else "desc"
    if value == "desc":
        return False
    if value == "asc":
        return True
    raise ApiError(400, "invalid_parameter", "Parameter 'order' must be 'desc' or 'asc'.", {"order": value})


def instant(request: Request, name: str, now: datetime) -> datetime | None:
    value = text(request, name)
    if value is None:
        return None
    parsed = times.parse_timestamp(value, now)
    if parsed is None:
        raise ApiError(400, f"invalid_{name}", f"Parameter '{name}' must be a valid timestamp.")
    return parsed


def grid_square(request: Request) -> str | None:
    if (value := text(request, "grid_square")) is None:
        return None
    if (grid := rules.parse_grid(value)) is None:
        raise ApiError(400, "invalid_grid_square", "Parameter 'grid_square' must be a Maidenhead locator.")
    return grid


def status(request: Request) -> str | None:
    if (value := text(request, "status")) is None:
        return None
    if (report := rules.normalize_report(value)) is None:
        raise ApiError(400, "invalid_status", "Parameter 'status' must be a supported report value.")
    return report


VISIBLE_VALUES: tuple[Visible, ...] = ("true", "false", "null")


def visible(request: Request) -> Visible | None:
    """`visible`: reports checked against the sky and found above (`true`) or below (`false`) the
    horizon, or not checked (`null`), as the records say it; anything else is a 400."""
    if (value := text(request, "visible")) is None:
        return None
    for known in VISIBLE_VALUES:
        if value == known:
            return known
    message = "Parameter 'visible' must be 'true', 'false' or 'null'."
    raise ApiError(400, "invalid_parameter", message, {"visible": value})


def last_included_hour(until: datetime) -> Hour:
    """(day, hour) of the latest stored hour whose read-form time HH:30:00 is <= until (the
    counterpart of times.first_included_hour)."""
    until = until.astimezone(UTC).replace(tzinfo=None)
    if until < datetime.min + timedelta(minutes=30):
        return date.min, -1  # before every hour: nothing is included
    start = (until - timedelta(minutes=30)).replace(minute=0, second=0, microsecond=0)
    return start.date(), start.hour


# --- the cursor: where the next page starts, and what search it belongs to ---


def fingerprint(*search: object) -> str:
    """A short hash of a search's filters and order: a cursor only continues its own search."""
    return hashlib.sha256(repr(search).encode()).hexdigest()[:16]


def cursor_text(search: str, key: Key) -> str:
    day, hour, period, name_key, callsign_key = key
    document = [1, search, day.isoformat(), hour, period, name_key, callsign_key]
    compact = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return base64.urlsafe_b64encode(compact.encode()).decode().rstrip("=")


def _invalid_cursor() -> ApiError:
    return ApiError(400, "invalid_cursor", "Parameter 'cursor' is not a cursor of this search.")


def read_cursor(text: str, search: str) -> Key:
    """The key a cursor of the search `search` continues after; 400 `invalid_cursor` for anything
    else (altered, truncated, another search's)."""
    try:
        document = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        version, made_for, day, hour, period, name_key, callsign_key = document
        key = (date.fromisoformat(day), hour, period, name_key, callsign_key)
    except (ValueError, TypeError, UnicodeDecodeError):
        raise _invalid_cursor() from None
    ints_ok = all(type(n) is int and -_SMALLINT <= n < _SMALLINT for n in (hour, period))
    texts_ok = all(isinstance(t, str) and storable(t) for t in (name_key, callsign_key))
    if version != 1 or made_for != search or not ints_ok or not texts_ok:
        raise _invalid_cursor()
    return key
