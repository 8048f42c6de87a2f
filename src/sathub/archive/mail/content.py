"""The text (`content`) and attachments of a message, as spec/archive-more.md ("How `content` is
derived", "Attachment object") describes HyperKitty's scrubber. Pure functions, no I/O."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from typing import cast

from sathub.archive.mail.charsets import decode_bytes, decode_header, known_charset

# Pipermail appended the scrubbed attachments after this line; it is not the author's text.
PIPERMAIL_NEXT_PART = re.compile(r"^-------------- next part --------------\n", re.MULTILINE)
# What pipermail wrote in place of an attachment it removed (on the corpus: 1,566 non-text, 2,103
# HTML, 111 charset-unspecified texts, 15 messages), a note and no text of the author's.
PIPERMAIL_NOTE = re.compile(r"(A non-text attachment|An HTML attachment|An embedded .*) was scrubbed\.\.\.\n")
# Python's built-in table only (not the host's /etc/mime.types), so names are the same everywhere.
_MIME_TYPES = mimetypes.MimeTypes()
MAX_NAME_LENGTH = 255
# What an attached part leaves in the text, in its place in the walk order.
PLACEHOLDER = "\n"
# Text parts in these transfer encodings keep the line ends they decode to.
_KEEPS_LINE_ENDS = ("base64", "quoted-printable")
_LINE_END = re.compile(r"\r\n?")


@dataclass(slots=True)
class Attachment:
    counter: int  # position in a depth-first walk of the MIME tree, the message itself is 0
    name: str
    content_type: str
    encoding: str | None  # the declared charset
    content: bytes


def _payload_bytes(part: Message) -> bytes:
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def _decoded_text(part: Message) -> str:
    text = decode_bytes(_payload_bytes(part), part.get_content_charset())
    if str(part.get("Content-Transfer-Encoding", "")).strip().lower() not in _KEEPS_LINE_ENDS:
        # The import re-serialises the message, which writes every line end of such a part as LF.
        text = _LINE_END.sub("\n", text)
    return text.replace("\x00", "")


def _part_text(part: Message) -> str:
    text = _decoded_text(part)
    cut = PIPERMAIL_NEXT_PART.search(text)
    return text[: cut.start()] if cut else text


def scrubbed_text(message: Message) -> str:
    """What pipermail inlined after its "next part" lines, in the text parts `message_content`
    reads, that is text: an attachment it kept as text (a patch, a log), not its notes of what it
    removed (`A non-text attachment was scrubbed...`, with the name, type and URL). Not `content`
    (HyperKitty's rule), but searched (docs/archive-search.md)."""
    parts = [message] if not message.is_multipart() else _walk(message)
    sections = []
    for part in parts:
        content_type = part.get_content_type()
        if part.is_multipart() or content_type in ("text/html", "message/rfc822"):
            continue
        if message.is_multipart() and (content_type != "text/plain" or _is_attachment(part)):
            continue
        text = _decoded_text(part)
        cut = PIPERMAIL_NEXT_PART.search(text)
        if cut:
            sections += PIPERMAIL_NEXT_PART.split(text[cut.end() :])
    return "\n".join(section for section in sections if not PIPERMAIL_NOTE.match(section))


def _is_attachment(part: Message) -> bool:
    disposition = part.get("Content-Disposition")
    return isinstance(disposition, str) and disposition.split(";", 1)[0].strip().lower() == "attachment"


def message_content(message: Message) -> tuple[str, list[Attachment]]:
    """(content, attachments) of a message, attachments in counter order."""
    if not message.is_multipart():
        if message.get_content_type() == "text/html":
            return "\n", [_attachment(message, "text/html", 0)]
        return _part_text(message), []
    texts: list[str] = []
    attachments: list[Attachment] = []
    for counter, part in enumerate(_walk(message)):
        content_type = part.get_content_type()
        if (
            content_type == "message/rfc822"
            or content_type == "text/html"
            or (content_type == "text/plain" and _is_attachment(part))
        ):
            # The scrubber replaces such a part by an empty text: it still adds a line to the join.
            attachments.append(_attachment(part, content_type, counter))
            texts.append(PLACEHOLDER)
        elif part.is_multipart():
            continue
        elif content_type == "text/plain":
            text = _part_text(part)
            texts.append(text if text.endswith("\n") else text + "\n")
        elif part.get_payload():
            attachments.append(_attachment(part, content_type, counter))
    return "\n".join(texts), attachments


def _walk(part: Message) -> Iterator[Message]:
    """Depth-first, like Message.walk(), but an attached message is one part: its own parts are
    neither the author's text nor counted (the scrubber has replaced it before reaching them)."""
    yield part
    if part.is_multipart() and part.get_content_type() != "message/rfc822":
        for inner in cast(list[Message], part.get_payload()):
            yield from _walk(inner)


def _attachment(part: Message, content_type: str, counter: int) -> Attachment:
    """The attachment of `part`, whose content type is `content_type` (asked once: 8 µs a time)."""
    charset = part.get_content_charset()
    return Attachment(
        counter=counter,
        name=attachment_name(_filename(part), content_type),
        content_type=content_type[:MAX_NAME_LENGTH],
        encoding=charset[:64] if charset else None,
        content=_stored_bytes(part, content_type, charset),
    )


def _filename(part: Message) -> str | None:
    """The part's file name, or "" when it has one that cannot be decoded, or None."""
    try:
        name = part.get_filename()
    except (ValueError, LookupError, UnicodeError):
        return ""
    if name is None:
        return None
    try:
        return decode_header(name.encode("utf-8", "surrogateescape").decode("utf-8", "strict"))
    except UnicodeError:
        return ""


def attachment_name(filename: str | None, content_type: str) -> str:
    """A safe file name: no folding, directories or leading dots, only letters, digits, - _ .;
    the content type's extension added when the name has none; `attachment` when it has no name."""
    extension = ".txt" if content_type == "message/rfc822" else (_MIME_TYPES.guess_extension(content_type) or ".bin")
    if filename == "":
        return "attachment.bin"
    name = re.split(r"[/\\:]", re.sub(r"[\r\n]+", "", filename or ""))[-1]
    name = re.sub(r"[^\w.-]", "", name, flags=re.UNICODE).lstrip(".")
    if not name:
        return "attachment" + extension
    if "." not in name:
        name += extension
    return name[-MAX_NAME_LENGTH:]


def _stored_bytes(part: Message, content_type: str, charset: str | None) -> bytes:
    """Non-text parts transfer-decoded; text parts as text, re-encoded in the declared charset."""
    if content_type == "message/rfc822":
        inner = part.get_payload()
        attached = inner[0] if isinstance(inner, list) and inner else None
        text = attached.as_string() if isinstance(attached, Message) else str(inner or "")
    elif content_type.startswith("text/"):
        text = decode_bytes(_payload_bytes(part), charset)
    else:
        return _payload_bytes(part)
    codec = known_charset(charset) or "utf-8"
    try:
        return text.encode(codec, "replace")
    except UnicodeError:
        return text.encode("utf-8", "replace")
