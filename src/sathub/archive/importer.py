"""`sathub archive import`: archive files -> rows, streamed in batches of one transaction each.

Idempotent and order-independent: a message already archived in the list (same Message-ID) is
skipped, and threads are recomputed from reply links whatever the order of arrival, so a reply
imported before its parent joins the parent's thread when the parent arrives. Each batch only
reloads the threads it touches, so memory stays flat however large the archive."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sathub.archive.ingest import ParsedEmail, default_mailman_id, usable_address
from sathub.archive.parsing import default_processes, parsed_emails
from sathub.archive.rethreading import allocate_ids, rethread
from sathub.archive.sources import read_archives
from sathub.archive.tables import attachments, emails, mailing_lists, senders

BATCH_SIZE = 1000
BUSY_RETRIES = 6  # a locked SQLite database is retried for about 3 s in all


@dataclass
class ImportSummary:
    list_name: str
    imported: int = 0
    duplicates: int = 0
    appended_pieces: int = 0  # body pieces cut at unescaped `From ` lines, joined back
    skipped: Counter = field(default_factory=Counter)  # reason -> messages
    seconds: float = 0.0

    def describe(self) -> str:
        rate = f" in {self.seconds:.1f} s" if self.seconds else ""
        lines = [f"{self.list_name}: {self.imported} imported, {self.duplicates} duplicates skipped, "
                 f"{sum(self.skipped.values())} skipped{rate}"]
        if self.appended_pieces:
            lines.append(f"  {self.appended_pieces} pieces of message bodies cut at unescaped 'From ' "
                         "lines, appended to the message before them")
        lines += [f"  skipped {count}: {reason}" for reason, count in sorted(self.skipped.items())]
        return "\n".join(lines)


def utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def import_archive(engine: Engine, list_name: str, paths: Iterable[Path], *, private: bool = False,
                   progress: bool = False, batch_size: int = BATCH_SIZE,
                   parse_processes: int | None = None) -> ImportSummary:
    """Import every message of `paths` into the list `list_name` (created when missing).
    parse_processes: helper processes for parsing (default: 1 on a multi-core machine)."""
    started = time.monotonic()
    list_name = list_name.strip().lower()
    # Committed before any email is written: a private list's mail is never visible, even mid-import.
    list_id = ensure_list(engine, list_name, private=private)
    summary = ImportSummary(list_name)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(unit=" msg", desc=list_name, mininterval=0.5)
    processes = default_processes() if parse_processes is None else parse_processes
    parsed = parsed_emails(read_archives([Path(p) for p in paths]), summary, utc_now(), processes, bar)
    for number, batch in enumerate(_batches(parsed, batch_size), start=1):
        _store(engine, list_id, batch, summary)
        if number & (number - 1) == 0:  # after batches 1, 2, 4, 8, ...: while the tables grow
            refresh_statistics(engine)
    if bar is not None:
        bar.close()
    summary.seconds = time.monotonic() - started
    return summary


def _batches(parsed: Iterator[ParsedEmail], size: int) -> Iterator[list[ParsedEmail]]:
    batch = []
    for email in parsed:
        batch.append(email)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _store(engine: Engine, list_id: int, batch: list[ParsedEmail], summary: ImportSummary) -> None:
    """Write a batch in one transaction; if writing it fails, retry message by message so
    that only the offending message is skipped. A database that is down still stops the import."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            with engine.begin() as conn:
                imported, duplicates = write_batch(conn, list_id, batch)
            break
        except sa.exc.OperationalError as exc:
            # Another writer got in the way (SQLite: committed since this transaction began
            # reading; PostgreSQL: a deadlock between two imports): start the batch over.
            if attempt == BUSY_RETRIES or not any(word in str(exc.orig) for word in ("locked", "busy", "deadlock")):
                raise
            time.sleep(0.05 * 2 ** attempt)
        except Exception as exc:  # noqa: BLE001 - one message's fault: find it, skip it alone
            if len(batch) == 1:
                reason = "rejected by the database" if isinstance(exc, sa.exc.StatementError) else "could not be stored"
                summary.skipped[f"{reason} ({type(getattr(exc, 'orig', exc)).__name__})"] += 1
                return
            for email in batch:
                _store(engine, list_id, [email], summary)
            return
    summary.imported += imported
    summary.duplicates += duplicates


def refresh_statistics(engine: Engine) -> None:
    """PostgreSQL plans the importer's lookups from table statistics, which autovacuum refreshes
    late: planned on a nearly empty table, a duplicate check by hash turns into a scan that takes
    seconds per batch at 100,000 emails. ANALYZE of the looked-up columns takes milliseconds."""
    if engine.dialect.name != "postgresql":
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("ANALYZE emails (list_id, message_id_hash, in_reply_to, parent_id, thread_id)")
        conn.exec_driver_sql("ANALYZE threads (id, list_id, thread_id)")
        conn.exec_driver_sql("ANALYZE senders (address)")


