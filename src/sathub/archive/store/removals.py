"""The SQL of hide, unhide and delete (archive/removal/): rows moved out of sight and back, erased,
tombstoned and logged, all in the caller's write transaction.

A hidden message's rows move to the hidden_* tables as they are, so that no door, index, count
or trigger sees them, and no read pays for removal existing; the search index forgets them
through its own triggers, and the list's revision (the ETags) moves through 0024's."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.removal_scopes import Scope, shown
from sathub.archive.store.removal_threads import open_gaps, reopen
from sathub.archive.store.rethreading import chunks
from sathub.archive.tables import (
    DELETED,
    HIDDEN,
    archive_removals,
    archive_removed,
    attachments,
    email_references,
    email_sources,
    emails,
    hidden_attachments,
    hidden_email_references,
    hidden_email_sources,
    hidden_emails,
    mailing_lists,
    senders,
    threads,
)

_EMAIL_COLUMNS = tuple(column.name for column in emails.columns)
_ATTACHMENT_COLUMNS = tuple(column.name for column in attachments.columns)
_SOURCE_COLUMNS = tuple(column.name for column in email_sources.columns)
_REFERENCE_COLUMNS = tuple(column.name for column in email_references.columns)


def log(conn: Connection, values: dict) -> int:
    """Write one audit row (action, scope, list_name, reason, actor, at, messages); its id."""
    return conn.execute(archive_removals.insert().values(**values).returning(archive_removals.c.id)).scalar_one()


def hashed_address(address: str) -> str:
    """How the audit log names a sender whose mail was deleted: what it erased stays erased."""
    return "sha256:" + hashlib.sha256(address.lower().encode()).hexdigest()


def hide(conn: Connection, chosen: list[Row], list_names: dict[int, str], removal_id: int) -> None:
    """Move the chosen shown messages (removal_scopes rows) out of sight, their threads closed
    over the gap as HyperKitty closes them."""
    ids = [row.id for row in chosen]
    keys = sa.select(threads.c.thread_id).where(threads.c.id == emails.c.thread_id).scalar_subquery()
    for chunk in chunks(ids):
        conn.execute(
            hidden_emails.insert().from_select(
                (*_EMAIL_COLUMNS, "thread_key", "removal_id"),
                sa.select(*emails.c, keys, sa.literal(removal_id)).where(emails.c.id.in_(chunk)),
            )
        )
        conn.execute(
            hidden_attachments.insert().from_select(
                _ATTACHMENT_COLUMNS, sa.select(*attachments.c).where(attachments.c.email_id.in_(chunk))
            )
        )
        conn.execute(
            hidden_email_sources.insert().from_select(
                _SOURCE_COLUMNS, sa.select(*email_sources.c).where(email_sources.c.email_id.in_(chunk))
            )
        )
        conn.execute(
            hidden_email_references.insert().from_select(
                _REFERENCE_COLUMNS, sa.select(*email_references.c).where(email_references.c.email_id.in_(chunk))
            )
        )
    _tombstone(conn, chosen, list_names, HIDDEN, removal_id)
    _take_out(conn, chosen)


def unhide(conn: Connection, chosen: list[Row]) -> None:
    """Bring the chosen hidden messages back as they were, their threads as they were."""
    ids = [row.id for row in chosen]
    touched = reopen(conn, ids)
    # Attachments before their emails on SQLite, as store/writes.insert_emails does: the email's
    # search trigger then indexes it once, with every attachment's name.
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
    for chunk in chunks(ids):
        if sqlite:
            _restore_attachments(conn, chunk)
        # Back in its thread's row if the thread is still there (else the rethreading makes one).
        thread = sa.case((sa.exists().where(threads.c.id == hidden_emails.c.thread_id), hidden_emails.c.thread_id))
        columns = [hidden_emails.c[name] for name in _EMAIL_COLUMNS if name not in ("thread_id", "parent_id")]
        conn.execute(
            emails.insert().from_select(
                (*(column.name for column in columns), "thread_id", "parent_id"),
                sa.select(*columns, thread, sa.null()).where(hidden_emails.c.id.in_(chunk)),
            )
        )
        if not sqlite:
            _restore_attachments(conn, chunk)
        conn.execute(
            email_sources.insert().from_select(
                _SOURCE_COLUMNS,
                sa.select(*(hidden_email_sources.c[name] for name in _SOURCE_COLUMNS)).where(
                    hidden_email_sources.c.email_id.in_(chunk)
                ),
            )
        )
        conn.execute(
            email_references.insert().from_select(
                _REFERENCE_COLUMNS,
                sa.select(*(hidden_email_references.c[name] for name in _REFERENCE_COLUMNS)).where(
                    hidden_email_references.c.email_id.in_(chunk)
                ),
            )
        )
    touched.write(conn)
    for chunk in chunks(ids):
        conn.execute(
            archive_removed.delete().where(
                sa.tuple_(archive_removed.c.list_name, archive_removed.c.message_id_hash).in_(
                    sa.select(mailing_lists.c.name, hidden_emails.c.message_id_hash)
                    .join_from(hidden_emails, mailing_lists, mailing_lists.c.id == hidden_emails.c.list_id)
                    .where(hidden_emails.c.id.in_(chunk))
                )
            )
        )
        conn.execute(hidden_emails.delete().where(hidden_emails.c.id.in_(chunk)))


def delete(conn: Connection, shown: list[Row], hidden: list[Row], list_names: dict[int, str], removal_id: int) -> None:
    """Erase the chosen messages, shown and hidden, leaving their tombstones; then the senders
    left without any mail. On SQLite the freed pages are overwritten as they are freed
    (`secure_delete`); the search index's segments keep words until `archive compact` merges them."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("PRAGMA secure_delete = ON")
    _tombstone(conn, shown + hidden, list_names, DELETED, removal_id)
    _take_out(conn, shown)
    for chunk in chunks([row.id for row in hidden]):
        conn.execute(hidden_attachments.delete().where(hidden_attachments.c.email_id.in_(chunk)))
        conn.execute(hidden_email_sources.delete().where(hidden_email_sources.c.email_id.in_(chunk)))
        conn.execute(hidden_email_references.delete().where(hidden_email_references.c.email_id.in_(chunk)))
        conn.execute(hidden_emails.delete().where(hidden_emails.c.id.in_(chunk)))
    _forget_senders(conn, {row.sender_id for row in shown + hidden})


