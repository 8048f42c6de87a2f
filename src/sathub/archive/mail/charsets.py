"""Lenient decoding of mail text: bodies with declared, wrong, unknown or missing charsets, and
RFC 2047 headers. Real archives hold all of these; decoding never fails, it degrades. Pure."""

from __future__ import annotations

import base64
import binascii
import codecs
import re

# Text without a declared charset: the first of these that decodes.
UNDECLARED_CHARSETS = ("ascii", "utf-8", "iso8859-15")

# Lenient: some mailers put spaces inside the encoded text, which Python's own decoder accepts too.
_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([bBqQ])\?(.*?)\?=")
FOLD = re.compile(r"\r?\n(?=[ \t])")


def known_charset(charset: str | None) -> str | None:
    if not charset:
        return None
    try:
        return codecs.lookup(charset).name
    except (LookupError, ValueError):
        return None


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode with the declared charset; an unknown or wrong one gives UTF-8 with U+FFFD.
    Undeclared: ascii, else utf-8, else iso8859-15 (which decodes anything)."""
    if charset:
        codec = known_charset(charset)
        if codec:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                pass
        return data.decode("utf-8", "replace")
    for candidate in UNDECLARED_CHARSETS[:-1]:
        try:
            return data.decode(candidate)
        except UnicodeDecodeError:
            continue
    return data.decode(UNDECLARED_CHARSETS[-1])


def raw_header_text(text: str) -> str:
    """Header text as parsed: 8-bit bytes arrive as surrogates and are decoded leniently here."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return decode_bytes(text.encode("utf-8", "surrogateescape"), None)


def _decode_word(encoding: str, text: str) -> bytes:
    if encoding in "bB":
        text = re.sub(r"[^A-Za-z0-9+/]", "", text)
        return base64.b64decode(text + "=" * (-len(text) % 4))
    return binascii.a2b_qp(text.replace("_", " ").encode("ascii", "surrogateescape"))


def decode_header(value: str | None) -> str:
    """RFC 2047 decoded, folding unwrapped, lenient with bad encodings and unknown charsets.

    Adjacent encoded words in one charset are joined before decoding (a multi-byte character
    may be split between two words); whitespace between encoded words is dropped (RFC 2047).
    Line breaks and NULs never survive: a header value is one line."""
    if not value:
        return ""
    value = FOLD.sub("", value)
    pieces: list[str] = []
    pending: tuple[str, bytearray] | None = None  # charset and bytes of adjacent encoded words
    position = 0
    for match in _ENCODED_WORD.finditer(value):
        between = value[position : match.start()]
        try:
            word = _decode_word(match.group(2), match.group(3))
        except (ValueError, binascii.Error):
            continue  # left in place as plain text
        charset = match.group(1).split("*", 1)[0].lower()
        if pending and (between.strip() or pending[0] != charset):
            pieces.append(decode_bytes(bytes(pending[1]), pending[0]))
            pending = None
        if pending is None:
            if between.strip() or not pieces:
                pieces.append(raw_header_text(between))
            pending = (charset, bytearray())
        pending[1].extend(word)
        position = match.end()
    if pending:
        pieces.append(decode_bytes(bytes(pending[1]), pending[0]))
    pieces.append(raw_header_text(value[position:]))
    return re.sub(r"[\x00\r\n]", "", "".join(pieces))
