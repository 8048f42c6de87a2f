"""The process's hub (status/stream/hub.py) on one event loop, on SQLite and PostgreSQL: its wake-ups
and its heartbeat timer run only while someone listens, a subscriber that comes after they stopped
still receives what is committed, the one heartbeat timer marks only the silent subscribers, and
subscribers of various filters coming while reports are written each receive exactly what their
filter wants after their position."""

from __future__ import annotations

import asyncio
import itertools
import re
import time

import pytest

from sathub import db
from sathub.db.engines import DatabaseUnavailable
from sathub.db.revision_probe import RevisionProbe
from sathub.status.store import events as store
from sathub.status.stream import hub as hub_module
from sathub.status.stream import wakeups
from sathub.status.stream.hub import EventHub, Subscriber
from sathub.status.stream.messages import Filter, messages
from tests.conftest import POSTGRES_URL
from tests.status.seed import hours_ago, seed_catalog, store_report

EVERYTHING = Filter()
EVENT_ID = re.compile(rb"^id: (\d+)$", re.MULTILINE)


def _hub(engine) -> EventHub:
    return EventHub(engine, RevisionProbe(engine), max_subscribers=100)


def _listening(hub: EventHub) -> bool:
    """The wake-ups run: a commit of the process's engine wakes the hub (and, on PostgreSQL, the
    LISTEN thread is meant to be up)."""
    return hub.wakeups.running and hub.wakeups.listener.hears_commits


async def _received(subscriber: Subscriber, text: bytes, seconds: float = 5) -> None:
    async with asyncio.timeout(seconds):
        while text not in b"".join(subscriber.queue):
            await subscriber.wake.wait()
            subscriber.wake.clear()


def test_nothing_runs_while_nobody_listens(engine):
    seed_catalog(engine)

    async def scenario() -> None:
        hub = _hub(engine)
        first = await hub.subscribe(EVERYTHING, None)
        second = await hub.subscribe(EVERYTHING, None)
        assert _listening(hub) and hub._heartbeats is not None
        hub.unsubscribe(first)
        assert _listening(hub)
        hub.unsubscribe(second)
        assert not _listening(hub) and hub._heartbeats is None
        # Committed while nobody listens: not pushed to anyone, and not missed by the next one
        # either, which starts from the watermark (a Last-Event-ID would bring it back).
        await asyncio.to_thread(store_report, engine, "AO-91", hours_ago(0), "W5API")
        third = await hub.subscribe(EVERYTHING, None)
        assert _listening(hub)
        await asyncio.to_thread(store_report, engine, "FO-29", hours_ago(0), "K1ABC")
        await _received(third, b'"callsign":"K1ABC"')
        assert b"W5API" not in b"".join(third.queue)
        hub.unsubscribe(third)
        assert not _listening(hub)

    asyncio.run(scenario())


def test_one_timer_marks_the_silent_subscribers_heartbeat_due(engine, monkeypatch):
    monkeypatch.setattr(hub_module, "HEARTBEAT_SECONDS", 0.3)

    async def scenario() -> None:
        hub = _hub(engine)
        silent = await hub.subscribe(EVERYTHING, None)
        talking = await hub.subscribe(EVERYTHING, None)
        silent.wake.clear()
        until = time.monotonic() + 0.6  # twice the heartbeat's silence
        while time.monotonic() < until:
            talking.sent()  # as its stream does at each send
            await asyncio.sleep(0.02)
        assert silent.heartbeat_due and silent.wake.is_set()
        assert not talking.heartbeat_due
        silent.sent()  # the heartbeat sent: due again only after another silence
        assert not silent.heartbeat_due
        silent.wake.clear()
        await asyncio.sleep(0.1)
        assert not silent.heartbeat_due
        await asyncio.sleep(0.5)
        assert silent.heartbeat_due and silent.wake.is_set()
        hub.unsubscribe(silent)
        hub.unsubscribe(talking)

    asyncio.run(scenario())


async def _consume(hub: EventHub, subscriber: Subscriber, got: list[int]) -> None:
    """What a stream does with its subscriber (stream/door.py), keeping the ids it would send."""
    while True:
        if subscriber.queue:
            got += [int(found) for found in EVENT_ID.findall(subscriber.take())]
        elif not subscriber.live and hub.position is not None and subscriber.behind_at < hub.position:
            got += [message.id for message in await hub.catch_up(subscriber)]
        else:
            await subscriber.wake.wait()
            subscriber.wake.clear()


