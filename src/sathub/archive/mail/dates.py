"""The dates of a message: its Date (or what stands in for it) and its archived date, as naive
UTC with whole seconds, the form every date is stored in (spec/archive-api.md, Header rules 4).
Pure, but for reading the clock."""

from __future__ import annotations

from datetime import UTC, datetime

from sathub.archive.mail.headers import header_datetime


def utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def from_line_parts(from_line: str | None) -> tuple[str, str]:
    """(sender token, date text) of an mbox `From sender date` separator line."""
    parts = from_line[5:].strip().split(None, 1) if from_line and from_line.startswith("From ") else []
    # asctime dates may carry a trailing zone or "remote from ..."; the date parser copes with the zone.
    return (parts[0] if parts else ""), (parts[1].split(" remote from ")[0] if len(parts) > 1 else "")


def message_dates(headers: dict[str, str], from_line: str | None, fallback: datetime) -> tuple[datetime, datetime]:
    """(date, archived_date).

    date: Date if the modern parser accepts it, else Resent-Date under the same test, else the
    From_ line's date, else `fallback` (the arrival time: live mail has no From_ line).
    archived_date: the From_ line's date when that line names an address (pipermail's lines do
    not: `user at example.org`), else the date."""
    separator_sender, separator_text = from_line_parts(from_line)
    separator_date = header_datetime(separator_text)
    date = (
        header_datetime(headers.get("date"))
        or header_datetime(headers.get("resent-date"))
        or separator_date
        or fallback
    )
    return date, (separator_date if separator_date and "@" in separator_sender else date)
