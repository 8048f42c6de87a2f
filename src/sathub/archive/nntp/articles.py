"""An article as the server sends it (RFC 3977 3.1.1 and 6.2): the message's source with the
headers public-inbox's nntpd sets (`Xref`, `Newsgroups`, `Path`: an existing one replaced where it
stands, a missing one added after the others, as its `header_set` does), every line ended by CRLF,
a line that starts with a dot given another, and the block ended by a lone dot. Pure."""

from __future__ import annotations

import re

# A header field's name at the start of a line, and the fields this server sets.
_FIELD = re.compile(rb"([!-9;-~]+)[ \t]*:")
SET_FIELDS = (b"xref", b"newsgroups", b"path")


def split_message(source: bytes) -> tuple[list[bytes], list[bytes]]:
    """The header's lines (a folded field's continuation lines are lines of their own) and the
    body's, without their line ends (LF or CRLF)."""
    lines = source.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if b"" in lines:
        blank = lines.index(b"")
        return lines[:blank], lines[blank + 1 :]
    return lines, []


def with_news_headers(header: list[bytes], server: str, group: str, number: int) -> list[bytes]:
    """The header with `Xref`, `Newsgroups` and `Path` set for article `number` of `group`."""
    values = {
        b"xref": f"Xref: {server} {group}:{number}".encode(),
        b"newsgroups": f"Newsgroups: {group}".encode(),
        b"path": f"Path: {server}!not-for-mail".encode(),
    }
    out: list[bytes] = []
    skipping = False  # within a set field's continuation lines
    for line in header:
        if line[:1] in (b" ", b"\t"):
            if not skipping:
                out.append(line)
            continue
        field = _FIELD.match(line)
        name = field.group(1).lower() if field else None
        skipping = name in SET_FIELDS
        if name in values:
            out.append(values.pop(name))
        elif not skipping:
            out.append(line)
    return out + list(values.values())


def block(lines: list[bytes]) -> bytes:
    """A multi-line data block of these lines: CRLF ends, dots doubled, a lone dot to end it."""
    # One join, the lines stuffed only when one starts with a dot: OVER's 10,000 lines in 1.2 ms
    # instead of 6.5.
    if any(line.startswith(b".") for line in lines):
        lines = [b"." + line if line.startswith(b".") else line for line in lines]
    return b"\r\n".join([*lines, b".", b""])


def article_lines(source: bytes, part: str, server: str, group: str, number: int) -> list[bytes]:
    """The lines of the ARTICLE, HEAD or BODY (`part`) of a message."""
    header, body = split_message(source)
    if part == "BODY":
        return body
    header = with_news_headers(header, server, group, number)
    return header if part == "HEAD" else [*header, b"", *body]
