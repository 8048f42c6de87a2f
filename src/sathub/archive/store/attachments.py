"""The SQL of attachments: the descriptions an email or a thread shows (no bytes), one attachment
to download, and the bytes of those that rebuild mail archived before sources were kept. Every
function takes a Connection and costs one statement."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.store.listing import param
from sathub.archive.tables import attachments, emails

_LIST_ID = param("list_id", sa.Integer)
_THREAD_PK = param("thread_pk", sa.Integer)
_EMAIL_ATTACHMENTS = (
    sa.select(
        attachments.c.counter,
        attachments.c.name,
        attachments.c.content_type,
        attachments.c.encoding,
        attachments.c.size,
    )
    .where(attachments.c.email_id == param("email_id", sa.Integer))
    .order_by(attachments.c.counter)
)
_FIND_ATTACHMENT = (
    sa.select(
        attachments.c.name,
        attachments.c.content_type,
        attachments.c.encoding,
        attachments.c.size,
        attachments.c.content,
    )
    .select_from(attachments.join(emails, emails.c.id == attachments.c.email_id))
    .where(
        emails.c.list_id == _LIST_ID,
        emails.c.message_id_hash == param("hash"),
        attachments.c.counter == param("counter", sa.Integer),
    )
)
_THREAD_ATTACHMENTS = (
    sa.select(
        attachments.c.email_id,
        attachments.c.counter,
        attachments.c.name,
        attachments.c.content_type,
        attachments.c.size,
    )
    .select_from(attachments.join(emails, emails.c.id == attachments.c.email_id))
    .where(emails.c.thread_id == _THREAD_PK)
    .order_by(attachments.c.email_id, attachments.c.counter)
)


def email_attachments(conn: Connection, email_id: int) -> Sequence[Row]:
    """Attachment descriptions without their bytes, in counter order."""
    return conn.execute(_EMAIL_ATTACHMENTS, {"email_id": email_id}).all()


def find_attachment(conn: Connection, list_id: int, message_id_hash: str, counter: int) -> Row | None:
    return conn.execute(_FIND_ATTACHMENT, {"list_id": list_id, "hash": message_id_hash, "counter": counter}).first()


def thread_attachments(conn: Connection, thread_pk: int) -> dict[int, list[Row]]:
    """The attachment descriptions (no bytes) of every email of a thread, by emails.id."""
    found: dict[int, list[Row]] = defaultdict(list)
    for row in conn.execute(_THREAD_ATTACHMENTS, {"thread_pk": thread_pk}):
        found[row.email_id].append(row)
    return found


def attachments_to_rebuild(conn: Connection, email_ids: Sequence[int]) -> dict[int, list[Row]]:
    """The stored attachments of these emails with their bytes, by email id, in counter order: what
    rebuilds a message archived before sources were kept (mail/rebuild.py)."""
    found: dict[int, list[Row]] = {email_id: [] for email_id in email_ids}
    if email_ids:
        for row in conn.execute(
            sa.select(
                attachments.c.email_id,
                attachments.c.name,
                attachments.c.content_type,
                attachments.c.encoding,
                attachments.c.content,
            )
            .where(attachments.c.email_id.in_(list(email_ids)))
            .order_by(attachments.c.email_id, attachments.c.counter)
        ):
            found[row.email_id].append(row)
    return found
