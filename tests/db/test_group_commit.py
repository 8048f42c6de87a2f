"""Group commit (group_commit.py): concurrent writes share transactions, each keeps its own
outcome, and none is reported before its transaction committed."""

import asyncio
import threading
import time

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sathub.db import DatabaseUnavailable, group_commit
from sathub.db.group_commit import GroupCommit
from sathub.status.tables import rate_limits


def insert_client(conn, number: int) -> int:
    if number == 13:
        raise ValueError("refused")
    conn.execute(rate_limits.insert().values(client=f"c{number}", window_start=0, hits=number))
    return number


def held_write():
    """insert_client that holds its transaction open until `release` is set; `started` tells it runs."""
    started, release = threading.Event(), threading.Event()

    def slow(conn, number):
        started.set()
        release.wait(5)
        return insert_client(conn, number)

    return slow, started, release


def count_commits(engine) -> list:
    commits = []
    event.listen(engine, "commit", lambda conn: commits.append(1))
    return commits


def test_concurrent_writes_share_transactions_and_keep_their_own_outcomes(engine):
    commits = count_commits(engine)
    writes = GroupCommit(engine)

    async def burst():
        return await asyncio.gather(
            *(writes.run_checked(insert_client, None, n) for n in range(64)), return_exceptions=True
        )

    outcomes = asyncio.run(burst())
    assert [o for o in outcomes if not isinstance(o, int)] == [outcomes[13]]
    assert isinstance(outcomes[13], ValueError) and outcomes[:13] == list(range(13))
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(rate_limits)).scalar() == 63
    assert 1 <= len(commits) <= 3  # the first write alone, then the ones that waited for it


def test_a_write_the_database_refuses_leaves_the_others_of_its_transaction(engine):
    writes = GroupCommit(engine)

    def duplicate(conn, number):
        conn.execute(rate_limits.insert().values(client="same", window_start=0, hits=number))

    async def burst():
        # The first transaction stores one; the rest collide on the key inside their savepoints.
        return await asyncio.gather(*(writes.run_checked(duplicate, None, n) for n in range(5)), return_exceptions=True)

    outcomes = asyncio.run(burst())
    assert outcomes[0] is None and all(isinstance(o, sa.exc.IntegrityError) for o in outcomes[1:])
    with engine.connect() as conn:
        assert conn.execute(sa.select(rate_limits.c.hits)).scalars().all() == [0]


def test_when_the_transaction_cannot_commit_every_write_of_it_fails(engine, monkeypatch):
    from sathub.db import group_commit

    def unavailable(engine, write):
        raise DatabaseUnavailable("gone")

    monkeypatch.setattr(group_commit, "connect", unavailable)
    writes = GroupCommit(engine)

    async def burst():
        return await asyncio.gather(
            *(writes.run_checked(insert_client, None, n) for n in range(3)), return_exceptions=True
        )

    assert all(isinstance(o, DatabaseUnavailable) for o in asyncio.run(burst()))


def test_checked_writes_are_stored_together_in_arrival_order(engine):
    writes = GroupCommit(engine)
    stored_batches = []

    def check(conn, number):
        if number % 10 == 3:
            raise ValueError(number)
        return number

    def store(conn, numbers):
        stored_batches.append(list(numbers))
        conn.execute(rate_limits.insert(), [{"client": f"c{n}", "window_start": 0, "hits": n} for n in numbers])
        return [n * 2 for n in numbers]

    async def burst():
        return await asyncio.gather(*(writes.run_checked(check, store, n) for n in range(40)), return_exceptions=True)

    outcomes = asyncio.run(burst())
    assert [o for o in outcomes if isinstance(o, ValueError)] == [outcomes[3], outcomes[13], outcomes[23], outcomes[33]]
    assert [o for o in outcomes if not isinstance(o, ValueError)] == [n * 2 for n in range(40) if n % 10 != 3]
    assert [n for batch in stored_batches for n in batch] == [n for n in range(40) if n % 10 != 3]
    assert len(stored_batches) <= 3


