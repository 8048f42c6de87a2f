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
import zlib
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

from sathub.archive.export.rebuild import rebuilt_message
from sathub.archive.store.sources import decompress

# gzip level of the export: level 1 deflates the corpus's mbox at ~4x the speed of level 6 for
# a file ~10 % larger (bench/archive_export.py; docs/archive-export.md).
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


def gzip_stream(chunks: Iterable[tuple[Sequence, dict[int, list]]], level: int = GZIP_LEVEL) -> Iterator[bytes]:
    """The gzip bytes of the mbox of `chunks` (rows, attachments of the rows without a source), one
    piece per chunk: each piece is flushed (Z_SYNC_FLUSH), so what was read reaches the client at
    once, and memory holds one chunk, never the export."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    for rows, rebuilt in chunks:
        mbox = b"".join([mboxrd_entry(row, rebuilt.get(row.id, ())) for row in rows])
        yield compressor.compress(mbox) + compressor.flush(zlib.Z_SYNC_FLUSH)
    yield compressor.flush()
