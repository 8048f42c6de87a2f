"""A message's source as the archive keeps it: compressed when it arrives (an import's parse, in
the helper process when there is one, or Mailman's archive call), and given back byte for byte,
or rebuilt from the stored fields for mail archived before sources were kept (rebuild.py). Pure.

Compression: zlib level 6 (docs/archive-export.md, "Raw sources": measured on the corpus against
zlib 1/3/9 and zstd, 980 bytes a message instead of 2,009). `email_sources.compression` names the
codec of each row, so a later codec can be added without rewriting the rows already stored."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from datetime import datetime

from sathub.archive.mail.message import MAX_PARTS, ParsedEmail, parse_email
from sathub.archive.mail.rebuild import rebuilt_message

ZLIB = "zlib"
LEVEL = 6


def compress(data: bytes) -> bytes:
    return zlib.compress(data, LEVEL)


# Where public-inbox's Eml ends a header: the first line break followed by an empty line.
_HEADER_END = re.compile(rb"\r?\n\r?\n")


def body_lines(data: bytes) -> int:
    """The lines of a message's body as public-inbox counts them for NNTP's :lines (its OverIdx:
    the line feeds after the header's blank line; none without one)."""
    end = _HEADER_END.search(data)
    return 0 if end is None else data.count(b"\n", end.end())


def decompress(compression: str, data: bytes) -> bytes:
    if compression != ZLIB:
        raise ValueError(f"unknown compression {compression!r}")
    return zlib.decompress(data)


def parsed_with_source(
    data: bytes, from_line: str | None, import_time: datetime, max_parts: int = MAX_PARTS
) -> ParsedEmail | str:
    """The message parsed (its first `max_parts` MIME parts), with its whole source compressed
    beside it (40 us a message); else the reason it cannot be archived, for the import's summary:
    one bad message must not stop an import."""
    try:
        email = parse_email(data, from_line, import_time, max_parts)
    except Exception as exc:
        return f"cannot be decoded ({type(exc).__name__})"
    email.source, email.source_size, email.envelope = compress(data), len(data), from_line
    email.source_lines = body_lines(data)
    return email


def source_of(row, attachments: Sequence) -> bytes:
    """The message of a stored row (store/email_sources.py) as received when its source was kept,
    else rebuilt from the stored fields and its `attachments`."""
    if row.data is not None:
        return decompress(row.compression, bytes(row.data))
    return rebuilt_message(row, attachments)
