"""Header values as HyperKitty 1.3.12 reads them (spec/archive-api.md, "Header rules"): the legacy
generator's unfolding, then Python's modern parser (`email.policy.default`). Pure.

HyperKitty re-serialises each message with the compat32 generator and parses the result with
`policy.default`; the answers come from that parser, so the parser itself is asked here rather
than imitated. Header text arrives raw (8-bit bytes as surrogates) and is decoded leniently first:
real archives hold Latin-1 headers that the modern parser would turn into U+FFFD."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email import policy
from email.utils import parsedate_to_datetime

from sathub.archive.mail.charsets import decode_header, raw_header_text

_MODERN = policy.default
# Header rules 3: at a fold, one space after a non-blank character goes with the line break
# (the compat32 generator's refolding drops it); the continuation's own whitespace stays.
_FOLD = re.compile(r"(?:(?<=[^ \t\r\n]) )?\r?\n(?=[ \t])")
_LINE_BREAK = re.compile(r"[\r\n]")
_DECODED_BREAK = re.compile(r"[\r\n]\s*")
_UNSTRUCTURED = frozenset(("subject", "in-reply-to", "references"))


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

    The parser refuses what `datetime` refuses, so an offset of 24 hours or more (`-3000`) makes
    the date unusable rather than being read as UTC. A date without a zone (or `-0000`) is UTC."""
    if not value:
        return None
    try:
        # What the modern parser's Date header runs (headerregistry.DateHeader.parse), without
        # the re-formatting and token tree it builds afterwards for its own use.
        parsed = parsedate_to_datetime(raw_header_text(unfold(value)))
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    except Exception:
        return None
    return parsed.replace(microsecond=0)
