"""Removal's races across processes on PostgreSQL (issue 36, "Bad input and races"): two deletes of
one message at once, and mail archived (Mailman's path, live_ingest.store_alone) into a thread
while that thread is deleted, each leave one consistent outcome.

To make both processes truly meet, the test holds the list's row locked while they start, waits
until both wait for it, then lets go: PostgreSQL hands a row lock to its waiters in the order they
came, so the test also chooses who goes first. Rounds without the gate race as they come."""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from sathub import db
from sathub.archive.mail.ids import message_id_hash
from sathub.archive.tables import archive_removals, archive_removed, emails, mailing_lists, threads
from sathub.cli import main
from tests.archive.messages import raw_message
from tests.conftest import POSTGRES_URL, fresh_postgres_database

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not POSTGRES_URL, reason="needs SATHUB_TEST_POSTGRES_URL")]

LIST = "dev@example.org"
ROUNDS = 6
# Mailman's archive call in a process of its own: store_alone, as the archiver endpoint calls it.
INGEST = """import sys
from pathlib import Path
from sathub import db
from sathub.archive.mailman.live_ingest import parse, store_alone
engine = db.create_engine(sys.argv[1])
print(store_alone(engine, sys.argv[2], parse(Path(sys.argv[3]).read_bytes())).new)
"""


def mid(name: str, round_: int) -> str:
    return f"{name}-{round_}@example.org"


@pytest.fixture
def database(tmp_path):
    """A fresh database holding, for each round, a thread root <- reply <- reply-of-reply on dev."""
    url, drop = fresh_postgres_database(POSTGRES_URL)
    engine = db.create_engine(url)
    try:
        mbox = b"".join(
            raw_message(
                mid(name, n),
                subject=f"Thread {n}",
                reply_to=parent and mid(parent, n),
                date=f"0{1 + index} Jan 2001 10:00:00 +0000",
                envelope="From ann@example.com Mon Jan  1 10:00:00 2001",
            )
            for n in range(ROUNDS)
            for index, (name, parent) in enumerate([("root", None), ("reply", "root"), ("deeper", "reply")])
        )
        path = tmp_path / "threads.mbox"
        path.write_bytes(mbox)
        result = CliRunner().invoke(main, ["archive", "import", "--list", LIST, str(path), "--database-url", url])
        assert result.stdout.startswith(f"{LIST}: {3 * ROUNDS} imported"), result.output
        yield url, engine
    finally:
        engine.dispose()
        drop()


