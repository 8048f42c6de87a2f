"""Header values as HyperKitty 1.3.12 reads them (spec/archive-api.md, "Header rules"): the legacy
generator's unfolding, then Python's modern parser (`email.policy.default`). Pure.

HyperKitty re-serialises each message with the compat32 generator and parses the result with
`policy.default`; the answers come from that parser, so the parser itself is asked here rather
than imitated. Header text arrives raw (8-bit bytes as surrogates) and is decoded leniently first:
real archives hold Latin-1 headers that the modern parser would turn into U+FFFD."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from email import policy
from email.utils import parsedate_tz

from sathub.archive.mail.charsets import decode_header, raw_header_text

_MODERN = policy.default
# Header rules 3: at a fold, one space after a non-blank character goes with the line break
# (the compat32 generator's refolding drops it); the continuation's own whitespace stays.
_FOLD = re.compile(r"(?:(?<=[^ \t\r\n]) )?\r?\n(?=[ \t])")
_LINE_BREAK = re.compile(r"[\r\n]")
_DECODED_BREAK = re.compile(r"[\r\n]\s*")
_UNSTRUCTURED = frozenset(("subject", "in-reply-to", "references"))
# A number of four digits or more below 100 (`0001`, `0099`), alone between spaces or commas: the
# only way to write a year that Python's date parser reads as written with two digits (`01`).
_LONG_SMALL_NUMBER = re.compile(r"(?<![^\s,])00\d{2,}(?![^\s,])")
_MARK = 10_000  # added to such numbers to see which of them the parser takes for the year


def unfold(value: str) -> str:
    """A raw header value on one line, as the parser receives it after the generator's round trip."""
    return _LINE_BREAK.sub("", _FOLD.sub("", value))


def raw_text(value: str | None) -> str:
    """The raw value on one line, 8-bit text decoded leniently: what a Message-ID is cleaned from."""
    return raw_header_text(unfold(value)) if value else ""


def modern_text(name: str, value: str | None) -> str:
    """The header's value as the modern parser gives it (`str(message[name])`): RFC 2047 words
    decoded (whitespace between adjacent encoded words dropped), address lists re-rendered
    without comments. A value that makes the parser fail is decoded leniently instead."""
    text = raw_text(value)
    if not text:
        return ""
    if name in _UNSTRUCTURED and "=?" not in text:
        # Without an encoded word the parser gives unstructured text back unchanged (all 55,958
        # such Subject, In-Reply-To and References values of the corpus): skip its cost.
        return text.replace("\x00", "")
    try:
        return raw_header_text(str(_MODERN.header_factory(name, text))).replace("\x00", "")
    except Exception:
        return decode_header(text)


def archived_subject(value: str | None) -> str:
    """The Subject as archived (Header rules 3). A line break can only come from an encoded word
    here (`=0D`); the import unwraps it with the whitespace after it into one space."""
    return _DECODED_BREAK.sub(" ", modern_text("subject", value))


def header_datetime(value: str | None) -> datetime | None:
    """A date the modern parser accepts, as naive UTC with whole seconds; else None.

    The parser refuses what `datetime` refuses, so an offset of 24 hours or more (`-3000`), or a
    time before the year 1 in UTC, makes the date unusable rather than being read as something
    else. A date without a zone (or `-0000`) is UTC. A year is the year it writes (`0001`) except
    with one or two digits: those follow the parser's (and HyperKitty's) rule, 00-68 as 2000-2068
    and 69-99 as 1969-1999."""
    if not value:
        return None
    try:
        # What the modern parser's Date header runs (headerregistry.DateHeader.parse, through
        # utils.parsedate_to_datetime), without the re-formatting and token tree it builds
        # afterwards for its own use; but for a year of four digits below 100.
        text = raw_header_text(unfold(value))
        fields = parsedate_tz(text)
        if fields is None:
            return None
        year, month, day, hour, minute, second, *_, offset = fields
        if year in range(1969, 2069) and _LONG_SMALL_NUMBER.search(text):
            year = _written_year(text, year)
        parsed = datetime(year, month, day, hour, minute, second)
        if offset is not None:
            parsed = parsed.replace(tzinfo=timezone(timedelta(seconds=offset))).astimezone(UTC)
    except Exception:
        return None
    return parsed.replace(tzinfo=None, microsecond=0)


def _written_year(text: str, year: int) -> int:
    """The year as `text` writes it. Python's parser reads any year under 100 as two digits, so
    `0001` was 2001 (issue 40); it is asked again with every such number marked (`10001`), and
    when a marked one comes back as the year, that number is the year. The parser's other fields
    do not depend on the numbers' values, only on their places."""
    marked = parsedate_tz(_LONG_SMALL_NUMBER.sub(lambda number: str(int(number[0]) + _MARK), text))
    return marked[0] - _MARK if marked and marked[0] >= _MARK else year
