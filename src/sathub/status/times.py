"""Pure time rules of interface A: timestamp parsing, read-form times, report windows (5.4).

`parse_timestamp` accepts the forms of PHP strtotime() that clients send (status-api.md 5.4)
and, deliberately, rejects PHP's accidental readings (bare letters or numbers, 30 February)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime

UTC = UTC

_ZONE = r"(?P<zone>Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)"
_ISO = re.compile(
    r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
    r"(?:[Tt ]+(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:[.,]\d+)?)?)?"
    rf"\s*{_ZONE}?",
    re.I,
)
_BASIC = re.compile(
    r"(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})[Tt](?P<H>\d{2})(?P<M>\d{2})(?P<S>\d{2})?(?:[.,]\d+)?"
    rf"\s*{_ZONE}?",
    re.I,
)
_US = re.compile(
    r"(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})"
    rf"(?:\s+(?P<H>\d{{1,2}}):(?P<M>\d{{2}})(?::(?P<S>\d{{2}}))?)?\s*{_ZONE}?",
    re.I,
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_NAMED = re.compile(
    r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?"
    r"(?:(?P<mon1>[a-z]{3})[a-z]*\.?\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?|(?P<d2>\d{1,2})\s+(?P<mon2>[a-z]{3})[a-z]*\.?)"
    r",?\s+(?P<y>\d{4})"
    rf"(?:,?\s+(?P<H>\d{{1,2}}):(?P<M>\d{{2}})(?::(?P<S>\d{{2}}))?)?\s*{_ZONE}?",
    re.I,
)
_UNITS = {"sec": 1, "second": 1, "min": 60, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}
_RELATIVE = re.compile(r"(?P<n>[+-]?\d{1,7})\s*(?P<unit>sec|second|min|minute|hour|day|week)s?(?P<ago>\s+ago)?", re.I)
_UNIX = re.compile(r"@(?P<s>-?\d{1,12})")


def parse_timestamp(text: str, now: datetime) -> datetime | None:
    """The UTC instant a timestamp text names, or None when it is not one we accept."""
    text = text.strip()
    lowered = text.lower()
    if lowered == "now":
        return now.replace(microsecond=0)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if lowered in ("today", "midnight"):
        return midnight
    if lowered == "yesterday":
        return midnight - timedelta(days=1)
    if lowered == "tomorrow":
        return midnight + timedelta(days=1)
    if match := _UNIX.fullmatch(text):
        try:
            return datetime.fromtimestamp(int(match["s"]), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if match := _RELATIVE.fullmatch(text):
        seconds = int(match["n"]) * _UNITS[match["unit"].lower()]
        try:
            return now.replace(microsecond=0) + timedelta(seconds=-seconds if match["ago"] else seconds)
        except OverflowError:
            return None
    for pattern in (_ISO, _BASIC, _US):
        if match := pattern.fullmatch(text):
            return _instant(match["y"], match["m"], match["d"], match, now)
    if match := _NAMED.fullmatch(text):
        month = (match["mon1"] or match["mon2"]).lower()
        if month not in _MONTHS:
            return None
        return _instant(match["y"], _MONTHS.index(month) + 1, match["d1"] or match["d2"], match, now)
    try:
        parsed = parsedate_to_datetime(text)  # RFC 2822 forms the patterns above missed
    except (TypeError, ValueError, IndexError):
        return None
    if parsed is None:
        return None
    try:
        return parsed.replace(tzinfo=parsed.tzinfo or UTC).astimezone(UTC)
    except OverflowError:  # 31 Dec 9999 in a zone west of UTC
        return None


def _instant(year, month, day, match: re.Match, now: datetime) -> datetime | None:
    try:
        local = datetime(
            int(year), int(month), int(day), int(match["H"] or 0), int(match["M"] or 0), int(match["S"] or 0)
        )
        offset = _zone_offset(match["zone"])
        return (local - offset).replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None


def _zone_offset(zone: str | None) -> timedelta:
    if not zone or zone.upper() in ("Z", "UTC", "GMT"):
        return timedelta(0)
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    if hours > 14 or minutes > 59:
        raise ValueError("offset out of range")
    return sign * timedelta(hours=hours, minutes=minutes)


def iso_z(instant: datetime) -> str:
    """YYYY-MM-DDTHH:MM:SSZ (exactly 20 characters for years 1000-9999)."""
    t = instant.astimezone(UTC)
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


def read_form_time(day: date, hour: int) -> str:
    """What every read shows for a stored report: minute 30 of its hour, whatever the quarter."""
    return f"{day.year:04d}-{day.month:02d}-{day.day:02d}T{hour:02d}:30:00Z"


_HOUR_ZERO = datetime(2000, 1, 1)


def read_form_time_of_hour_number(hours: int) -> str:
    """The read-form time of an hour counted from 2000-01-01 00:00 (store.summary's newest hour)."""
    return f"{(_HOUR_ZERO + timedelta(hours=hours)).isoformat()[:13]}:30:00Z"


def first_included_hour(since: datetime) -> tuple[date, int]:
    """(day, hour) of the earliest stored hour whose read-form time HH:30:00 is >= since.

    A report is in a window exactly when its (day, hour) is >= this pair; after 9999-12-31T23:30
    none is, and the pair is (date.max, 24)."""
    since = since.astimezone(UTC).replace(tzinfo=None)
    if since < datetime.min + timedelta(hours=1):
        return date.min, 0
    start = since - timedelta(minutes=30)
    hour_start = start.replace(minute=0, second=0, microsecond=0)
    if hour_start < start:
        if hour_start.date() == date.max and hour_start.hour == 23:
            return date.max, 24
        hour_start += timedelta(hours=1)
    return hour_start.date(), hour_start.hour


def utc_now() -> datetime:
    """The current second, as PHP's time() reads it: an answer made within one second is the answer
    for all of it (api/replay.py)."""
    return datetime.now(UTC).replace(microsecond=0)
