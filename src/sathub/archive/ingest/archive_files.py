"""Raw messages out of archive files, streamed: mbox (plain, .gz, .bz2, .xz), pipermail monthly
`.txt` archives (mbox without From-escaping), maildir folders, and folders of such files.

Like Python's `mailbox.mbox` (the splitter HyperKitty uses), every line starting with `From `
begins a message. In pipermail archives that also cuts bodies at unescaped `From ` lines; the
piece that follows is the rest of the previous message, so it is appended to it
(spec/archive-api.md, "Importing"). Such a piece is recognised by a header block without From,
Date, Message-ID and Subject, or, for a patch pasted into a body, by the fixed separator line of
`git format-patch` and no Message-ID."""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from io import BufferedIOBase
from pathlib import Path

# The header lines at the start of a piece, up to the first line that is blank or not a header.
_HEADER_BLOCK = re.compile(rb"(?:[!-9;-~]+[ \t]*:[^\n]*(?:\n|\Z)(?:[ \t][^\n]*(?:\n|\Z))*)*")
# A piece whose header block has none of these is the continuation of the previous message.
_MESSAGE_HEADER = re.compile(rb"^(?:from|date|message-id|subject)[ \t]*:", re.IGNORECASE | re.MULTILINE)
_MESSAGE_ID_HEADER = re.compile(rb"^message-id[ \t]*:", re.IGNORECASE | re.MULTILINE)
# `git format-patch` starts each patch with this line (a commit id and a fixed date).
_FORMAT_PATCH_LINE = re.compile(rb"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\r?\n?$")
# A body line of an mboxrd file that was quoted on writing: `>From `, `>>From `, ...
_MBOXRD_QUOTED = re.compile(rb"^>(>*From )", re.MULTILINE)
_OPENERS = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))


@dataclass(slots=True)
class RawMessage:
    data: bytes  # headers and body, without the From_ line
    from_line: str | None  # the mbox separator line, when there was one
    origin: str  # file (and message number) for messages in the summary
    appended_pieces: int = 0  # pieces of its body that followed unescaped `From ` lines


@dataclass(slots=True)
class Unreadable:
    """Something in an archive that holds no message (counted as skipped with this reason)."""

    reason: str
    origin: str
    damaged: bool = False  # the file could not be read to its end: the import has failed


def read_archives(paths: list[Path], mboxrd: bool = False) -> Iterator[RawMessage | Unreadable]:
    """mboxrd: the mbox files are in the mboxrd form (sathub's and public-inbox's exports): a body
    line `>From `, `>>From `, ... loses one `>`, giving back the line as it was sent."""
    for path in paths:
        yield from read_path(Path(path), mboxrd)


def read_path(path: Path, mboxrd: bool = False) -> Iterator[RawMessage | Unreadable]:
    if path.is_dir():
        if (path / "cur").is_dir() or (path / "new").is_dir():
            yield from read_maildir(path)
        else:
            for child in sorted(p for p in path.iterdir() if not p.name.startswith(".")):
                yield from read_path(child, mboxrd)
        return
    try:
        with open_archive(path) as stream:
            yield from read_mbox(stream, str(path), mboxrd)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        # The messages read so far stay imported; the damaged rest is reported, the next file read.
        yield Unreadable(f"unreadable archive file {path} ({exc})", str(path), damaged=True)


def open_archive(path: Path) -> BufferedIOBase:
    """The file's bytes, decompressed when it starts with a gzip, bzip2 or xz signature."""
    with open(path, "rb") as probe:
        magic = probe.read(6)
    for signature, opener in _OPENERS:
        if magic.startswith(signature):
            return opener(path, "rb")
    return open(path, "rb")


def read_maildir(path: Path) -> Iterator[RawMessage | Unreadable]:
    """Each file of cur/ and new/ is one message, in file-name order (delivery time for most MTAs)."""
    for folder in ("cur", "new"):
        if not (path / folder).is_dir():
            continue
        for file in sorted(p for p in (path / folder).iterdir() if p.is_file() and not p.name.startswith(".")):
            data = file.read_bytes()
            from_line = None
            if data.startswith(b"From "):
                first, _, data = data.partition(b"\n")
                from_line = first.decode("latin-1").rstrip("\r")
            yield RawMessage(data, from_line, str(file))


def is_continuation(from_line: bytes, piece: bytes) -> bool:
    """True when `piece` is not a message but body text cut off at an unescaped `From ` line."""
    found = _HEADER_BLOCK.match(piece)
    assert found is not None  # the pattern matches the empty string too
    header_block = found.group()
    if not _MESSAGE_HEADER.search(header_block):
        return True
    return bool(_FORMAT_PATCH_LINE.match(from_line)) and not _MESSAGE_ID_HEADER.search(header_block)


def read_mbox(stream: BufferedIOBase, origin: str, mboxrd: bool = False) -> Iterator[RawMessage | Unreadable]:
    pending: RawMessage | None = None
    number = 0
    for from_line, body in split_mbox(stream):
        if mboxrd:
            body = _MBOXRD_QUOTED.sub(rb"\1", body)
        if from_line is None:
            if body.strip():
                yield Unreadable("text before the first From line (not an mbox message)", origin)
            continue
        if is_continuation(from_line, body):
            if pending is not None:
                pending.data += from_line + body
                pending.appended_pieces += 1
            else:
                yield Unreadable("body text cut at a 'From ' line, with no message before it", origin)
            continue
        if pending is not None:
            yield _finished(pending)
        number += 1
        pending = RawMessage(body, from_line.decode("latin-1").rstrip("\r\n"), f"{origin} #{number}")
    if pending is not None:
        yield _finished(pending)


def _finished(message: RawMessage) -> RawMessage:
    # The blank line before the next From_ line separates messages; it is not part of the body.
    if message.data.endswith(b"\n\n"):
        message.data = message.data[:-1]
    elif message.data.endswith(b"\r\n\r\n"):
        message.data = message.data[:-2]
    return message


def split_mbox(stream: BufferedIOBase, chunk_size: int = 1 << 20) -> Iterator[tuple[bytes | None, bytes]]:
    """(From_ line, following text) per piece; the first piece has None when text precedes any
    From_ line. Reads big chunks and searches them, much faster than reading line by line."""
    buffer = bytearray()
    start = 0  # where the current piece begins
    searched = 0  # no separator begins before this offset
    while True:
        chunk = stream.read(chunk_size)
        if chunk:
            if start:
                del buffer[:start]
                searched -= start
                start = 0
            buffer += chunk
        while True:
            found = buffer.find(b"\nFrom ", max(searched, start))
            if found < 0:
                break
            yield _piece(bytes(buffer[start : found + 1]))
            start = searched = found + 1
        if not chunk:
            break
        searched = max(start, len(buffer) - 6)
    if len(buffer) > start:
        yield _piece(bytes(buffer[start:]))


def _piece(text: bytes) -> tuple[bytes | None, bytes]:
    if not text.startswith(b"From "):
        return None, text
    end = text.find(b"\n") + 1 or len(text)
    return text[:end], text[end:]
