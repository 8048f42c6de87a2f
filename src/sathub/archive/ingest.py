"""Mail rules: one raw message -> the values of one `emails` row. Pure functions, no I/O.

Identifiers follow HyperKitty/Mailman (spec/archive-api.md, "Identifiers"); where real archives
are broken (missing Message-ID, odd dates, pipermail addresses) the rules of "Importing" apply.
The text and attachments of a message are derived in `content.py`."""

from __future__ import annotations

import base64
import hashlib
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import Message
from email.parser import BytesParser
from email.policy import Compat32
from email.utils import parseaddr, parsedate_tz

from sathub.archive.charsets import FOLD, decode_header, raw_header_text
from sathub.archive.content import Attachment, message_content

MAX_ID_LENGTH = 254
# A sender we cannot name still needs a row; `.invalid` can never be a real domain (RFC 2606).
PLACEHOLDER_ADDRESS = "unknown@sender.invalid"
# Offsets beyond this are typos (-3000), not time zones; the local time is then taken as UTC.
MAX_UTC_OFFSET = 14 * 3600


@dataclass(slots=True)
class ParsedEmail:
    message_id: str
    message_id_hash: str
    in_reply_to: str | None
    sender_address: str  # lowercase
    sender_name: str
    subject: str
    content: str
    date: datetime  # naive UTC, whole seconds
    archived_date: datetime
    attachments: list[Attachment]


class _RawHeaders(Compat32):
    """compat32 parsing, but header values come back as the raw text (8-bit bytes as surrogates),
    so that decoding them is ours to do leniently instead of the library's Header objects."""

    def header_fetch_parse(self, name, value):
        return value


_PARSER = BytesParser(policy=_RawHeaders())


def parse_message(data: bytes) -> Message:
    """The parsed message. Most mail is a single part: only its header block goes through the
    (slow, line-by-line) parser and the body is attached as is, with the same result."""
    ends = [end + len(blank) for blank in (b"\n\n", b"\n\r\n") if (end := data.find(blank)) >= 0]
    if not ends:
        return _PARSER.parsebytes(data)
    end = min(ends)
    message = _PARSER.parsebytes(data[:end])
    if message.get_content_maintype() in ("multipart", "message") or message.get_payload() or message.defects:
        return _PARSER.parsebytes(data)
    message.set_payload(data[end:].decode("ascii", "surrogateescape"))
    return message


# --- identifiers -------------------------------------------------------------------------------

def clean_message_id(value: str | None) -> str:
    """Whitespace removed, the text inside the first <...> (or the whole value), 254 chars at most."""
    if not value:
        return ""
    value = re.sub(r"[\s\x00]+", "", value)  # NUL too: no database stores it in text
    start = value.find("<")
    if start >= 0:
        end = value.find(">", start + 1)
        value = value[start + 1:end] if end >= 0 else value[start + 1:]
    return value[:MAX_ID_LENGTH]


def message_id_hash(message_id: str) -> str:
    """base32(SHA-1(cleaned Message-ID)): 20 bytes give 32 characters A-Z2-7, no padding."""
    return base64.b32encode(hashlib.sha1(message_id.encode("utf-8")).digest()).decode("ascii")


def generated_message_id(data: bytes) -> str:
    """An id for a message without one, from its own bytes: re-imports find the same id."""
    return f"{hashlib.sha1(data).hexdigest()}@generated.sathub.invalid"


_BRACKETED = re.compile(r"<([^<>]*)>")


def parent_reference(in_reply_to: str | None, references: str | None) -> str | None:
    """The first <...> of In-Reply-To, else the last <...> of References (cleaned), else None."""
    for header, pick in ((in_reply_to, 0), (references, -1)):
        found = [ref for ref in _BRACKETED.findall(header or "") if ref.strip()]
        if found:
            return clean_message_id(found[pick]) or None
    return None


def default_mailman_id(address: str) -> str:
    """The stable sender id used until a real Mailman user id is loaded for the address."""
    return uuid.uuid5(uuid.NAMESPACE_URL, "mailto:" + address.lower()).hex


# --- headers -----------------------------------------------------------------------------------

def first_headers(message: Message) -> dict[str, str]:
    """The first value of each header, by lowercase name (one pass instead of a scan per name)."""
    headers: dict[str, str] = {}
    for name, value in message.items():
        if isinstance(value, str):
            headers.setdefault(name.lower(), value)
    return headers


# --- senders -----------------------------------------------------------------------------------

# Pipermail's `user at example.org (Display Name)`; the name may itself contain an address.
_PIPERMAIL_FROM = re.compile(r"^\s*([^\s@<>()\"]+) at ([^\s@<>()\"]+\.[^\s@<>()\"]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


def sender(from_header: str | None) -> tuple[str, str]:
    """(lowercase address, display name) of a From header.

    Pipermail writes `user at example.org (Name)`: that is read as user@example.org. Without a
    usable address the placeholder address is used; the name falls back to the header's text,
    then to the address."""
    raw = FOLD.sub("", from_header or "")
    pipermail = _PIPERMAIL_FROM.match(raw)
    if pipermail:
        name, address = pipermail.group(3) or "", f"{pipermail.group(1)}@{pipermail.group(2)}"
    else:
        name, address = parseaddr(raw)
    name = decode_header(name).strip()
    address = raw_header_text(address).strip()
    if not usable_address(address):
        name = name or decode_header(raw).strip()
        address = PLACEHOLDER_ADDRESS
    return address.lower(), name or address


def usable_address(address: str) -> bool:
    local, at, domain = address.rpartition("@")
    return bool(at and local and domain) and len(address) <= MAX_ID_LENGTH and not re.search(r"[\s\x00]", address)


# --- dates -------------------------------------------------------------------------------------

# "+05-30" / "+05:30" mean +0530.
_SPLIT_OFFSET = re.compile(r"([+-])(\d\d)[-:](\d\d)\b")


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


# --- the whole message -------------------------------------------------------------------------

def parse_email(data: bytes, from_line: str | None, fallback_date: datetime) -> ParsedEmail:
    """The row values of one message (its bytes without the mbox From_ line)."""
    message = parse_message(data)
    headers = first_headers(message)
    message_id = clean_message_id(raw_header_text(headers.get("message-id", "")))
    if not message_id:
        message_id = generated_message_id(data)
    in_reply_to = parent_reference(raw_header_text(headers.get("in-reply-to", "")),
                                   raw_header_text(headers.get("references", "")))
    if in_reply_to == message_id:
        in_reply_to = None  # a message answering itself is a root
    address, name = sender(headers.get("from"))
    date, archived = message_dates(headers, from_line, fallback_date)
    content, attachments = message_content(message)
    return ParsedEmail(
        message_id=message_id,
        message_id_hash=message_id_hash(message_id),
        in_reply_to=in_reply_to,
        sender_address=address,
        sender_name=name,
        subject=decode_header(headers.get("subject")).strip(),
        content=content,
        date=date,
        archived_date=archived,
        attachments=attachments,
    )
