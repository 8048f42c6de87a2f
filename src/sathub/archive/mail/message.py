"""Mail rules: one raw message -> the values of one `emails` row. Pure functions, no I/O.

Identifiers follow HyperKitty/Mailman (spec/archive-api.md, "Identifiers", in `ids.py`); where
real archives are broken (missing Message-ID, odd dates, pipermail addresses) the rules of
"Importing" apply (`ids.py`, `dates.py`, `senders.py`). The text and attachments of a message
are derived in `content.py`, from as much of its MIME tree as `parts_limit.py` lets be parsed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from email.parser import BytesParser
from email.policy import Compat32
from email.utils import getaddresses

from sathub.archive.mail.content import Attachment, message_content, scrubbed_text
from sathub.archive.mail.dates import message_dates
from sathub.archive.mail.headers import archived_subject, modern_text, raw_text
from sathub.archive.mail.ids import (
    clean_message_id,
    generated_message_id,
    message_id_hash,
    message_references,
    parent_reference,
)
from sathub.archive.mail.parts_limit import PartsLeftOut, parse_within_limits
from sathub.archive.mail.senders import commented_name, sender
from sathub.config import Settings

MAX_PARTS = Settings.max_message_parts  # the setting's default
PIPERMAIL_MARK = b"-------------- next part --------------"


@dataclass(slots=True)
class ParsedEmail:
    message_id: str
    message_id_hash: str
    in_reply_to: str | None
    references: list[str]  # every Message-ID it names, as public-inbox reads them (migration 0029)
    sender_address: str  # as this message spells it
    sender_name: str
    subject: str
    content: str
    date: datetime  # naive UTC, whole seconds
    archived_date: datetime
    attachments: list[Attachment]
    parts_left_out: bool = False  # parts beyond the limits (parts_limit.py) are in the source only
    # Searched, not shown (migration 0023): the From header's name in a comment when `sender_name`
    # is the address (senders.commented_name), and the text pipermail inlined after its "next
    # part" lines (content.scrubbed_text).
    sender_comment: str = ""
    scrubbed: str = ""
    # The source as received, compressed (mail/kept_source.py), its size and its mbox `From ` line:
    # set by the import's parsing, stored in email_sources (migration 0008); its body's lines, for
    # NNTP OVER's :lines (migration 0030).
    source: bytes | None = None
    source_size: int = 0
    source_lines: int | None = None
    envelope: str | None = None
    position: int | None = None  # the message's place among those of the files imported, from 0


class _RawHeaders(Compat32):
    """compat32 parsing, but header values come back as the raw text (8-bit bytes as surrogates),
    so that decoding them is ours to do leniently instead of the library's Header objects."""

    def header_fetch_parse(self, name, value):
        return value


_POLICY = _RawHeaders()
_PARSER = BytesParser(policy=_POLICY)


def parse_message(data: bytes, max_parts: int = MAX_PARTS) -> Message:
    """The parsed message, as much of it as `max_parts` parts allow (parts_limit.py). Most mail is
    a single part: only its header block goes through the (slow, line-by-line) parser and the
    body is attached as is, with the same result."""
    ends = [end + len(blank) for blank in (b"\n\n", b"\n\r\n") if (end := data.find(blank)) >= 0]
    if not ends:
        return parse_within_limits(data, _POLICY, max_parts)
    end = min(ends)
    message = _PARSER.parsebytes(data[:end])
    if message.get_content_maintype() in ("multipart", "message") or message.get_payload() or message.defects:
        return parse_within_limits(data, _POLICY, max_parts)
    message.set_payload(data[end:].decode("ascii", "surrogateescape"))
    return message


def first_headers(message: Message) -> dict[str, str]:
    """The first value of each header, by lowercase name (one pass instead of a scan per name)."""
    headers: dict[str, str] = {}
    for name, value in message.items():
        if isinstance(value, str):
            headers.setdefault(name.lower(), value)
    return headers


def parse_email(data: bytes, from_line: str | None, fallback_date: datetime, max_parts: int = MAX_PARTS) -> ParsedEmail:
    """The row values of one message (its bytes without the mbox From_ line), from as many of its
    MIME parts as `max_parts` allows."""
    message = parse_message(data, max_parts)
    headers = first_headers(message)
    message_id = clean_message_id(raw_text(headers.get("message-id")))
    if not message_id:
        message_id = generated_message_id(data)
    in_reply_to = parent_reference(
        modern_text("in-reply-to", headers.get("in-reply-to")), modern_text("references", headers.get("references"))
    )
    if in_reply_to == message_id:
        in_reply_to = None  # a message answering itself is a root
    address, name = sender(headers.get("from"))
    references = _references(message, message_id)
    date, archived = message_dates(headers, from_line, fallback_date)
    content, attachments = message_content(message)
    # Most mail has no "next part" line: its text parts are not decoded a second time (one search
    # of the bytes; pipermail's text archives hold their text as it reads).
    scrubbed = scrubbed_text(message) if PIPERMAIL_MARK in data else ""
    return ParsedEmail(
        message_id=message_id,
        message_id_hash=message_id_hash(message_id),
        in_reply_to=in_reply_to,
        references=references,
        sender_address=address,
        sender_name=name,
        subject=archived_subject(headers.get("subject")),
        content=content,
        date=date,
        archived_date=archived,
        attachments=attachments,
        parts_left_out=any(isinstance(defect, PartsLeftOut) for defect in message.defects),
        sender_comment=commented_name(headers.get("from"), name),
        scrubbed=scrubbed,
    )


def _references(message: Message, message_id: str) -> list[str]:
    """mail/ids.py's message_references of every References, In-Reply-To, From, To and Cc header."""

    def values(name: str) -> list[str]:
        return [raw_text(value) for value in message.get_all(name, []) if isinstance(value, str)]

    quoted = {address for name in ("from", "to", "cc") for _, address in getaddresses(values(name)) if address}
    return message_references(values("references"), values("in-reply-to"), message_id, quoted)
