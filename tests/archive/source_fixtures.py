"""A small mbox of hard cases for the raw and export tests, written byte by byte here (the
expected answers come from these bytes, never from the code under test)."""

from __future__ import annotations

import gzip
import zlib

from sathub.archive.ingest.importer import import_archive
from sathub.archive.mail.ids import message_id_hash

LIST = "dev@lists.example.org"
ENVELOPES = [
    b"From ann@example.com Mon Jan  6 10:00:00 2020",
    b"From bob@example.com Tue Jan  7 11:00:00 2020",
    b"From carl at example.com  Sat Feb  1 09:30:00 2020",  # pipermail's: no address
]
# One: ASCII, a body with every kind of From line mboxrd must quote (and one it must not).
ONE = (
    b"From: Ann Example <ann@example.com>\n"
    b"Subject: one\n"
    b"Message-ID: <one@example.org>\n"
    b"Date: Mon, 06 Jan 2020 10:00:00 +0000\n"
    b"\n"
    b"Body\n"
    b">From the quoted start\n"
    b">>From twice quoted\n"
    b"Fromage is not a From line\n"
    b" From indented is not either\n"
)
# Two: a reply, 8-bit UTF-8, a body line "From " that pipermail left unescaped would cut; here it
# is escaped by the file (">From "), so it stays as the message has it.
TWO = (
    "From: Bob <bob@example.com>\n"
    "Subject: Re: one\n"
    "Message-ID: <two@example.org>\n"
    "In-Reply-To: <one@example.org>\n"
    "Date: Tue, 07 Jan 2020 11:00:00 +0000\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=utf-8\n"
    "Content-Transfer-Encoding: 8bit\n"
    "\n"
    "Grüße\n"
    ">From here\n"
).encode()
# Three: 8-bit Latin-1, declared; ends with an empty line (kept: the source ends "\n\n").
THREE = (
    "From: carl at example.com (Carl)\n"
    "Subject: three\n"
    "Message-ID: <three@example.org>\n"
    "Date: Sat, 01 Feb 2020 09:30:00 +0000\n"
    "Content-Type: text/plain; charset=iso-8859-1\n"
    "\n"
    "caf\xe9\n"
    "\n"
).encode("latin-1")
SOURCES = [ONE, TWO, THREE]
KEYS = ["one@example.org", "two@example.org", "three@example.org"]
HASHES = [message_id_hash(key) for key in KEYS]


def mbox_bytes() -> bytes:
    """The file: each message after its From_ line and followed by a blank line."""
    return b"".join(envelope + b"\n" + source + b"\n" for envelope, source in zip(ENVELOPES, SOURCES, strict=True))


def import_fixture(engine, tmp_path, name: str = LIST, **options):
    path = tmp_path / "dev.mbox"
    path.write_bytes(mbox_bytes())
    return import_archive(engine, name, [path], **options)


def gunzip(data: bytes) -> bytes:
    """The whole gzip stream, checked to be one well-formed member."""
    assert data[:2] == b"\x1f\x8b"
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    result = decompressor.decompress(data) + decompressor.flush()
    assert decompressor.eof and not decompressor.unused_data
    assert gzip.decompress(data) == result
    return result
