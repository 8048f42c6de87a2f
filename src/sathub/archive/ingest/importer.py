"""`sathub archive import`: archive files -> rows, streamed in batches of one transaction each.

Idempotent and order-independent: a message already archived in the list (same Message-ID) is
not added again, but its row is corrected when the current rules derive other values from it
(an archive imported under older rules gets today's answers by importing the same files again;
live mail, in no file, is kept as it is). Threads are recomputed from reply links whatever the
order of arrival, so a reply imported before its parent joins the parent's thread when the parent
arrives. Each batch only reloads the threads it touches, so memory stays flat however large the
archive."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from sathub import db
from sathub.archive.ingest.archive_files import read_archives
from sathub.archive.ingest.parsing import default_processes, parsed_emails
from sathub.archive.ingest.summary import ImportSummary
from sathub.archive.mail.dates import utc_now
from sathub.archive.mail.message import MAX_PARTS, ParsedEmail
from sathub.archive.store import lists as list_store
from sathub.archive.store.corrections import EarlierRows
from sathub.archive.store.pipermail_numbers import record_numbers
from sathub.archive.store.rethreading import rethread_list
from sathub.archive.store.search_partitions import keep_ahead
from sathub.archive.store.writes import refresh_statistics, write_batch
from sathub.archive.tables import PRIVATE, PUBLIC
from sathub.db.engines import Engine, OperationalError, StatementError

BATCH_SIZE = 1000
BUSY_RETRIES = 6  # a locked SQLite database is retried for about 3 s in all


def import_archive(
    engine: Engine,
    list_name: str,
    paths: Iterable[Path],
    *,
    private: bool = False,
    progress: bool = False,
    batch_size: int = BATCH_SIZE,
    parse_processes: int | None = None,
    mboxrd: bool = False,
    pipermail_numbers: bool = False,
    max_parts: int = MAX_PARTS,
) -> ImportSummary:
    """Import every message of `paths` into the list `list_name` (created when missing, once there
    is a message to store: a file without mail creates no list). Files that could not be read to
    their end are in `summary.damaged`; what was read before the damage is stored.
    parse_processes: helper processes for parsing (default: 1 on a multi-core machine).
    mboxrd: the files are mboxrd (sathub's exports), read with `>From ` lines unquoted.
    pipermail_numbers: the files are the list's complete archive, in order (its mbox, or every
    monthly .txt from the first): record each message's pipermail number, its position from 0.
    max_parts: MIME parts of a message split out into its text and attachments (mail/parts_limit.py)."""
    started = time.monotonic()
    list_name = list_name.strip().lower()
    list_id = None
    summary = ImportSummary(list_name)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(unit=" msg", desc=list_name, mininterval=0.5)
    processes = default_processes() if parse_processes is None else parse_processes
    parsed = parsed_emails(
        read_archives([Path(p) for p in paths], mboxrd), summary, utc_now(), processes, bar, max_parts
    )
    earlier = None
    for number, batch in enumerate(_batches(parsed, batch_size), start=1):
        if list_id is None or earlier is None:
            # Committed before any email is written: a private list's mail is never visible, even mid-import.
            list_id = _list_to_import_into(engine, list_name, private)
            earlier = EarlierRows(engine, list_id)
        _write(engine, list_id, batch, earlier, summary, pipermail_numbers)
        if number & (number - 1) == 0:  # after batches 1, 2, 4, 8, ...: while the tables grow
            refresh_statistics(engine)
    if summary.corrected and list_id is not None:
        with engine.begin() as conn:
            rethread_list(conn, list_id)
    if bar is not None:
        bar.close()
    summary.seconds = time.monotonic() - started
    return summary


def _list_to_import_into(engine: Engine, name: str, private: bool) -> int:
    """The id of list `name`, created (public, or private with `private`) in a transaction of its
    own. An existing list becomes private with `private`; it is never made public by an import."""
    with db.connect(engine, write=True) as conn:
        found = list_store.find_list(conn, name) or list_store.create_list(
            conn, name, {"archive_policy": PRIVATE if private else PUBLIC, "created_at": utc_now()}
        )
        if private and found.archive_policy != PRIVATE:
            list_store.update_list(conn, found.id, {"archive_policy": PRIVATE})
        return found.id


def _batches(parsed: Iterator[ParsedEmail], size: int) -> Iterator[list[ParsedEmail]]:
    batch = []
    for email in parsed:
        batch.append(email)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _write(
    engine: Engine,
    list_id: int,
    batch: list[ParsedEmail],
    earlier: EarlierRows,
    summary: ImportSummary,
    numbered: bool = False,
) -> None:
    """Write a batch in one transaction (rows stored before this run corrected first); if
    writing it fails, retry message by message so that only the offending message is skipped.
    A database that is down still stops the import."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            with engine.begin() as conn:
                corrected, met = earlier.correct(conn, batch)
                imported, duplicates, removed = write_batch(conn, list_id, batch)
                if numbered:
                    positions = [(e.position, e.message_id_hash) for e in batch if e.position is not None]
                    record_numbers(conn, list_id, positions)
            break
        except OperationalError as exc:
            # Another writer got in the way (SQLite: committed since this transaction began
            # reading; PostgreSQL: a deadlock between two imports): start the batch over.
            if attempt == BUSY_RETRIES or not any(word in str(exc.orig) for word in ("locked", "busy", "deadlock")):
                raise
            time.sleep(0.05 * 2**attempt)
        except Exception as exc:
            if len(batch) == 1:
                reason = "rejected by the database" if isinstance(exc, StatementError) else "could not be stored"
                summary.skipped[f"{reason} ({type(getattr(exc, 'orig', exc)).__name__})"] += 1
                return
            for email in batch:
                _write(engine, list_id, [email], earlier, summary, numbered)
            return
    earlier.met.update(met)  # committed: these rows are settled for the rest of the run
    keep_ahead(engine)
    summary.imported += imported
    summary.duplicates += duplicates
    summary.removed += removed
    summary.corrected += corrected
