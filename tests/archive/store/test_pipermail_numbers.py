"""Pipermail's message numbers (sathub.archive.store.pipermail_numbers), both backends: recorded by
an import of a list's complete archive, found again by number; a number recorded stays."""

from __future__ import annotations

from datetime import datetime

from sathub import db
from sathub.archive.store import lists, pipermail_numbers


def test_a_number_recorded_is_found_and_stays(engine):
    with db.connect(engine, write=True) as conn:
        dev = lists.create_list(conn, "dev@example.org", {"created_at": datetime(2001, 1, 1)})
        other = lists.create_list(conn, "other@example.org", {"created_at": datetime(2001, 1, 1)})
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
