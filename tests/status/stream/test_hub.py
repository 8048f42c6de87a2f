"""The process's hub (status/push/hub.py) on one event loop, on SQLite and PostgreSQL: its wake-ups
and its heartbeat timer run only while someone listens, a subscriber that comes after they stopped
still receives what is committed, and the one heartbeat timer marks only the silent subscribers."""

from __future__ import annotations

import asyncio
import time

from sqlalchemy import event

from sathub.status.push import hub as hub_module
from sathub.status.push.hub import EventHub, Subscriber
from sathub.status.push.messages import Filter
from sathub.status.revision import RevisionProbe
from tests.status.seed import hours_ago, seed_catalog, store_report

EVERYTHING = Filter()


def _hub(engine) -> EventHub:
    return EventHub(engine, RevisionProbe(engine), max_subscribers=10)


def _listening(hub: EventHub) -> bool:
    """The wake-ups run: a commit of the process's engine wakes the hub (and, on PostgreSQL, the
    LISTEN thread is meant to be up)."""
    return hub.wakeups.running and event.contains(hub.engine, "commit", hub.wakeups._committed)


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
        hub.unsubscribe(silent)
        hub.unsubscribe(talking)

    asyncio.run(scenario())
