"""Group commit (group_commit.py): concurrent writes share transactions, each keeps its own
outcome, and none is reported before its transaction committed."""

import asyncio

import sqlalchemy as sa
from sqlalchemy import event

from sathub.group_commit import GroupCommit
from sathub.status.tables import rate_limits


def insert_client(conn, number: int) -> int:
    if number == 13:
        raise ValueError("refused")
    conn.execute(rate_limits.insert().values(client=f"c{number}", window_start=0, hits=number))
    return number


def count_commits(engine) -> list:
    commits = []
    event.listen(engine, "commit", lambda conn: commits.append(1))
    return commits


def test_concurrent_writes_share_transactions_and_keep_their_own_outcomes(engine):
    commits = count_commits(engine)
    writes = GroupCommit(engine)

    async def burst():
        return await asyncio.gather(*(writes.run(insert_client, n) for n in range(64)), return_exceptions=True)

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
        return await asyncio.gather(*(writes.run(duplicate, n) for n in range(5)), return_exceptions=True)

    outcomes = asyncio.run(burst())
    assert outcomes[0] is None and all(isinstance(o, sa.exc.IntegrityError) for o in outcomes[1:])
    with engine.connect() as conn:
        assert conn.execute(sa.select(rate_limits.c.hits)).scalars().all() == [0]


def test_when_the_transaction_cannot_commit_every_write_of_it_fails(engine, monkeypatch):
    from sathub import group_commit
    from sathub.db import DatabaseUnavailable

    def unavailable(engine, write):
        raise DatabaseUnavailable("gone")

    monkeypatch.setattr(group_commit, "connect", unavailable)
    writes = GroupCommit(engine)

    async def burst():
        return await asyncio.gather(*(writes.run(insert_client, n) for n in range(3)), return_exceptions=True)

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
