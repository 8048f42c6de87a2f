"""The SQL of one live message (Mailman's archive call, mailman/live_ingest.py): write_batch's rules
for a batch of one, in as few statements as one message needs.

One statement finds the list, whether the message is already archived there, its sender, its
archived parent and whether replies wait for it, and takes its new id (and its thread's, when it
starts one alone) from the sequences; a lone new message then costs two inserts (a third when it
names other messages: its email_references rows). The ids, rows and
threads are those write_batch gives the same message (tests/archive/mailman/test_live_ingest.py)."""

from __future__ import annotations

from functools import cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.mail.ids import message_id_hash
from sathub.archive.mail.message import ParsedEmail
from sathub.archive.store.email_sources import insert_sources
from sathub.archive.store.removals import hide_arrived
from sathub.archive.store.rethreading import rethread_one
from sathub.archive.store.writes import attachment_rows, email_row, insert_emails, insert_references, sender_ids
from sathub.archive.tables import (
    NEVER,
    archive_removed,
    article_counters,
    emails,
    hidden_emails,
    mailing_lists,
    senders,
    threads,
)
from sathub.db.dialect import new_id


def look_up(conn: Connection, address: str, email: ParsedEmail) -> Row | None:
    """The list of posting address `address` (id, name, archive_policy, hidden_by, last_article) with, for
    `email`: removed (its archive_removed state, or None), duplicate
    (an emails.id, or None), sender_id (None: no sender yet), parent_id and parent_thread (None: no
    archived parent), waiting, and the new email_id and thread_row_id (None when not needed)."""
    reference = message_id_hash(email.in_reply_to) if email.in_reply_to else None
    if conn.dialect.name == "postgresql":
        # The list's row, locked before the look-up rather than at the first insert's revision
        # trigger, so that no removal (which locks it too) runs between the look-up and the write.
        # In a statement of its own: a look-up that waited for the lock inside itself would go on
        # reading the rows of the snapshot it began with, a parent erased meanwhile among them.
        conn.execute(_LOCK, {"name": address.lower()})
    return conn.execute(
        _look_up(conn.dialect.name),
        {
            "name": address.lower(),
            "hash": email.message_id_hash,
            "address": email.sender_address.lower(),
            "message_id": email.message_id,
            "parent_hash": None if reference == email.message_id_hash else reference,
        },
    ).first()


def write(conn: Connection, found: Row, email: ParsedEmail) -> None:
    """Store `email`, not a duplicate, in the list `look_up` found, with what it found."""
    sender_id = found.sender_id
    if sender_id is None:
        address = email.sender_address.lower()
        sender_id = sender_ids(conn, {address})[address]
    parent = None if found.parent_id is None else (found.parent_id, found.parent_thread)
    place = rethread_one(conn, found.id, found.email_id, email, parent, found.waiting, found.thread_row_id)
    row = email_row(found.email_id, found.id, email, sender_id, place, found.last_article + 1)
    insert_emails(conn, [row], attachment_rows([(found.email_id, email)]))
    insert_references(conn, found.id, [(found.email_id, email)])
    insert_sources(conn, [(found.email_id, email)])
    if found.hidden_by is not None:
        hide_arrived(conn, found.id, found.name, [email.message_id_hash], found.hidden_by)


def fill_source(conn: Connection, email_id: int, email: ParsedEmail) -> None:
    """Give an email archived before sources were kept the source of the same message posted again."""
    insert_sources(conn, [(email_id, email)])


_LOCK = (
    sa.select(mailing_lists.c.id).where(mailing_lists.c.name == sa.bindparam("name")).with_for_update(key_share=True)
)


@cache
def _look_up(dialect_name: str) -> sa.Select:
    """Built once per dialect: every archive call runs it."""
    lists, parent, waiting_reply, copy = (
        mailing_lists,
        emails.alias("parent"),
        emails.alias("waiting"),
        emails.alias("copy"),
    )
    duplicate = (
        sa.select(copy.c.id)
        .where(copy.c.list_id == lists.c.id, copy.c.message_id_hash == sa.bindparam("hash"))
        .scalar_subquery()
    )
    waiting = sa.exists().where(
        waiting_reply.c.list_id == lists.c.id,
        waiting_reply.c.parent_id.is_(None),
        waiting_reply.c.in_reply_to == sa.bindparam("message_id"),
    )
    # Mail hidden or deleted from the list is never archived again (archive/removal/).
    removed = (
        sa.select(archive_removed.c.state)
        .where(archive_removed.c.list_name == lists.c.name, archive_removed.c.message_id_hash == sa.bindparam("hash"))
        .scalar_subquery()
    )
    stored = sa.and_(duplicate.is_(None), removed.is_(None), lists.c.archive_policy != NEVER)
    alone = sa.and_(stored, parent.c.id.is_(None), ~waiting)
    return (
        sa.select(
            lists.c.id,
            lists.c.name,
            lists.c.archive_policy,
            lists.c.hidden_by,
            # Read after the list's lock is taken: the writer before has committed its numbers.
            sa.func.coalesce(
                sa.select(article_counters.c.last_article)
                .where(article_counters.c.list_id == lists.c.id)
                .scalar_subquery(),
                0,
            ).label("last_article"),
            removed.label("removed"),
            duplicate.label("duplicate"),
            sa.select(senders.c.id)
            .where(senders.c.address == sa.bindparam("address"))
            .scalar_subquery()
            .label("sender_id"),
            parent.c.id.label("parent_id"),
            parent.c.thread_id.label("parent_thread"),
            waiting.label("waiting"),
            # The emails sequence first, then the threads one: write_batch's order, so the same ids.
            sa.case((stored, new_id(dialect_name, emails, shadow=hidden_emails))).label("email_id"),
            sa.case((alone, new_id(dialect_name, threads))).label("thread_row_id"),
        )
        .select_from(
            lists.outerjoin(
                parent, sa.and_(parent.c.list_id == lists.c.id, parent.c.message_id_hash == sa.bindparam("parent_hash"))
            )
        )
        .where(lists.c.name == sa.bindparam("name"))
    )
