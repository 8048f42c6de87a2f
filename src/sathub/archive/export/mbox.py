"""Messages -> an mbox in the mboxrd form, gzip-compressed as it goes. Pure: no I/O, no SQL.

Each message is its `From ` separator line, its source with every line that starts with `>*From `
quoted by one more `>` (mboxrd: reading removes one `>` again, so the source comes back byte for
byte; mboxo, which quotes only `From `, cannot tell a quoted line from one sent as `>From `),
and one blank line. The separator is the `From ` line the message was imported with, else one
made of the envelope sender (the address as the message spells it) and the archived date in
asctime form (`From alice@example.com Mon Jan  6 10:00:00 2020`): the date sathub's import reads
back as the archived date, and the one HyperKitty's import takes when Date is unusable.

A source is written as kept; a message archived before sources were kept is rebuilt
(mail/rebuild.py). A source that does not end with a line end gets one (mbox cannot say otherwise):
the only byte of a source that an export cannot carry back."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from isal import isal_zlib

from sathub.archive.mail.kept_source import ZLIB, source_of
from sathub.archive.mail.rebuild import rebuilt_message

# The export's gzip is ISA-L's (python-isal: Intel's deflate, zlib's formats and API), level 1 of
# its 0-3: on gpsd-dev's 21.5 MB of mbox it deflates at 600 MB/s of CPU against zlib 1.2.13's 144,
# for a file 2.5 % smaller than zlib level 1's, and inflates the stored sources ~1.5x as fast
# (320 against 217 MB/s; docs/archive-export.md). `codec` takes zlib too (the benchmark compares them).
CODEC: Any = isal_zlib
GZIP_LEVEL = 1
_QUOTE = re.compile(rb"^(>*From )", re.MULTILINE)
_SPACE = re.compile(r"\s+")


def asctime(value: datetime) -> str:
    """`Mon Jan  6 10:00:00 2020`, the date form of mbox `From ` lines (C's asctime)."""
    return f"{value:%a %b} {value.day:2d} {value:%H:%M:%S} {value.year:04d}"


def separator(row) -> bytes:
    """The `From ` line of a message row (envelope, sender_address, archived_date), with its LF."""
    if row.envelope:
        return row.envelope.encode("latin-1", "replace") + b"\n"
    sender = _SPACE.sub("", row.sender_address) or "MAILER-DAEMON"
    return f"From {sender} {asctime(row.archived_date)}\n".encode("latin-1", "replace")


def gzip_stream(
    chunks: Iterable[tuple[Sequence, dict[int, list]]], level: int = GZIP_LEVEL, codec: Any = CODEC
) -> Iterator[bytes]:
    """The gzip bytes of the mbox of `chunks` (rows, attachments of the rows without a source), one
    piece per chunk: each piece is flushed (Z_SYNC_FLUSH), so what was read reaches the client at
    once, and memory holds one chunk, never the export.

    Each message is its separator, its quoted source and a blank line, added as pieces that are
    joined once per chunk (no message is copied into an entry, then the entry into the chunk), and
    each source is inflated into a buffer of its known size (together measured within the noise of
    an export's time; the gzip's codec is what counted)."""
    compressor = codec.compressobj(level, codec.DEFLATED, 16 + codec.MAX_WBITS)
    inflate, sync = codec.decompress, codec.Z_SYNC_FLUSH
    for rows, rebuilt in chunks:
        pieces: list[bytes] = []
        add = pieces.append
        for row in rows:
            data = row.data
            if data is None:
                source = rebuilt_message(row, rebuilt.get(row.id, ()))
            elif row.compression == ZLIB:
                source = inflate(data, 15, row.size or 16384)
            else:
                source = source_of(row, ())  # a codec of later days: its own error
            add(separator(row))
            if b"From " in source:  # rare outside headers: most sources skip the regular expression
                source = _QUOTE.sub(rb">\1", source)
            add(source)
            add(b"\n" if source[-1:] == b"\n" else b"\n\n")
        yield compressor.compress(b"".join(pieces)) + compressor.flush(sync)
    yield compressor.flush()
