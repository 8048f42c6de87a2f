"""What hide, unhide and delete (store/removals.py) do to the Message-IDs an email names (migration
0029), both backends: hidden with it, back with it, erased with it; another email naming a removed
Message-ID keeps its rows (the thread still joins through it, as public-inbox's ghost would)."""

from __future__ import annotations

import sqlalchemy as sa

from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE, run, scope_of
from sathub.archive.tables import email_references, emails, hidden_email_references, hidden_emails
from tests.archive.store.test_public_inbox import arrive, joined


def named(engine) -> dict[str, list[tuple[str, ...]]]:
    """Each table's (Message-ID of the email, position, Message-ID named) rows."""
    found = {}
    with engine.connect() as conn:
        for table, owner in ((email_references, emails), (hidden_email_references, hidden_emails)):
            query = sa.select(owner.c.message_id, table.c.position, table.c.message_id).join(
                owner, owner.c.id == table.c.email_id
            )
            found[table.name] = sorted(tuple(row) for row in conn.execute(query))
    return found


def test_hide_unhide_and_delete_move_and_erase_the_references(engine):
    arrive(engine, "a@x")
    arrive(engine, "b@x", "References: <a@x> <gone@x>", reply_to="gone@x")
    arrive(engine, "c@x", "References: <b@x>", reply_to="b@x")
    shown = named(engine)
    assert shown == {
        "email_references": [("b@x", 0, "a@x"), ("b@x", 1, "gone@x"), ("c@x", 0, "b@x")],
        "hidden_email_references": [],
    }
    run(engine, HIDE, scope_of(message_id="b@x"), "spam", "test")
    assert named(engine) == {
        "email_references": [("c@x", 0, "b@x")],
        "hidden_email_references": [("b@x", 0, "a@x"), ("b@x", 1, "gone@x")],
    }
    assert joined(engine, "a@x") == ["a@x"]
    assert joined(engine, "b@x") == ["c@x"]  # C still names B
    run(engine, UNHIDE, scope_of(message_id="b@x"), "mistake", "test")
    assert named(engine) == shown
    assert joined(engine, "a@x") == ["a@x", "b@x", "c@x"]
    run(engine, HIDE, scope_of(message_id="b@x"), "spam", "test")
    run(engine, DELETE, scope_of(message_id="b@x"), "erasure", "test", confirmed=True)
    run(engine, DELETE, scope_of(message_id="a@x"), "erasure", "test", confirmed=True)
    assert named(engine) == {"email_references": [("c@x", 0, "b@x")], "hidden_email_references": []}
