"""Lenient decoding of bodies and RFC 2047 headers (sathub.archive.mail.charsets)."""

import pytest

from sathub.archive.mail.charsets import decode_bytes, decode_header


@pytest.mark.parametrize(
    "raw, decoded",
    [
        ("[Gpsd-dev] plain", "[Gpsd-dev] plain"),
        ("=?iso-8859-1?q?Caf=E9?= au lait", "Café au lait"),
        ("=?utf-8?b?w6k=?= =?utf-8?b?w6k=?=", "éé"),  # whitespace between encoded words is dropped
        ("=?utf-8?b?ww==?= =?utf-8?b?qQ==?=", "é"),  # one character split over two words
        ("=?utf-8?q?=C3?=\n =?utf-8?q?=A9t=C3=A9?=", "été"),
        ("a\n\tfolded subject", "a\tfolded subject"),
        ("=?x-unknown?q?caf=E9?=", "caf\ufffd"),
        ("Y=?", "Y=?"),
        ("raw 8-bit caf\udce9", "raw 8-bit café"),  # undeclared 8-bit header bytes: iso8859-15
        ("nul\x00byte", "nulbyte"),
    ],
)
def test_decode_header(raw, decoded):
    assert decode_header(raw) == decoded


@pytest.mark.parametrize(
    "data, charset, text",
    [
        ("café".encode(), None, "café"),
        ("café".encode("iso8859-15"), None, "café"),  # not ascii, not utf-8: iso8859-15
        ("€".encode("iso8859-15"), None, "€"),
        ("café".encode("iso8859-15"), "utf-8", "caf\ufffd"),  # wrong charset: utf-8 with U+FFFD
        ("café".encode(), "iso-0646-6", "café"),  # unknown charset: utf-8
        ("中文".encode("gb2312"), "gb2312", "中文"),
    ],
)
def test_decode_bytes(data, charset, text):
    assert decode_bytes(data, charset) == text