def test_subscribers_of_other_satellites_coming_while_the_hub_reads_miss_nothing(engine, monkeypatch):
    """The hub reads only the satellites its live subscribers want; one that goes live with
    another filter while a read is under way catches up from the database, so that every
    subscriber receives each event its filter wants after its position, once, in order."""
    seed_catalog(engine)
    names = ("AO-91", "FO-29", "ISS-FM", "SO-50", "RS-44", "AO-7")
    keys = [name.lower() for name in names]
    # Each subscriber a filter of its own (a group the hub's read in progress did not know), the
    # one for every satellite last (from then on the hub reads them all).
    filters = [Filter(frozenset(pair)) for pair in itertools.combinations(keys, 2)]
    filters += [Filter(frozenset({key})) for key in keys] + [EVERYTHING]
    read = hub_module._new_events

    def slow_read(*args):  # reads that last: most subscriptions happen during one
        time.sleep(0.02)
        return read(*args)

    monkeypatch.setattr(hub_module, "_new_events", slow_read)
    monkeypatch.setattr(hub_module, "REST_SECONDS", 0.0)  # and one after the other

    def write() -> None:
        for n in range(60):
            store_report(engine, names[n % len(names)], hours_ago(n % 5), f"K{n}ABC")
            time.sleep(0.005)

    async def scenario() -> list[tuple[Filter, int, list[int]]]:
        hub = _hub(engine)
        subscribed = []  # filter, subscriber, its position when it came, the ids it got, its consumer
        writer = asyncio.create_task(asyncio.to_thread(write))
        for wanted in filters:
            subscriber = await hub.subscribe(wanted, None)
            got: list[int] = []
            consumer = asyncio.create_task(_consume(hub, subscriber, got))
            subscribed.append((wanted, subscriber, subscriber.behind_at, got, consumer))
            await asyncio.sleep(0.01)
        await writer
        last = await asyncio.to_thread(_watermark, engine)
        async with asyncio.timeout(10):
            while hub.position != last or any(subscriber.queue for subscriber in hub._subscribers()):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.2)
        for _, subscriber, _, _, consumer in subscribed:
            consumer.cancel()
            hub.unsubscribe(subscriber)
        return [(wanted, position, got) for wanted, _, position, got, _ in subscribed]

    subscribed = asyncio.run(scenario())
    with db.connect(engine) as conn:
        made = messages(store.events_between(conn, 0, store.watermark(conn), limit=100_000))
    for wanted, position, got in subscribed:
        assert got == [message.id for message in made if message.id > position and wanted.wants(message)]


def _watermark(engine) -> int:
    with db.connect(engine) as conn:
        return store.watermark(conn)


def test_a_first_subscriber_failing_leaves_the_wakeups_to_another_on_its_way(engine, monkeypatch):
    """Two first subscribers read the watermark at once; the database fails one of them: the
    other, still reading, gets its subscription with the wake-ups running."""
    read = store.watermark
    calls = iter(range(100))

    def watermark(conn):
        call = next(calls)
        if call == 1:  # the second read of the three (the hub's start, then one per subscriber)
            time.sleep(0.05)
            raise DatabaseUnavailable("the database went away for a moment")
        if call == 2:
            time.sleep(0.3)
        return read(conn)

    monkeypatch.setattr(store, "watermark", watermark)

    async def scenario() -> None:
        hub = _hub(engine)
        results = await asyncio.gather(*(hub.subscribe(EVERYTHING, None) for _ in range(2)), return_exceptions=True)
        assert sorted(type(result).__name__ for result in results) == ["DatabaseUnavailable", "Subscriber"]
        assert hub.count == 1 and _listening(hub)
        hub.unsubscribe(next(result for result in results if isinstance(result, Subscriber)))
        assert not _listening(hub)

    asyncio.run(scenario())


@pytest.mark.skipif(not POSTGRES_URL, reason="psycopg's prepared statements: needs SATHUB_TEST_POSTGRES_URL")
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_hubs_reads_leave_the_connections_prepared_statements(engine, database_url):
    """A read of the hub ends with a commit, not the rollback that closing a read's connection
    makes, at which psycopg would deallocate the statements the connection had prepared (those
    of the writer the pool hands it to next)."""
    one = db.create_engine(database_url, pool_size=1, max_overflow=0)  # the hub's connection is this one
    prepared = "SELECT count(*) FROM pg_prepared_statements"
    try:
        with one.connect() as conn:
            for _ in range(6):  # past psycopg's prepare threshold (5): prepared on the server
                store.watermark(conn)
            conn.commit()
            assert conn.exec_driver_sql(prepared).scalar_one() >= 1
            conn.commit()
        hub = _hub(one)
        for _ in range(3):
            hub._read(store.events_between, 0, 10)
        with one.connect() as conn:
            assert conn.exec_driver_sql(prepared).scalar_one() >= 1
    finally:
        one.dispose()


