"""What wakes the hub (status/stream/wakeups.py), on SQLite and PostgreSQL, without a hub: one
wake-up for any number of commits of the process until the hub takes it, none for a read's
commit or once stopped, and one for a report another process commits (SQLite: the shared data
revision; PostgreSQL: its NOTIFY)."""

from __future__ import annotations

import asyncio

import sqlalchemy as sa

from sathub import db
from sathub.db.revision_probe import RevisionProbe
from sathub.status.stream.wakeups import Wakeups
from tests.status.seed import hours_ago, seed_catalog, store_report


def commit(engine, write: bool) -> None:
    """A commit that changes no data: no trigger, so no NOTIFY and no new revision."""
    with db.connect(engine, write=write) as conn:
        conn.execute(sa.select(1))


async def started(engine, woken: list[int]) -> Wakeups:
    wakeups = Wakeups(engine, RevisionProbe(engine), lambda: woken.append(1), rest_seconds=0.05)
    wakeups.start()
    # the first revision poll (SQLite) or the first LISTEN (PostgreSQL) wakes once: for what was
    # committed before
    async with asyncio.timeout(5):
        while not woken:
            await asyncio.sleep(0.02)
    wakeups.taken()
    return wakeups


def test_the_process_commits_wake_once_until_taken_and_reads_never(engine):
    async def scenario() -> None:
        woken: list[int] = []
        wakeups = await started(engine, woken)
        await asyncio.sleep(0.2)
        assert len(woken) == 1
        for _ in range(3):
            await asyncio.to_thread(commit, engine, True)
        await asyncio.sleep(0.2)
        assert len(woken) == 2  # three commits, one wake-up: the hub has not taken it
        wakeups.taken()
        await asyncio.to_thread(commit, engine, False)
        await asyncio.sleep(0.2)
        assert len(woken) == 2  # a read's commit
        await asyncio.to_thread(commit, engine, True)
        await asyncio.sleep(0.2)
        assert len(woken) == 3
        wakeups.taken()
        wakeups.stop()
        await asyncio.to_thread(commit, engine, True)
        await asyncio.sleep(0.2)
        assert len(woken) == 3 and not wakeups.running

    asyncio.run(scenario())


def test_a_report_another_process_commits_wakes_it(engine, database_url):
    seed_catalog(engine)
    other = db.create_engine(database_url)  # another process's engine: its commits are not heard

    async def scenario() -> None:
        woken: list[int] = []
        wakeups = await started(engine, woken)
        await asyncio.sleep(0.2)
        before = len(woken)
        await asyncio.to_thread(store_report, other, "AO-91", hours_ago(0), "W5API")
        async with asyncio.timeout(2):
            while len(woken) == before:
                await asyncio.sleep(0.02)
        wakeups.stop()

    try:
        asyncio.run(scenario())
    finally:
        other.dispose()
