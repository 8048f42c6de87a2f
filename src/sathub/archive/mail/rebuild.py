"""A message rebuilt from its stored fields, for mail archived before sources were kept (the export
and `/raw` serve the kept source whenever there is one). docs/archive-export.md, "Mail without a
source", says the rules; in short, what HyperKitty's export does for every message:

- headers, in this order: `From` (the display name, RFC 2047-encoded when not ASCII, and the
  address as that message spelled it; the address alone when the name is the address), `Subject`
  (as archived, RFC 2047-encoded when not ASCII), `Date` (the stored UTC date, `+0000`),
  `Message-ID` (`<id>`), `In-Reply-To` (`<parent id>`, when there is a parent reference),
  `MIME-Version: 1.0`;
- the body: the archived text as `text/plain; charset="utf-8"` (8bit when not ASCII); with
  attachments, `multipart/mixed` of that text and each attachment in counter order, base64, with
  its content type (and charset) and `Content-Disposition: attachment; filename=<name>`.

What cannot come back: headers other than those (To, Cc, Received, …), the original MIME structure
and transfer encodings, HTML alternatives (stored as attachments), the text a scrubber removed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTPUTF8
from email.utils import format_datetime, formataddr

# LF line ends like the sources the import keeps; lines of any length (no refolding of the text).
_POLICY = SMTPUTF8.clone(linesep="\n", max_line_length=998, utf8=False)


def _one_line(text: str) -> str:
    """A header value cannot hold a line break: a stored value never should, but one that does
    must not become a header of its own."""
    return " ".join(text.splitlines())


def rebuilt_message(row, attachments: Sequence) -> bytes:
    """The message of `row` (emails columns: message_id, sender_address, sender_name, subject,
    content, date, in_reply_to) with its attachment rows (name, content_type, encoding, content)."""
    message = EmailMessage(policy=_POLICY)
    address = _one_line(row.sender_address)
    name = _one_line(row.sender_name)
    message["From"] = address if name in ("", address) else formataddr((name, address))
    message["Subject"] = _one_line(row.subject)
    message["Date"] = format_datetime(datetime.fromtimestamp(row.date.replace(tzinfo=UTC).timestamp(), UTC))
    message["Message-ID"] = f"<{_one_line(row.message_id)}>"
    if row.in_reply_to:
        message["In-Reply-To"] = f"<{_one_line(row.in_reply_to)}>"
    message["MIME-Version"] = "1.0"
    content = row.content
    message.set_content(content, charset="utf-8", cte="8bit" if not content.isascii() else "7bit")
    for attachment in attachments:
        maintype, _, subtype = attachment.content_type.partition("/")
        params = {"charset": attachment.encoding} if attachment.encoding else {}
        message.add_attachment(
            bytes(attachment.content),
            maintype=maintype or "application",
            subtype=subtype or "octet-stream",
            filename=attachment.name,
            params=params,
        )
    return message.as_bytes()
