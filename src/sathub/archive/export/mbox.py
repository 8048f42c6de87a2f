"""Messages -> an mbox in the mboxrd form, gzip-compressed as it goes. Pure: no I/O, no SQL.

Each message is its `From ` separator line, its source with every line that starts with `>*From `
quoted by one more `>` (mboxrd: reading removes one `>` again, so the source comes back byte for
byte; mboxo, which quotes only `From `, cannot tell a quoted line from one sent as `>From `),
and one blank line. The separator is the `From ` line the message was imported with, else one
made of the envelope sender (the address as the message spells it) and the archived date in
asctime form (`From alice@example.com Mon Jan  6 10:00:00 2020`): the date sathub's import reads
back as the archived date, and the one HyperKitty's import takes when Date is unusable.

A source is written as kept; a message archived before sources were kept is rebuilt
(rebuild.py). A source that does not end with a line end gets one (mbox cannot say otherwise):
the only byte of a source that an export cannot carry back."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from isal import isal_zlib

from sathub.archive.export.rebuild import rebuilt_message
from sathub.archive.store.sources import ZLIB, decompress

# The export's gzip is ISA-L's (python-isal: Intel's deflate, zlib's formats and API), level 1 of
# its 0-3: on the corpus's mbox it deflates ~4x as fast as zlib's level 1 for a slightly smaller
# file, and inflates the stored sources ~1.5x as fast (bench/README.md, "archive sources and
# export"; docs/archive-export.md). `codec` takes zlib too (the benchmark compares them).
CODEC: Any = isal_zlib
GZIP_LEVEL = 1
_QUOTE = re.compile(rb"^(>*From )", re.MULTILINE)
_SPACE = re.compile(r"\s+")


def asctime(value: datetime) -> str:
    """`Mon Jan  6 10:00:00 2020`, the date form of mbox `From ` lines (C's asctime)."""
    return f"{value:%a %b} {value.day:2d} {value:%H:%M:%S %Y}"


def separator(row) -> bytes:
    """The `From ` line of a message row (envelope, sender_address, archived_date), with its LF."""
    if row.envelope:
        return row.envelope.encode("latin-1", "replace") + b"\n"
    sender = _SPACE.sub("", row.sender_address) or "MAILER-DAEMON"
    return f"From {sender} {asctime(row.archived_date)}\n".encode("latin-1", "replace")


def source_of(row, attachments: Sequence) -> bytes:
    """The message as received when its source was kept, else rebuilt from the stored fields."""
    if row.data is not None:
        return decompress(row.compression, bytes(row.data))
    return rebuilt_message(row, attachments)


def mboxrd_entry(row, attachments: Sequence = ()) -> bytes:
    """One message of the mbox: separator, quoted source, blank line."""
    source = source_of(row, attachments)
    end = b"\n" if source.endswith(b"\n") else b"\n\n"
    if b"From " in source:  # rare outside headers: most sources skip the regular expression
        source = _QUOTE.sub(rb">\1", source)
    return separator(row) + source + end


def gzip_stream(
    chunks: Iterable[tuple[Sequence, dict[int, list]]], level: int = GZIP_LEVEL, codec: Any = CODEC
) -> Iterator[bytes]:
    """The gzip bytes of the mbox of `chunks` (rows, attachments of the rows without a source), one
    piece per chunk: each piece is flushed (Z_SYNC_FLUSH), so what was read reaches the client at
    once, and memory holds one chunk, never the export.

    The loop is mboxrd_entry's, unrolled: the pieces of a chunk's messages are joined once (no
    message is copied into an entry, then the entry into the chunk), and each source is inflated
    into a buffer of its known size (bench/README.md, "archive sources and export")."""
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
            if b"From " in source:
                source = _QUOTE.sub(rb">\1", source)
            add(source)
            add(b"\n" if source[-1:] == b"\n" else b"\n\n")
        yield compressor.compress(b"".join(pieces)) + compressor.flush(sync)
    yield compressor.flush()
