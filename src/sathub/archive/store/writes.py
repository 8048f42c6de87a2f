"""The SQL of the import: lists, senders, emails and attachments written, statistics refreshed.

Threads are rewritten by rethreading.py as each batch arrives; the dialect-dependent inserts are in
dialect.py."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sathub.archive.mail.ids import default_mailman_id
from sathub.archive.mail.message import ParsedEmail
from sathub.archive.store.email_sources import fill_missing_sources, insert_sources
from sathub.archive.store.overviews import overview_of
from sathub.archive.store.removal_scopes import lock_list
from sathub.archive.store.removals import hide_arrived, removed_hashes
from sathub.archive.store.rethreading import Place, rethread
from sathub.archive.tables import article_counters, attachments, email_references, emails, hidden_emails, senders
from sathub.db.dialect import allocate_ids, as_given, insert_as_is, insert_given, insert_ignoring_conflicts


def write_batch(conn: Connection, list_id: int, batch: list[ParsedEmail]) -> tuple[int, int, int]:
    """Insert the emails of `batch` not yet in the list, nor ever removed from it, and rethread
    what they touch; in a list hidden whole, they are hidden with it. Returns (imported,
    duplicates, removed: copies of mail hidden or deleted, never archived again)."""
    mailing_list = lock_list(conn, list_id)
    first_copies: dict[str, ParsedEmail] = {}
    for email in batch:
        first_copies.setdefault(email.message_id_hash, email)
    removed = removed_hashes(conn, mailing_list.name, first_copies)
    refused = sum(1 for email in batch if email.message_id_hash in removed)
    for key in removed:
        del first_copies[key]
    archived = set(
        conn.scalars(
            sa.select(emails.c.message_id_hash).where(
                emails.c.list_id == list_id, emails.c.message_id_hash.in_(list(first_copies))
            )
        )
    )
    # Mail archived before sources were kept gets the source of the same message imported again.
    fill_missing_sources(conn, list_id, {key: first_copies[key] for key in archived})
    new = [email for key, email in first_copies.items() if key not in archived]
    if not new:
        return 0, len(batch) - refused, refused
    # One sender (one mailman_id) per address in any letter case; each email keeps its spelling.
    senders_by_address = sender_ids(conn, {email.sender_address.lower() for email in new})
    ids = allocate_ids(conn, emails, len(new), shadow=hidden_emails)
    places = rethread(conn, list_id, list(zip(ids, new, strict=True)))
    # Read after the list's row lock is taken: the writer before has committed its numbers.
    last_article = (
        conn.scalar(sa.select(article_counters.c.last_article).where(article_counters.c.list_id == list_id)) or 0
    )
    email_rows = [
        email_row(
            email_id,
            list_id,
            email,
            senders_by_address[email.sender_address.lower()],
            places[email_id],
            last_article + number,
        )
        for number, (email_id, email) in enumerate(zip(ids, new, strict=True), start=1)
    ]
    insert_emails(conn, email_rows, attachment_rows(list(zip(ids, new, strict=True))))
    insert_references(conn, list_id, list(zip(ids, new, strict=True)))
    insert_sources(conn, zip(ids, new, strict=True))
    if mailing_list.hidden_by is not None:
        hide_arrived(conn, list_id, mailing_list.name, [email.message_id_hash for email in new], mailing_list.hidden_by)
    return len(new), len(batch) - len(new) - refused, refused


def insert_emails(conn: Connection, email_rows: list[dict], attachment_rows: list[dict]) -> None:
    """Insert new emails and their attachments, each table in one statement (not one per row):
    the search index's triggers (migration 0010) then index the whole batch at once, each email
    once whatever its number of attachments.

    An email is indexed with the names of its attachments, and indexed again whenever they
    change. SQLite's triggers run for each row: attachments inserted after their email indexed
    it again with the names stored so far, one more each time (issue 40: 2,000 attachments 1.5 s,
    10,000 68 s, with the writers waiting). So SQLite stores the attachments first, while
    their email is not there to be indexed, its foreign key checked at commit instead of at once
    (`defer_foreign_keys`, which every commit turns off again); the email's own trigger then
    indexes it once, with every name. PostgreSQL's triggers run per statement: one statement for
    all the attachments (a COPY), after their emails (executemany sent one per row: 10,000 attachments 9.5 s)."""
    if attachment_rows and conn.dialect.name == "sqlite":
        conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
        insert_as_is(conn, attachments, attachment_rows)  # their emails are not there: nothing is indexed
        _insert(conn, emails, email_rows)
        return
    _insert(conn, emails, email_rows)
    if attachment_rows:
        insert_as_is(conn, attachments, attachment_rows)


def _insert(conn: Connection, table: sa.Table, rows: list[dict]) -> None:
    columns = tuple(rows[0])
    statement = insert_given(conn.dialect.name, table, columns)
    if conn.dialect.name == "postgresql":
        conn.execute(statement, as_given(conn, rows, columns))
        return
    # SQLite runs an executemany as one statement per row, and FTS5 writes out its pending index
    # at the end of every statement (a segment per email, merged again and again): the search
    # triggers cost 2.6 times what they cost for the same rows in one statement. RETURNING makes
    # SQLAlchemy send the rows as multi-row VALUES (its "insertmanyvalues"), up to 1,000 a statement.
    conn.execute(statement.returning(*table.primary_key.columns), rows).all()


def email_row(
    email_id: int, list_id: int, email: ParsedEmail, sender_id: int, place: Place, article_number: int
) -> dict:
    """The emails row of a new email; `article_number` is the list's last article number plus its
    place among the new ones (the trigger of migration 0028 moves the list's counter up to it)."""
    return {
        "id": email_id,
        "list_id": list_id,
        "message_id": email.message_id,
        "message_id_hash": email.message_id_hash,
        "sender_id": sender_id,
        "sender_address": email.sender_address,
        "sender_name": email.sender_name,
        "subject": email.subject,
        "content": email.content,
        "sender_comment": email.sender_comment,
        "scrubbed": email.scrubbed,
        "date": email.date,
        "archived_date": email.archived_date,
        "in_reply_to": email.in_reply_to,
        "parent_id": place.parent_id,
        "thread_id": place.thread_id,
        "thread_order": place.order,
        "thread_depth": place.depth,
        "article_number": article_number,
        "references_read": True,
        "overview": overview_of(email),
    }


def attachment_rows(stored: list[tuple[int, ParsedEmail]]) -> list[dict]:
    """The attachments rows of (emails.id, email) pairs."""
    return [
        {
            "email_id": email_id,
            "counter": a.counter,
            "name": a.name,
            "content_type": a.content_type,
            "encoding": a.encoding,
            "size": len(a.content),
            "content": a.content,
        }
        for email_id, email in stored
        for a in email.attachments
    ]


def insert_references(conn: Connection, list_id: int, stored: list[tuple[int, ParsedEmail]]) -> None:
    """The email_references rows of (emails.id, email) pairs, in one statement; none when no email
    names another (a lone new message: the live archive call's statements stay two inserts)."""
    rows = [
        {"email_id": email_id, "position": position, "list_id": list_id, "message_id": message_id}
        for email_id, email in stored
        for position, message_id in enumerate(email.references)
    ]
    if rows:
        _insert(conn, email_references, rows)


def sender_ids(conn: Connection, addresses: set[str]) -> dict[str, int]:
    """senders.id of each lowercase address, creating the missing senders with their default id."""
    query = sa.select(senders.c.address, senders.c.id)
    found = dict(iter(conn.execute(query.where(senders.c.address.in_(list(addresses))))))
    missing = sorted(addresses - found.keys())
    if missing:
        insert_ignoring_conflicts(
            conn, senders, [{"address": address, "mailman_id": default_mailman_id(address)} for address in missing]
        )
        found.update(iter(conn.execute(query.where(senders.c.address.in_(missing)))))
    # A default id can only be taken if a loaded Mailman id reused it: derive another, stably.
    taken = [address for address in missing if address not in found]
    if taken:
        conn.execute(
            senders.insert(),
            [{"address": address, "mailman_id": default_mailman_id(address + "#")} for address in taken],
        )
        found.update(iter(conn.execute(query.where(senders.c.address.in_(taken)))))
    return found


def mailman_id_owner(conn: Connection, mailman_id: str) -> str | None:
    """The address of the sender that has this Mailman user id, if any."""
    return conn.execute(sa.select(senders.c.address).where(senders.c.mailman_id == mailman_id)).scalar()


def set_mailman_id(conn: Connection, address: str, mailman_id: str) -> None:
    """Give the sender of `address` this Mailman user id, creating the sender when it has no mail yet."""
    changed = conn.execute(senders.update().where(senders.c.address == address).values(mailman_id=mailman_id)).rowcount
    if not changed:
        conn.execute(senders.insert().values(address=address, mailman_id=mailman_id))


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
