"""Hide, unhide and delete on the hand-built archive (tests/archive/api_fixtures.py), both backends:
the threads as HyperKitty leaves them, unhide restoring every row, delete leaving a tombstone."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE, RemovalRefused, run, scope_of
from sathub.archive.tables import (
    archive_removals,
    archive_removed,
    attachments,
    email_sources,
    emails,
    hidden_emails,
    mailing_lists,
    senders,
    threads,
)
from tests.archive.api_fixtures import MAIL

DEV = "dev@example.org"


def snapshot(engine) -> dict:
    """Every row a door reads, attachments by (email, counter) since their ids are internal."""
    with engine.connect() as conn:
        return {
            "emails": sorted(map(tuple, conn.execute(sa.select(emails)))),
            "threads": sorted(tuple(row)[1:] for row in conn.execute(sa.select(threads))),
            "attachments": sorted(tuple(row)[1:] for row in conn.execute(sa.select(attachments))),
            "sources": sorted(map(tuple, conn.execute(sa.select(email_sources)))),
            "senders": sorted(map(tuple, conn.execute(sa.select(senders)))),
        }


def thread_of(engine, archive: dict[str, int], root_key: str) -> tuple[list[tuple], tuple]:
    """(key, parent key, order, depth) of a dev thread's emails in thread order, and its row."""
    ids = {email_id: key for key, email_id in archive.items()}
    with engine.connect() as conn:
        dev = sa.select(mailing_lists.c.id).where(mailing_lists.c.name == DEV).scalar_subquery()
        row = conn.execute(
            sa.select(threads).where(threads.c.thread_id == MAIL[root_key].hash, threads.c.list_id == dev)
        ).one()
        members = conn.execute(
            sa.select(emails).where(emails.c.thread_id == row.id).order_by(emails.c.thread_order)
        ).all()
    return [(ids[m.id], ids.get(m.parent_id), m.thread_order, m.thread_depth) for m in members], (
        ids[row.starting_email_id],
        row.subject,
        row.emails_count,
        row.date_active,
    )


def hide(engine, **scope):
    return run(engine, HIDE, scope_of(**scope), "spam", "test")


def test_hiding_a_reply_gives_its_replies_to_its_parent(engine, archive):
    outcome = hide(engine, message_id=MAIL["B"].message_id)
    assert (outcome.messages, outcome.lists) == (1, [DEV])
    members, row = thread_of(engine, archive, "A")
    # HyperKitty's on_pre_delete: D answered B, now answers A; siblings by date (C before D).
    assert members == [("A", None, 0, 0), ("C", "A", 1, 1), ("D", "A", 2, 1)]
    assert row == ("A", "[dev] Welcome", 3, MAIL["D"].date)


def test_hiding_a_thread_start_makes_its_earliest_reply_the_start(engine, archive):
    hide(engine, message_id_hash_=MAIL["A"].hash, list_name=DEV)
    members, row = thread_of(engine, archive, "A")  # the thread keeps its id (its address)
    # C is A's earliest reply (dated before B): it starts the thread, B answers it, D still answers B.
    assert members == [("C", None, 0, 0), ("B", "C", 1, 1), ("D", "B", 2, 2)]
    assert row == ("C", "Re: [dev] Welcome", 3, MAIL["D"].date)


@pytest.mark.parametrize(
    "scope",
    [
        {"message_id": MAIL["B"].message_id},
        {"message_id_hash_": MAIL["A"].hash, "list_name": DEV},
        {"thread": MAIL["A"].hash, "list_name": DEV},
        {"sender": "Alice@Example.org"},
        {"list_name": DEV},
    ],
    ids=["message", "thread-start", "thread", "sender", "list"],
)
def test_unhide_brings_back_exactly_what_was_hidden(engine, archive, scope):
    before = snapshot(engine)
    hidden = hide(engine, **scope).messages
    assert snapshot(engine) != before
    outcome = run(engine, UNHIDE, scope_of(**scope), "not spam", "test")
    assert outcome.messages == hidden
    assert snapshot(engine) == before
    with engine.connect() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(hidden_emails)) == 0
        assert conn.scalar(sa.select(sa.func.count()).select_from(archive_removed)) == 0
        assert conn.scalars(sa.select(archive_removals.c.action).order_by(archive_removals.c.id)).all() == [
            HIDE,
            UNHIDE,
        ]


