"""Threads around removed mail (store/removal_threads.py, rethreading's orphaned rows): mail that
arrives after a hide lands where the import's rules put it, and the thread keeps its address."""

from __future__ import annotations

import sqlalchemy as sa

from sathub import db
from sathub.archive.mail.dates import utc_now
from sathub.archive.mailman import live_ingest
from sathub.archive.removal.operations import HIDE, UNHIDE, run, scope_of
from sathub.archive.store import lists
from sathub.archive.tables import emails, mailing_lists, threads
from tests.archive.messages import raw_message

DEV = "dev@example.org"


def arrive(engine, message_id: str, reply_to: str | None = None, date: str = "Mon, 01 Jan 2001 10:00:00 +0000"):
    email = live_ingest.parse(raw_message(message_id, subject=f"s {message_id}", reply_to=reply_to, date=date))
    with db.connect(engine, write=True) as conn:
        lists.find_list(conn, DEV) or lists.create_list(conn, DEV, {"created_at": utc_now()})
        return live_ingest.store(conn, DEV, email)


def threads_now(engine) -> dict[str, tuple[list[str], str]]:
    """Each thread's key -> (its Message-IDs in thread order, its starting email's Message-ID)."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(threads.c.thread_id, emails.c.message_id, threads.c.starting_email_id, emails.c.id)
            .join(emails, emails.c.thread_id == threads.c.id)
            .order_by(threads.c.thread_id, emails.c.thread_order)
        ).all()
    found: dict[str, tuple[list[str], str]] = {}
    for row in rows:
        members, start = found.get(row.thread_id, ([], ""))
        found[row.thread_id] = (
            [*members, row.message_id],
            row.message_id if row.id == row.starting_email_id else start,
        )
    return found


def key(message_id: str) -> str:
    return live_ingest.parse(raw_message(message_id)).message_id_hash


def test_a_reply_after_the_start_was_hidden_keeps_the_threads_address(engine):
    arrive(engine, "a@x")
    arrive(engine, "b@x", "a@x", "Mon, 01 Jan 2001 11:00:00 +0000")
    run(engine, HIDE, scope_of(message_id="a@x"), "spam", "test")
    assert threads_now(engine) == {key("a@x"): (["b@x"], "b@x")}
    arrive(engine, "c@x", "b@x", "Mon, 01 Jan 2001 12:00:00 +0000")
    # The thread is still at A's hash (HyperKitty keeps a thread's id), with B first.
    assert threads_now(engine) == {key("a@x"): (["b@x", "c@x"], "b@x")}


def test_a_reply_to_hidden_mail_waits_alone_and_joins_it_on_unhide(engine):
    arrive(engine, "a@x")
    run(engine, HIDE, scope_of(message_id="a@x"), "spam", "test")
    arrive(engine, "r@x", "a@x", "Mon, 01 Jan 2001 11:00:00 +0000")
    assert threads_now(engine) == {key("r@x"): (["r@x"], "r@x")}
    run(engine, UNHIDE, scope_of(message_id="a@x"), "not spam", "test")
    assert threads_now(engine) == {key("a@x"): (["a@x", "r@x"], "a@x")}


def test_removed_mail_is_not_archived_again(engine):
    arrive(engine, "a@x")
    run(engine, HIDE, scope_of(message_id="a@x"), "spam", "test")
    stored = arrive(engine, "a@x")
    assert (stored.new, stored.policy) == (False, "public")
    with engine.connect() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(emails)) == 0
        assert conn.scalar(sa.select(mailing_lists.c.revision).where(mailing_lists.c.name == DEV)) > 0


def test_mail_for_a_list_hidden_whole_is_hidden_with_it(engine):
    arrive(engine, "a@x")
    run(engine, HIDE, scope_of(list_name=DEV), "closed", "test")
    assert arrive(engine, "b@x").new
    assert threads_now(engine) == {}
    outcome = run(engine, UNHIDE, scope_of(list_name=DEV), "open again", "test")
    assert outcome.messages == 2
    assert threads_now(engine) == {key("a@x"): (["a@x"], "a@x"), key("b@x"): (["b@x"], "b@x")}
