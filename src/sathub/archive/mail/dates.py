"""The dates of a message: its Date (or what stands in for it) and its archived date, as naive
UTC with whole seconds, the form every date is stored in. Pure, but for reading the clock."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_tz

# Offsets beyond this are typos (-3000), not time zones; the local time is then taken as UTC.
MAX_UTC_OFFSET = 14 * 3600
# "+05-30" / "+05:30" mean +0530.
_SPLIT_OFFSET = re.compile(r"([+-])(\d\d)[-:](\d\d)\b")


def utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def parse_date(value: str | None) -> datetime | None:
    """A Date-like header (or the date of a From_ line) as naive UTC with whole seconds, or None."""
    if not value or not value.isascii():
        return None
    try:
        parts = parsedate_tz(_SPLIT_OFFSET.sub(r"\1\2\3", value))
        if parts is None:
            return None
        year, month, day, hour, minute, second = parts[:6]
        local = datetime(year, month, day, hour, minute, min(second, 59))
        offset = parts[9] or 0
        if abs(offset) > MAX_UTC_OFFSET:
            offset = 0
        return local - timedelta(seconds=offset)
    except (ValueError, OverflowError, IndexError, TypeError):
        return None


def from_line_parts(from_line: str | None) -> tuple[str, str]:
    """(sender token, date text) of an mbox `From sender date` separator line."""
    parts = from_line[5:].strip().split(None, 1) if from_line and from_line.startswith("From ") else []
    # asctime dates may carry a trailing zone or "remote from ..."; parsedate_tz copes with the zone.
    return (parts[0] if parts else ""), (parts[1].split(" remote from ")[0] if len(parts) > 1 else "")


def message_dates(headers: dict[str, str], from_line: str | None, fallback: datetime) -> tuple[datetime, datetime]:
    """(date, archived_date).

    date: Date, else Resent-Date, else the From_ line, else `fallback` (the import time).
    archived_date: the From_ line's date when that line names an address (pipermail's lines do
    not: `user at example.org`), else the date."""
    separator_sender, separator_text = from_line_parts(from_line)
    separator_date = parse_date(separator_text) if "@" in separator_sender else None
    date = parse_date(headers.get("date")) or parse_date(headers.get("resent-date")) or separator_date
    if date is None:
        date = parse_date(separator_text) or fallback
    return date, separator_date or date
