"""A message's source as public-inbox 1.9 gives it out (PublicInbox::Mbox msg_hdr and msg_body):
pure, no I/O.

The source is split at its first blank line as PublicInbox::Eml does (LF-only mail at the first
`\n\n`; otherwise at the first `\r?\n\r?\n`, whose line end is the message's own); the header
loses every `Lines`, `Bytes`, `Content-Length` and `Status` field (msg_hdr), and the ones
public-inbox's import drops before it stores a message (PublicInbox::Import's UNWANTED_HEADERS and
PublicInbox::MDA's BAD_HEADERS: `X-Status`, `Delivered-To`, `Approved` which may hold a list's
password, …), continuation lines too, by Eml's own pattern; an mbox `From ` line left at its top
goes. Out comes the line
`From mboxrd@z Thu Jan  1 00:00:00 1970`, the header, the blank line, the body with every line
that starts with `>*From ` quoted by one more `>` (mboxrd; the header is never quoted) and one
more `\n`. Compared byte for byte with public-inbox-httpd 1.9's `…/raw` over the corpus
(tests/archive/public_inbox/test_mboxrd.py holds its answers)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from isal import isal_zlib

FROM_LINE = b"From mboxrd@z Thu Jan  1 00:00:00 1970"
# Eml.pm's $header_size_limit ("same as postfix"): a longer header is cut at its last line end.
HEADER_LIMIT = 102400
_DROPPED = b"|".join(
    re.escape(name)
    for name in (
        *(b"Lines", b"Bytes", b"Content-Length", b"Status", b"X-Status"),
        *(b"Delivered-To", b"X-Original-To", b"Approved", b"Approve", b"X-Approved", b"X-Approve", b"Urgent"),
        *(b"Return-Receipt-To", b"Disposition-Notification-To", b"X-Confirm-Reading-To", b"X-PMRQC"),
    )
)
# Eml.pm's re_memo: the field's first line, then each line with a space or tab before any colon.
_FIELD = re.compile(rb"^(?:" + _DROPPED + rb"):[ \t]*[^\n]*\r?\n(?:[^:\n]*?[ \t]+[^\n]*\r?\n)*", re.I | re.M)
_BLANK_LINE = re.compile(rb"\r?\n(\r?\n)")
_HEADER_ONLY = re.compile(rb"^[a-z0-9-]+[ \t]*:", re.I | re.M)
_LINE_END = re.compile(rb"\r?\n")
_LEADING_FROM = re.compile(rb"\A[\r\n]*From [^\r\n]*\r?\n")
_QUOTE = re.compile(rb"^(>*From )", re.M)


def split(source: bytes) -> tuple[bytes, bytes, bytes | None]:
    """(header, line end, body or None) as PublicInbox::Eml->new splits a message."""
    if b"\r\n" not in source and (end := source.find(b"\n\n")) >= 0:
        return _limited(source[: end + 1]), b"\n", source[end + 2 :]
    if blank := _BLANK_LINE.search(source):
        line_end = blank.group(1)
        return _limited(source[: blank.end() - len(line_end)]), line_end, source[blank.end() :]
    if _HEADER_ONLY.search(source) and (last := re.search(rb"(\r?\n)\Z", source)):
        return _limited(source), last.group(1), None
    first = _LINE_END.search(source)
    return b"", first.group(0) if first else b"\n", source


def _limited(header: bytes) -> bytes:
    if len(header) <= HEADER_LIMIT:
        return header
    header = header[:HEADER_LIMIT]
    return header[: header.rfind(b"\n") + 1]


def one_message(source: bytes) -> bytes:
    """The source as one mboxrd entry of public-inbox's (the module's docstring says how)."""
    header, line_end, body = split(source)
    header = _LEADING_FROM.sub(b"", _FIELD.sub(b"", header), count=1)
    if body is None:
        return FROM_LINE + line_end + header + line_end + b"\n"
    if b"From " in body:  # most bodies skip the regular expression
        body = _QUOTE.sub(rb">\1", body)
    return FROM_LINE + line_end + header + line_end + body + b"\n"


def gzip_mbox(sources: Iterable[list[bytes]]) -> Iterator[bytes]:
    """The gzip of the mboxrd of `sources` (pieces of messages), one flushed piece per chunk: what
    was read reaches the client at once, and memory holds one chunk."""
    compressor = isal_zlib.compressobj(1, isal_zlib.DEFLATED, 16 + isal_zlib.MAX_WBITS)
    for chunk in sources:
        yield compressor.compress(b"".join(one_message(source) for source in chunk)) + compressor.flush(
            isal_zlib.Z_SYNC_FLUSH
        )
    yield compressor.flush()