def count_savepoints(engine) -> list:
    savepoints = []
    event.listen(engine, "savepoint", lambda conn, name: savepoints.append(name))
    return savepoints


def test_a_transaction_whose_writes_all_pass_takes_no_savepoint(engine):
    # On PostgreSQL a savepoint and its release are two round trips per write.
    savepoints = count_savepoints(engine)
    writes = GroupCommit(engine)

    async def burst():
        return await asyncio.gather(
            *(writes.run_checked(insert_client, None, n) for n in range(12)),
            *(writes.run_checked(lambda conn, n: n, store_hits, n) for n in range(20, 30)),
        )

    assert asyncio.run(burst()) == list(range(12)) + [[n] for n in range(20, 30)]
    assert savepoints == []


def store_hits(conn, numbers):
    conn.execute(rate_limits.insert(), [{"client": f"c{n}", "window_start": 0, "hits": n} for n in numbers])
    return [[n] for n in numbers]


def test_a_write_that_fails_runs_its_transaction_again_without_storing_anything_twice(engine):
    calls = []

    def counted(conn, number):
        calls.append(number)
        return insert_client(conn, number)

    writes = GroupCommit(engine)

    async def burst():
        return await asyncio.gather(
            *(writes.run_checked(counted, None, n) for n in (11, 12, 13, 14)), return_exceptions=True
        )

    outcomes = asyncio.run(burst())
    assert outcomes[:2] == [11, 12] and isinstance(outcomes[2], ValueError) and outcomes[3] == 14
    # 13's transaction ran as it was up to the failure, rolled back, then each write in a savepoint.
    assert calls.count(13) == 2 and calls.count(14) == 1
    assert all(calls.count(n) <= 2 for n in (11, 12))
    with engine.connect() as conn:
        assert sorted(conn.execute(sa.select(rate_limits.c.hits)).scalars()) == [11, 12, 14]


@pytest.mark.parametrize(
    "lost",
    [
        DatabaseUnavailable("gone"),
        sa.exc.OperationalError("SELECT 1", {}, Exception("server closed the connection"), connection_invalidated=True),
    ],
    ids=["silent", "connection lost"],
)
def test_a_database_that_stops_answering_is_not_asked_again(engine, lost):
    calls = []

    def unavailable(conn, number):
        calls.append(number)
        raise lost

    with pytest.raises(type(lost)):
        asyncio.run(GroupCommit(engine).run_checked(unavailable, None, 1))
    assert calls == [1]


@pytest.mark.parametrize(
    "lost",
    [
        DatabaseUnavailable("gone"),
        sa.exc.OperationalError("SELECT 1", {}, Exception("server closed the connection"), connection_invalidated=True),
    ],
    ids=["silent", "connection lost"],
)
def test_a_check_that_loses_the_connection_fails_its_whole_transaction(engine, lost):
    """Not this write's refusal: the others of its transaction cannot be stored on that connection
    (a commit there raised PendingRollbackError, which answered 500)."""
    writes, gate, stored = GroupCommit(engine), threading.Event(), []

    def held(conn, number):
        gate.wait(5)  # holds the writer until the others wait together for the next transaction
        return number

    def check(conn, number):
        if number == 5:
            raise lost
        return number

    def store(conn, numbers):
        stored.extend(numbers)
        return numbers

    async def burst():
        first = asyncio.ensure_future(writes.run_checked(held, None, -1))
        await asyncio.sleep(0.05)
        rest = [asyncio.ensure_future(writes.run_checked(check, store, n)) for n in range(10)]
        await asyncio.sleep(0.05)
        gate.set()
        return await asyncio.gather(first, *rest, return_exceptions=True)

    outcomes = asyncio.run(burst())
    assert outcomes[0] == -1 and all(outcome is lost for outcome in outcomes[1:]) and stored == []