def start_delete(url: str, *scope: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "sathub", "archive", "delete", *scope, "--reason", "race", "--database-url", url]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def start_ingest(url: str, message: Path) -> subprocess.Popen:
    command = [sys.executable, "-c", INGEST, url, LIST, str(message)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


@contextmanager
def gate(engine):
    """Hold the list's row locked (as a removal and an archive call lock it) until the block ends."""
    with engine.connect() as conn:
        conn.execute(sa.select(mailing_lists.c.id).where(mailing_lists.c.name == LIST).with_for_update()).one()
        yield
        conn.commit()


def wait_for_waiters(engine, count: int) -> None:
    """Until `count` processes wait on a lock in the database (each process starts in ~1 s)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            waiting = conn.scalar(
                sa.text("SELECT count(*) FROM pg_stat_activity WHERE datname = :name AND wait_event_type = 'Lock'"),
                {"name": engine.url.database},
            )
        if waiting >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{count} processes never waited for the list's row")


def consistent(engine) -> None:
    """Every parent exists, every thread counts its emails and starts with one of them."""
    with engine.connect() as conn:
        parent = emails.alias("parent")
        dangling = conn.scalar(
            sa.select(sa.func.count())
            .select_from(emails)
            .where(emails.c.parent_id.is_not(None), ~sa.exists().where(parent.c.id == emails.c.parent_id))
        )
        counted = sa.select(sa.func.count()).where(emails.c.thread_id == threads.c.id).scalar_subquery()
        miscounted = conn.execute(sa.select(threads.c.thread_id).where(threads.c.emails_count != counted)).all()
        starts = sa.exists().where(emails.c.id == threads.c.starting_email_id, emails.c.thread_id == threads.c.id)
        headless = conn.execute(sa.select(threads.c.thread_id).where(~starts)).all()
    assert (dangling, miscounted, headless) == (0, [], [])


@pytest.mark.parametrize("by", ["hash", "message-id"])
def test_two_deletes_of_one_message_at_once(database, by):
    url, engine = database
    for n in range(ROUNDS):
        key = message_id_hash(mid("deeper", n))
        scope = ["--hash", key, "--list", LIST] if by == "hash" else ["--message-id", mid("deeper", n)]
        if n % 2 == 0:
            with gate(engine):
                processes = [start_delete(url, *scope), start_delete(url, *scope)]
                wait_for_waiters(engine, 2)
        else:
            processes = [start_delete(url, *scope), start_delete(url, *scope)]
        answers = sorted(finish(process) for process in processes)
        named = f"message {key} list {LIST}" if by == "hash" else f"message <{mid('deeper', n)}> every list"
        if by == "hash":
            assert answers == [
                (0, f"{named}: 0 message(s) deleted, 1 already deleted.\n", ""),
                (0, f"{named}: 1 message(s) deleted.\n", ""),
            ], answers
        else:  # a deleted message keeps no Message-ID: the second finds nothing by it
            assert answers == [
                (0, f"{named}: 1 message(s) deleted.\n", ""),
                (1, "", f"Error: {named}: no such message in the archive\n"),
            ], answers
        with engine.connect() as conn:
            stones = conn.execute(sa.select(archive_removed.c.state).where(archive_removed.c.message_id_hash == key))
            assert stones.scalars().all() == ["deleted"]
        consistent(engine)
    with engine.connect() as conn:
        assert conn.execute(sa.select(archive_removals.c.messages)).scalars().all() == [1] * ROUNDS


# What is deleted while a reply to `reply` arrives: its scope, what becomes of the reply when it
# was archived first, and how many messages the delete takes when it goes first or second.
TARGETS = {
    "thread": (lambda n: ["--thread", message_id_hash(mid("root", n)), "--list", LIST], "deleted with it", 3, 4),
    "parent": (lambda n: ["--message-id", mid("reply", n)], "answers the root", 1, 1),
}


@pytest.mark.parametrize("target", TARGETS.values(), ids=TARGETS.keys())
def test_mail_archived_into_a_thread_while_it_is_deleted(database, tmp_path, target):
    url, engine = database
    scope_of, archived_first, taken_first, taken_second = target
    for n in range(ROUNDS):
        late = tmp_path / f"late-{n}.eml"
        late.write_bytes(raw_message(mid("late", n), subject="Re: Thread", reply_to=mid("reply", n), to=LIST))
        delete_first = n % 3 == 0
        if n % 3 == 2:  # ungated: they race as they come
            processes = [start_delete(url, *scope_of(n)), start_ingest(url, late)]
        else:
            with gate(engine):
                first = start_delete(url, *scope_of(n)) if delete_first else start_ingest(url, late)
                wait_for_waiters(engine, 1)
                second = start_ingest(url, late) if delete_first else start_delete(url, *scope_of(n))
                wait_for_waiters(engine, 2)
            processes = [first, second] if delete_first else [second, first]
        (deleted_code, deleted, error), (ingest_code, stored, ingest_error) = map(finish, processes)
        assert (deleted_code, error, ingest_code, stored) == (0, "", 0, "True\n"), (error, ingest_error)
        consistent(engine)
        with engine.connect() as conn:
            row = conn.execute(sa.select(emails).where(emails.c.message_id == mid("late", n))).one_or_none()
            thread = (
                None if row is None else conn.execute(sa.select(threads).where(threads.c.id == row.thread_id)).one()
            )
            root = conn.scalar(sa.select(emails.c.id).where(emails.c.message_id == mid("root", n)))
        if row is None:
            outcome = "deleted with it"
        elif row.parent_id is not None:
            outcome = "answers the root" if row.parent_id == root else f"answers {row.parent_id}"
        else:  # its parent unknown: a thread of its own
            alone = (row.thread_depth, thread.starting_email_id, thread.emails_count) == (0, row.id, 1)
            outcome = "alone" if alone else f"a start of {thread.emails_count}"
        if n % 3 == 2:
            assert outcome in ("alone", archived_first)
        else:  # gated: the one that came first went first
            assert outcome == ("alone" if delete_first else archived_first)
        taken = taken_first if outcome == "alone" else taken_second
        assert deleted.endswith(f": {taken} message(s) deleted.\n"), deleted