def test_the_hubs_own_reads_do_not_wake_it(engine, monkeypatch):
    """Its reads end with a commit (above); the commit listener that wakes it for the process's
    writes ignores those, or each read would wake the next: 20 reads a second with nothing written."""
    reads = 0
    read = hub_module._new_events

    def counted(*args):
        nonlocal reads
        reads += 1
        return read(*args)

    monkeypatch.setattr(hub_module, "_new_events", counted)

    async def scenario() -> None:
        hub = _hub(engine)
        subscriber = await hub.subscribe(EVERYTHING, None)
        await asyncio.to_thread(store_report, engine, "AO-91", hours_ago(0), "W5API")
        await _received(subscriber, b'"callsign":"W5API"')
        await asyncio.sleep(0.2)  # what the write woke has been read
        before = reads
        # Nothing written: no read (the fallback's is 5 s away), but one late read for the write's
        # second wake-up (its commit's and the revision poll's) on a slow machine; woken by its own
        # reads' commits, the hub would read about 20 times a second.
        await asyncio.sleep(1)
        assert reads - before <= 1
        hub.unsubscribe(subscriber)

    asyncio.run(scenario())


@pytest.mark.skipif(not POSTGRES_URL, reason="LISTEN/NOTIFY is PostgreSQL's: needs SATHUB_TEST_POSTGRES_URL")
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_postgresql_stops_listening_while_the_hub_rests_and_misses_nothing(engine, database_url):
    """The first notification wakes the hub and the connection stops listening while it rests (a
    listening backend is signalled at every commit that NOTIFYs); a report another process commits
    meanwhile, which notifies nobody, is read once it listens again, long before the 5 s fallback."""
    seed_catalog(engine)
    other = db.create_engine(database_url)  # another process's engine: its commits wake only by NOTIFY

    def listening() -> list[str]:
        """The last statement of each LISTEN connection on the database."""
        with db.connect(engine) as conn:
            return list(
                conn.exec_driver_sql(
                    "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND query ~ '^(UN)?LISTEN '"
                ).scalars()
            )

    def until_none_listens() -> None:  # an earlier hub's LISTEN thread ends within its 1 s wait
        deadline = time.monotonic() + 5
        while listening():
            assert time.monotonic() < deadline
            time.sleep(0.1)

    def last_query() -> str:
        (query,) = listening()
        return query

    async def scenario() -> None:
        hub = _hub(engine)
        hub.wakeups.rest_seconds = 1.0  # the LISTEN connection's rest, long enough to write during it
        subscriber = await hub.subscribe(EVERYTHING, None)
        await asyncio.sleep(0.3)  # the LISTEN thread connected
        assert await asyncio.to_thread(last_query) == f"LISTEN {wakeups.NOTIFY_CHANNEL}"
        await asyncio.to_thread(store_report, other, "AO-91", hours_ago(0), "W5API")
        await _received(subscriber, b'"callsign":"W5API"', seconds=0.8)
        assert await asyncio.to_thread(last_query) == f"UNLISTEN {wakeups.NOTIFY_CHANNEL}"
        await asyncio.to_thread(store_report, other, "FO-29", hours_ago(0), "K1ABC")  # while it rests
        await _received(subscriber, b'"callsign":"K1ABC"', seconds=2.5)
        assert await asyncio.to_thread(last_query) == f"LISTEN {wakeups.NOTIFY_CHANNEL}"
        hub.unsubscribe(subscriber)

    until_none_listens()
    try:
        asyncio.run(scenario())
        until_none_listens()
    finally:
        other.dispose()


def test_a_cancellation_that_comes_with_a_wake_up_ends_the_hub(engine):
    """Cancelled (as the loop's end cancels it) in the same turn of the loop as a wake-up is set, the
    hub's task still ends: Python 3.11's wait_for returned normally then, and the hub read on."""

    async def scenario() -> None:
        hub = _hub(engine)
        subscriber = await hub.subscribe(EVERYTHING, None)
        await asyncio.sleep(0.3)  # its first read done: waiting to be woken
        task = hub._task
        assert task is not None
        hub._woken.set()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            async with asyncio.timeout(5):
                await task
        hub.unsubscribe(subscriber)

    asyncio.run(scenario())
