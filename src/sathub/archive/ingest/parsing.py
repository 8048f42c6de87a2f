"""Raw messages -> ParsedEmail, in arrival order, in a helper process once the archive is big.

Parsing is most of an import's CPU time and does not touch the database, so on a machine with
more than one core a helper process parses the next messages while this one writes the last
batch. Small imports (the first few thousand messages) are parsed in place: starting a process
would cost more than it saves. At most a few chunks are in flight, so memory stays flat."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Iterator
from datetime import datetime

from sathub.archive.ingest.archive_files import RawMessage, Unreadable
from sathub.archive.ingest.summary import ImportSummary
from sathub.archive.mail.kept_source import parsed_with_source
from sathub.archive.mail.message import MAX_PARTS, ParsedEmail

CHUNK = 250  # messages sent to the helper at a time
IN_PLACE_CHUNKS = 8  # parsed here before a helper process is worth starting
IN_FLIGHT = 4  # chunks queued in the helper


def default_processes() -> int:
    return 1 if (os.cpu_count() or 1) > 1 else 0


def parse_chunk(
    chunk: list[tuple[bytes, str | None]], import_time: datetime, max_parts: int = MAX_PARTS
) -> list[ParsedEmail | str]:
    """Each message parsed with its source compressed (in the helper process when there is one),
    or the reason it cannot be."""
    return [parsed_with_source(data, from_line, import_time, max_parts) for data, from_line in chunk]


def parsed_emails(
    items: Iterator[RawMessage | Unreadable],
    summary: ImportSummary,
    import_time: datetime,
    processes: int,
    progress=None,
    max_parts: int = MAX_PARTS,
) -> Iterator[ParsedEmail]:
    """The parsed emails of `items` in order, each with its `position` among the messages read
    (those that cannot be imported count too: pipermail numbered every message of the list's
    mbox); what cannot be imported, and what is archived without some of its parts, is noted in
    `summary`."""
    position = 0
    for chunk in _results(_chunks(items, summary, progress), import_time, processes, max_parts):
        for item in chunk:
            if isinstance(item, str):
                summary.skipped[item] += 1
            else:
                if item.parts_left_out:
                    summary.parts_left_out.append(item.message_id)
                item.position = position
                yield item
            position += 1


def _chunks(items, summary, progress) -> Iterator[list[tuple[bytes, str | None]]]:
    chunk = []
    for item in items:
        if progress is not None:
            progress.update()
        if isinstance(item, Unreadable):
            if item.damaged:
                summary.damaged.append(item.reason)
            else:
                summary.skipped[item.reason] += 1
            continue
        summary.appended_pieces += item.appended_pieces
        chunk.append((item.data, item.from_line))
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _leave_interrupts_to_the_parent() -> None:
    # Ctrl-C stops the import in the main process, which ends the pool; no traceback from the helper.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _results(chunks, import_time: datetime, processes: int, max_parts: int) -> Iterator[list[ParsedEmail | str]]:
    for number, chunk in enumerate(chunks):
        yield parse_chunk(chunk, import_time, max_parts)
        if processes and number + 1 == IN_PLACE_CHUNKS:
            break
    else:
        return
    # fork, not spawn/forkserver: those re-run the caller's __main__ in the helper, which breaks
    # scripts without a __main__ guard. The helper only parses: it never touches the inherited
    # database connections, and leaves with os._exit, which closes none of them.
    with multiprocessing.get_context("fork").Pool(processes, initializer=_leave_interrupts_to_the_parent) as pool:
        pending: deque[multiprocessing.pool.AsyncResult] = deque()
        for chunk in chunks:
            pending.append(pool.apply_async(parse_chunk, (chunk, import_time, max_parts)))
            if len(pending) > IN_FLIGHT * processes:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