def hide_list(conn: Connection, list_id: int, removal_id: int | None) -> None:
    """Take a whole list away (removal_id) or show it again (None)."""
    # The revision moves even for a list without mail: the index and the sitemaps drop or list it.
    conn.execute(
        mailing_lists.update()
        .where(mailing_lists.c.id == list_id)
        .values(hidden_by=removal_id, revision=mailing_lists.c.revision + 1)
    )


def delete_list(conn: Connection, list_id: int) -> None:
    """The list's row and what hangs on it (threads, pipermail numbers): its mail is gone already."""
    conn.execute(threads.delete().where(threads.c.list_id == list_id))
    conn.execute(mailing_lists.delete().where(mailing_lists.c.id == list_id))


def hide_arrived(conn: Connection, list_id: int, list_name: str, hashes: list[str], removal_id: int) -> None:
    """Hide mail just archived into a list hidden whole, by the hide that took the list."""
    chosen: list[Row] = []
    for chunk in chunks(hashes):
        chosen += shown(conn, Scope(), [list_id], None, hashes=chunk)
    hide(conn, chosen, {list_id: list_name}, removal_id)


def removed_hashes(conn: Connection, list_name: str, hashes: Iterable[str]) -> dict[str, str]:
    """The state (hidden, deleted) of the given Message-ID hashes removed from a list."""
    hashes = list(hashes)
    found: dict[str, str] = {}
    for chunk in chunks(hashes):
        found.update(
            iter(
                conn.execute(
                    sa.select(archive_removed.c.message_id_hash, archive_removed.c.state).where(
                        archive_removed.c.list_name == list_name, archive_removed.c.message_id_hash.in_(chunk)
                    )
                )
            )
        )
    return found


def audit_log(conn: Connection, list_name: str | None = None, limit: int | None = None) -> list[Row]:
    """The audit log newest first (of the actions that touched one list, when given)."""
    query = sa.select(archive_removals).order_by(archive_removals.c.id.desc()).limit(limit)
    if list_name is not None:
        query = query.where(archive_removals.c.list_name == list_name.lower())
    return list(conn.execute(query))


def _tombstone(conn: Connection, chosen: list[Row], list_names: dict[int, str], state: str, removal_id: int) -> None:
    rows = [
        {
            "list_name": list_names[row.list_id],
            "message_id_hash": row.message_id_hash,
            "state": state,
            "date": row.date,
            "removal_id": removal_id,
        }
        for row in chosen
    ]
    for chunk in chunks(rows, 2_000):
        keys = [(row["list_name"], row["message_id_hash"]) for row in chunk]
        conn.execute(
            archive_removed.delete().where(
                sa.tuple_(archive_removed.c.list_name, archive_removed.c.message_id_hash).in_(keys)
            )
        )
        conn.execute(archive_removed.insert(), chunk)


def _take_out(conn: Connection, chosen: list[Row]) -> None:
    """Delete shown messages' rows, their threads closed over the gap first (replies keep their
    place, a thread's first email gives way to its first reply, an emptied thread goes)."""
    gaps = open_gaps(conn, chosen)
    for chunk in chunks([row.id for row in chosen]):
        conn.execute(attachments.delete().where(attachments.c.email_id.in_(chunk)))
        conn.execute(email_sources.delete().where(email_sources.c.email_id.in_(chunk)))
        conn.execute(email_references.delete().where(email_references.c.email_id.in_(chunk)))
        conn.execute(emails.delete().where(emails.c.id.in_(chunk)))
    gaps.write(conn)


def _restore_attachments(conn: Connection, chunk: list[int]) -> None:
    # New ids: the attachments table has taken others meanwhile; a message's are read by counter.
    columns = [name for name in _ATTACHMENT_COLUMNS if name != "id"]
    conn.execute(
        attachments.insert().from_select(
            columns,
            sa.select(*(hidden_attachments.c[name] for name in columns))
            .where(hidden_attachments.c.email_id.in_(chunk))
            .order_by(hidden_attachments.c.id),
        )
    )


def _forget_senders(conn: Connection, sender_ids: set[int]) -> None:
    """Erase the senders (address, Mailman id) that no longer have mail, shown or hidden."""
    for chunk in chunks(sender_ids):
        conn.execute(
            senders.delete().where(
                senders.c.id.in_(chunk),
                ~sa.exists().where(emails.c.sender_id == senders.c.id),
                ~sa.exists().where(hidden_emails.c.sender_id == senders.c.id),
            )
        )