def ensure_list(engine: Engine, name: str, *, private: bool = False) -> int:
    """The id of list `name`, created (public, or private with private=True) in its own transaction.
    An existing list becomes private with private=True; it is never made public implicitly."""
    with engine.begin() as conn:
        row = conn.execute(sa.select(mailing_lists.c.id, mailing_lists.c.archive_policy)
                           .where(mailing_lists.c.name == name)).first()
        if row is None:
            return conn.execute(mailing_lists.insert().returning(mailing_lists.c.id), {
                "name": name, "archive_policy": "private" if private else "public", "created_at": utc_now(),
            }).scalar_one()
        if private and row.archive_policy != "private":
            conn.execute(mailing_lists.update().where(mailing_lists.c.id == row.id)
                         .values(archive_policy="private"))
        return row.id


def write_batch(conn: Connection, list_id: int, batch: list[ParsedEmail]) -> tuple[int, int]:
    """Insert the emails of `batch` not yet in the list and rethread what they touch.
    Returns (imported, duplicates)."""
    first_copies: dict[str, ParsedEmail] = {}
    for email in batch:
        first_copies.setdefault(email.message_id_hash, email)
    archived = set(conn.scalars(sa.select(emails.c.message_id_hash).where(
        emails.c.list_id == list_id, emails.c.message_id_hash.in_(list(first_copies)))))
    new = [email for key, email in first_copies.items() if key not in archived]
    if not new:
        return 0, len(batch)
    sender_ids = _sender_ids(conn, {email.sender_address for email in new})
    ids = allocate_ids(conn, emails, len(new))
    places = rethread(conn, list_id, list(zip(ids, new)))
    conn.execute(emails.insert(), [{
        "id": email_id, "list_id": list_id, "message_id": email.message_id,
        "message_id_hash": email.message_id_hash, "sender_id": sender_ids[email.sender_address],
        "sender_name": email.sender_name, "subject": email.subject, "content": email.content,
        "date": email.date, "archived_date": email.archived_date, "in_reply_to": email.in_reply_to,
        "parent_id": places[email_id].parent_id, "thread_id": places[email_id].thread_id,
        "thread_order": places[email_id].order, "thread_depth": places[email_id].depth,
    } for email_id, email in zip(ids, new)])
    attachment_rows = [{"email_id": email_id, "counter": a.counter, "name": a.name,
                        "content_type": a.content_type, "encoding": a.encoding,
                        "size": len(a.content), "content": a.content}
                       for email_id, email in zip(ids, new) for a in email.attachments]
    if attachment_rows:
        conn.execute(attachments.insert(), attachment_rows)
    return len(new), len(batch) - len(new)


def _sender_ids(conn: Connection, addresses: set[str]) -> dict[str, int]:
    query = sa.select(senders.c.address, senders.c.id)
    found = dict(iter(conn.execute(query.where(senders.c.address.in_(list(addresses))))))
    missing = sorted(addresses - found.keys())
    if missing:
        insert_ignoring_conflicts(conn, senders, [
            {"address": address, "mailman_id": default_mailman_id(address)} for address in missing])
        found.update(iter(conn.execute(query.where(senders.c.address.in_(missing)))))
    # A default id can only be taken if a loaded Mailman id reused it: derive another, stably.
    taken = [address for address in missing if address not in found]
    if taken:
        conn.execute(senders.insert(), [{"address": address, "mailman_id": default_mailman_id(address + "#")}
                                        for address in taken])
        found.update(iter(conn.execute(query.where(senders.c.address.in_(taken)))))
    return found


def insert_ignoring_conflicts(conn: Connection, table: sa.Table, rows: list[dict]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING (another import may have created the same row)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    conn.execute(insert(table).on_conflict_do_nothing(), rows)


@dataclass
class MailmanIdsLoad:
    loaded: int = 0
    rejected: list[str] = field(default_factory=list)  # "line N: why"

    def describe(self) -> str:
        return "\n".join([f"{self.loaded} sender ids loaded, {len(self.rejected)} rejected", *self.rejected])


def load_mailman_ids(engine: Engine, rows: Iterable[tuple[str, str]]) -> MailmanIdsLoad:
    """Give each (address, Mailman user id) pair's sender that id, creating the sender when it has
    no mail yet. Ids may be written with dashes (Mailman's UUIDs); they are stored as 32 hex digits.
    An id already given to another address is rejected (one sender per id)."""
    result = MailmanIdsLoad()
    with engine.begin() as conn:
        for line, (address, mailman_id) in enumerate(rows, start=2):  # line 1 is the CSV header
            address = (address or "").strip().lower()
            try:
                mailman_id = uuid.UUID((mailman_id or "").strip()).hex
            except ValueError:
                result.rejected.append(f"line {line}: {mailman_id!r} is not a Mailman user id")
                continue
            if not usable_address(address):
                result.rejected.append(f"line {line}: {address!r} is not an address")
                continue
            owner = conn.execute(sa.select(senders.c.address).where(senders.c.mailman_id == mailman_id)).scalar()
            if owner is not None and owner != address:
                result.rejected.append(f"line {line}: {mailman_id} already belongs to {owner}")
                continue
            changed = conn.execute(senders.update().where(senders.c.address == address)
                                   .values(mailman_id=mailman_id)).rowcount
            if not changed:
                conn.execute(senders.insert().values(address=address, mailman_id=mailman_id))
            result.loaded += 1
    return result