def test_the_writers_lock_is_taken_after_the_checks_and_only_by_a_transaction_that_writes(engine):
    # While one process's transaction holds it, the others wait: their checks (reads) need not.
    statements = []
    event.listen(engine, "before_cursor_execute", lambda conn, cursor, sql, *_: statements.append(sql.split()[:2]))
    writes = GroupCommit(engine)

    def check(conn, number):
        conn.execute(sa.select(rate_limits.c.hits).where(rate_limits.c.client == f"c{number}")).all()
        if number < 0:
            raise ValueError(number)
        return number

    with pytest.raises(ValueError):
        asyncio.run(writes.run_checked(check, store_hits, -1))
    refused_only = list(statements)
    statements.clear()
    assert asyncio.run(writes.run_checked(check, store_hits, 7)) == [7]
    lock = ["SELECT", "pg_advisory_xact_lock(%(key)s)"]
    assert lock not in refused_only
    if engine.dialect.name == "postgresql":
        assert [s[0] for s in statements if s != lock] == ["SELECT", "INSERT"]
        assert statements.index(lock) == 1  # after the check's read, before the insert
    else:  # SQLite's writers take its lock up front (BEGIN IMMEDIATE)
        assert lock not in statements


def test_a_write_whose_event_loop_is_gone_does_not_stop_the_writes_after_it(engine):
    writes = GroupCommit(engine)
    slow, started, release = held_write()

    async def abandon():
        asyncio.ensure_future(writes.run_checked(slow, None, 1))  # noqa: RUF006 - abandoned on purpose
        await asyncio.sleep(0)
        started.wait(5)

    asyncio.run(abandon())  # its loop closes while the write is in its transaction
    release.set()
    assert asyncio.run(asyncio.wait_for(writes.run_checked(insert_client, None, 2), 5)) == 2


def test_in_a_burst_the_writer_pauses_so_that_writes_arriving_just_after_a_commit_join_the_next(engine):
    commits = count_commits(engine)
    writes = GroupCommit(engine, gather_seconds=0.5)
    slow, started, release = held_write()

    async def burst():
        first = asyncio.ensure_future(writes.run_checked(slow, None, 1))
        await asyncio.to_thread(started.wait, 5)
        # Arrives during the first's transaction.
        second = asyncio.ensure_future(writes.run_checked(insert_client, None, 2))
        await asyncio.sleep(0)
        release.set()
        await first
        # Arrives after the first transaction committed: without the pause, the second would be
        # in a transaction of its own by now.
        return await asyncio.gather(second, writes.run_checked(insert_client, None, 3))

    assert asyncio.run(burst()) == [2, 3]
    assert len(commits) == 2


def test_a_write_that_finds_the_writer_idle_is_not_paused(engine):
    """A paused write would wait the whole pause (10 s); one that is not takes milliseconds, and
    half the pause leaves a busy machine all the room it needs."""
    writes = GroupCommit(engine, gather_seconds=10.0)

    async def one_after_the_other():
        elapsed = []
        for number in (1, 2, 3):
            start = time.monotonic()
            await writes.run_checked(insert_client, None, number)
            elapsed.append(time.monotonic() - start)
        return elapsed

    assert max(asyncio.run(one_after_the_other())) < writes.gather_seconds / 2


def test_the_writer_thread_waits_for_the_next_write_and_ends_once_idle(engine):
    """Writes a moment apart run in one writer thread (starting one blocks the event loop until it
    holds the interpreter lock); one that stays idle IDLE_SECONDS ends."""
    writes = GroupCommit(engine)

    def writer_thread(conn, number) -> threading.Thread:
        insert_client(conn, number)
        return threading.current_thread()  # the object, kept: a thread's ident is reused after it ends

    async def two_apart() -> tuple[threading.Thread, threading.Thread]:
        first = await writes.run_checked(writer_thread, None, 1)
        await asyncio.sleep(group_commit.IDLE_SECONDS / 5)
        return first, await writes.run_checked(writer_thread, None, 2)

    first, second = asyncio.run(two_apart())
    assert first is second
    first.join(group_commit.IDLE_SECONDS + 5)
    assert not first.is_alive()