def test_unhide_in_another_order_restores_too(engine, archive):
    before = snapshot(engine)
    hide(engine, message_id=MAIL["B"].message_id)
    hide(engine, message_id_hash_=MAIL["A"].hash, list_name=DEV)
    run(engine, UNHIDE, scope_of(message_id=MAIL["B"].message_id), "r", "test")
    run(engine, UNHIDE, scope_of(message_id=MAIL["A"].message_id, list_name=DEV), "r", "test")
    assert snapshot(engine) == before


def test_a_list_hidden_whole_keeps_what_was_hidden_on_its_own(engine, archive):
    hide(engine, message_id=MAIL["H"].message_id)
    hide(engine, list_name=DEV)
    with engine.connect() as conn:
        assert conn.scalar(sa.select(mailing_lists.c.hidden_by).where(mailing_lists.c.name == DEV)) is not None
    outcome = run(engine, UNHIDE, scope_of(list_name=DEV), "back", "test")
    assert outcome.messages == 7  # A..G; H stays hidden
    with engine.connect() as conn:
        assert conn.scalars(sa.select(hidden_emails.c.message_id)).all() == [MAIL["H"].message_id]
        assert conn.scalar(sa.select(mailing_lists.c.hidden_by).where(mailing_lists.c.name == DEV)) is None


def test_delete_erases_and_leaves_a_tombstone(engine, archive):
    hide(engine, message_id=MAIL["E"].message_id)  # hidden first: a delete erases hidden mail too
    outcome = run(engine, DELETE, scope_of(sender="bob@example.net"), "GDPR erasure", "test")
    assert outcome.messages == 3  # B, E, G
    with engine.connect() as conn:
        assert conn.scalar(sa.select(sa.func.count()).where(emails.c.sender_address.like("bob%"))) == 0
        assert conn.scalar(sa.select(sa.func.count()).select_from(hidden_emails)) == 0
        assert conn.scalar(sa.select(sa.func.count()).select_from(attachments)) == 0  # E's
        assert conn.scalar(sa.select(senders.c.id).where(senders.c.address == "bob@example.net")) is None
        stones = conn.execute(sa.select(archive_removed).order_by(archive_removed.c.message_id_hash)).all()
        assert sorted((s.message_id_hash, s.state, s.date) for s in stones) == sorted(
            (MAIL[k].hash, "deleted", MAIL[k].date) for k in "BEG"
        )
        scope = conn.scalar(sa.select(archive_removals.c.scope).where(archive_removals.c.action == DELETE))
    assert "bob@example.net" not in scope and scope.startswith("sender sha256:")
    members, _ = thread_of(engine, archive, "A")
    assert members == [("A", None, 0, 0), ("C", "A", 1, 1), ("D", "A", 2, 1)]


def test_deleting_a_list_removes_it(engine, archive):
    run(engine, DELETE, scope_of(list_name="other@example.org"), "closed", "test")
    with engine.connect() as conn:
        assert conn.scalar(sa.select(mailing_lists.c.id).where(mailing_lists.c.name == "other@example.org")) is None
        assert conn.scalar(sa.select(archive_removed.c.state)) == "deleted"


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        ({"message_id": "nobody@example.org"}, "no such message"),
        ({"list_name": "none@example.org"}, "no list none@example.org"),
        ({"sender": "nobody@example.org"}, "no mail from nobody@example.org"),
        ({"thread": MAIL["H"].hash, "list_name": "other@example.org"}, "no such message"),
    ],
    ids=["message", "list", "sender", "thread"],
)
def test_unknown_scopes_change_nothing(engine, archive, scope, message):
    before = snapshot(engine)
    with pytest.raises(RemovalRefused, match=message):
        hide(engine, **scope)
    assert snapshot(engine) == before


def test_a_reason_is_required_and_many_messages_need_confirming(engine, archive):
    with pytest.raises(RemovalRefused, match="reason"):
        run(engine, HIDE, scope_of(list_name=DEV), "  ", "test")
    dry = run(engine, HIDE, scope_of(list_name=DEV), "r", "test", dry_run=True)
    assert (dry.messages, dry.dry_run) == (8, True)
    with engine.connect() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(hidden_emails)) == 0


def test_an_archive_without_lists_has_no_such_message(engine):
    with pytest.raises(RemovalRefused) as refused:
        hide(engine, message_id="a@x")
    assert str(refused.value) == "message <a@x> every list: no such message in the archive"
