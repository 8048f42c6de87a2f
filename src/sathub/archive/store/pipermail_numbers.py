"""The SQL of pipermail's message numbers (migration 0008): the numbers an import of a list's
complete archive records (`--pipermail-numbers`), by which pages/pipermail.py sends an old
Mailman 2 link to its message."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.archive.tables import emails, pipermail_numbers
from sathub.db.dialect import insert_ignoring_conflicts


def record_numbers(conn: Connection, list_id: int, numbered: Sequence[tuple[int, str]]) -> None:
    """(pipermail number, message_id_hash) pairs of the list; a number already recorded stays."""
    if numbered:
        insert_ignoring_conflicts(
            conn,
            pipermail_numbers,
            [{"list_id": list_id, "number": number, "message_id_hash": key} for number, key in numbered],
        )


def numbered_message(conn: Connection, list_id: int, number: int) -> str | None:
    """The message_id_hash pipermail's page `number` of the list showed, when recorded and the
    message is still archived: a number whose message was hidden or deleted (archive/removal/)
    answers as one never recorded, the redirect never leads to a page that is gone. The number
    stays recorded, so that unhide finds it again."""
    return conn.execute(
        sa.select(pipermail_numbers.c.message_id_hash)
        .join(
            emails,
            sa.and_(
                emails.c.list_id == pipermail_numbers.c.list_id,
                emails.c.message_id_hash == pipermail_numbers.c.message_id_hash,
            ),
        )
        .where(pipermail_numbers.c.list_id == list_id, pipermail_numbers.c.number == number)
    ).scalar()
