"""Pipermail's message numbers (sathub.archive.store.pipermail_numbers), both backends: recorded by
an import of a list's complete archive, found again by number while the message is archived; a
number recorded stays."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from sathub import db
from sathub.archive.store import lists, pipermail_numbers
from sathub.archive.tables import emails, senders

WHEN = datetime(2001, 1, 1)


def archive(conn, list_id: int, *hashes: str) -> None:
    """Rows of `emails` with these Message-ID hashes (what a number leads to)."""
    sender = conn.execute(
        senders.insert().values(address=f"a{list_id}@example.org", mailman_id=f"{list_id:032x}")
    ).inserted_primary_key[0]
    for key in hashes:
        conn.execute(
            emails.insert().values(
                list_id=list_id,
                message_id=f"{key}@example.org",
                message_id_hash=key,
                sender_id=sender,
                sender_address=f"a{list_id}@example.org",
                sender_name="A",
                subject="s",
                content="c",
                date=WHEN,
                archived_date=WHEN,
            )
        )


def test_a_number_recorded_is_found_and_stays(engine):
    with db.connect(engine, write=True) as conn:
        dev = lists.create_list(conn, "dev@example.org", {"created_at": WHEN})
        other = lists.create_list(conn, "other@example.org", {"created_at": WHEN})
        archive(conn, dev.id, "H" * 32, "I" * 32, "J" * 32, "K" * 32)
        pipermail_numbers.record_numbers(conn, dev.id, [(0, "H" * 32), (1, "I" * 32)])
        pipermail_numbers.record_numbers(conn, dev.id, [(0, "J" * 32), (2, "K" * 32)])  # 0 is taken
        pipermail_numbers.record_numbers(conn, dev.id, [])
    with engine.connect() as conn:
        assert [pipermail_numbers.numbered_message(conn, dev.id, n) for n in range(4)] == [
            "H" * 32,
            "I" * 32,
            "K" * 32,
            None,
        ]
        assert pipermail_numbers.numbered_message(conn, other.id, 0) is None


def test_a_number_whose_message_is_not_archived_leads_nowhere(engine):
    """A message removed (archive/removal/) keeps its number, which answers as none until unhide."""
    with db.connect(engine, write=True) as conn:
        dev = lists.create_list(conn, "dev@example.org", {"created_at": WHEN})
        archive(conn, dev.id, "H" * 32)
        pipermail_numbers.record_numbers(conn, dev.id, [(0, "H" * 32), (1, "I" * 32)])
    with engine.connect() as conn:
        assert pipermail_numbers.numbered_message(conn, dev.id, 0) == "H" * 32
        assert pipermail_numbers.numbered_message(conn, dev.id, 1) is None
        assert conn.scalar(sa.select(sa.func.count()).select_from(sa.table("pipermail_numbers"))) == 2
