"""Which messages a removal's scope names (archive/removal/): shown ones in `emails`, hidden ones
in `hidden_emails`, and the tombstones of deleted ones, by the same conditions on both tables."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.archive.tables import archive_removed, emails, hidden_emails, mailing_lists, senders, threads


@dataclass(frozen=True, slots=True)
class Scope:
    """What an operator names: one message (by Message-ID, without angle brackets, or by its
    hash), a thread (its hash, on one list), a sender's address, a list; they combine (a sender
    on one list). Nothing but a list: the whole list."""

    message_id: str | None = None
    message_id_hash: str | None = None
    thread: str | None = None
    sender: str | None = None
    list_name: str | None = None

    @property
    def whole_list(self) -> bool:
        return self.list_name is not None and not (
            self.message_id or self.message_id_hash or self.thread or self.sender
        )


# What a chosen message carries: enough to tombstone it and to rearrange its thread.
MESSAGE_COLUMNS = ("id", "list_id", "message_id_hash", "date", "sender_id", "thread_id")


def lists_named(conn: Connection, list_name: str | None) -> list[Row]:
    """(id, name, hidden_by) of the list named, or of every list; [] when the named one is unknown."""
    query = sa.select(mailing_lists.c.id, mailing_lists.c.name, mailing_lists.c.hidden_by).order_by(mailing_lists.c.id)
    if list_name is not None:
        query = query.where(mailing_lists.c.name == list_name.lower())
    return list(conn.execute(query))


def lock_lists(conn: Connection, list_ids: list[int]) -> None:
    """Make Mailman's archive calls, imports and other removals on these lists wait until this
    transaction ends (PostgreSQL; SQLite's writers take turns already): they lock the same rows
    before they read a thread (store/one_message.py, store/writes.py)."""
    if conn.dialect.name == "postgresql" and list_ids:
        conn.execute(
            sa.select(mailing_lists.c.id)
            .where(mailing_lists.c.id.in_(list_ids))
            .order_by(mailing_lists.c.id)
            .with_for_update(key_share=True)
        ).all()


def lock_list(conn: Connection, list_id: int) -> Row:
    """lock_lists for a writer of one list (the import's batches); the list's name and hidden_by."""
    query = sa.select(mailing_lists.c.name, mailing_lists.c.hidden_by).where(mailing_lists.c.id == list_id)
    if conn.dialect.name == "postgresql":
        query = query.with_for_update(key_share=True)
    return conn.execute(query).one()


def sender_id(conn: Connection, address: str) -> int | None:
    """senders.id of an address in any letter case."""
    return conn.scalar(sa.select(senders.c.id).where(senders.c.address == address.lower()))


def shown(
    conn: Connection, scope: Scope, list_ids: list[int], sender: int | None, hashes: list[str] | None = None
) -> list[Row]:
    """The shown messages the scope names on these lists (of these Message-ID hashes, when
    given), in arrival order."""
    conditions = _where(emails, scope, list_ids, sender)
    if hashes is not None:
        conditions.append(emails.c.message_id_hash.in_(hashes))
    return _chosen(conn, emails, conditions)


def hidden(
    conn: Connection, scope: Scope, list_ids: list[int], sender: int | None, removal_id: int | None = None
) -> list[Row]:
    """The hidden messages the scope names on these lists (only those the removal `removal_id`
    hid, when given), in arrival order."""
    conditions = _where(hidden_emails, scope, list_ids, sender)
    if removal_id is not None:
        conditions.append(hidden_emails.c.removal_id == removal_id)
    return _chosen(conn, hidden_emails, conditions)


def deleted_count(conn: Connection, scope: Scope, list_names: list[str]) -> int:
    """How many tombstones the scope names by hash or list (a deleted message keeps no Message-ID,
    sender or thread: those scopes find none)."""
    if scope.message_id or scope.thread or scope.sender:
        return 0
    conditions = [archive_removed.c.state == "deleted", archive_removed.c.list_name.in_(list_names)]
    if scope.message_id_hash:
        conditions.append(archive_removed.c.message_id_hash == scope.message_id_hash)
    return conn.scalar(sa.select(sa.func.count()).select_from(archive_removed).where(*conditions)) or 0


def _chosen(conn: Connection, table: sa.Table, conditions: list) -> list[Row]:
    return list(
        conn.execute(sa.select(*(table.c[name] for name in MESSAGE_COLUMNS)).where(*conditions).order_by(table.c.id))
    )


def _where(table: sa.Table, scope: Scope, list_ids: list[int], sender: int | None) -> list[sa.ColumnElement[bool]]:
    conditions: list[sa.ColumnElement[bool]] = [table.c.list_id.in_(list_ids)]
    if scope.message_id is not None:
        conditions.append(table.c.message_id == scope.message_id)
    if scope.message_id_hash is not None:
        conditions.append(table.c.message_id_hash == scope.message_id_hash)
    if scope.sender is not None:
        conditions.append(table.c.sender_id == sender)
    if scope.thread is not None:
        if table is hidden_emails:
            conditions.append(hidden_emails.c.thread_key == scope.thread)
        else:
            rows = sa.select(threads.c.id).where(threads.c.list_id.in_(list_ids), threads.c.thread_id == scope.thread)
            conditions.append(emails.c.thread_id.in_(rows))
    return conditions
