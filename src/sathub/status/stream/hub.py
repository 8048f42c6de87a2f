"""One hub per process: it reads the events committed since its position once, for every
subscriber of the process, and hands each its share. It reads only the satellites its live
subscribers' filters name (all of them when one names none); a group that goes live during a
read, with satellites that read did not cover, is sent back behind, to catch up on its own.

Positions: the hub's is the last id it has read (a committed watermark, store/events.py). A
subscriber whose position equals the hub's is *live*: it sits in the hub's group of its filter,
and the hub appends the messages the filter wants to the queue of each member (its position is
the hub's, moved by the hub's read itself). One that is behind (it resumed with an older
Last-Event-ID, or it was busy sending) catches up by reading from the database itself, up to the
hub's position, then joins its group; the hub never reads for it. So every subscriber receives
each event once, in id order, from whichever source, with no window where an event can fall
between the two.

Why groups: a read costs the hub one filter pass per distinct filter, and one append per
subscriber whose filter wants something; a subscriber whose filter wants nothing of a read costs
it nothing. Walking 5,000 idle subscribers per read (a hash and a comparison of their filter
each) was a sixth of the process's CPU while reports were POSTed (py-spy, PostgreSQL).

A subscriber's queue is bounded (MAX_QUEUED_BYTES): one that does not read what it is sent is
dropped, its queue freed and its connection aborted, and the others never wait for it.

Heartbeats: one timer for all subscribers. Every second (HEARTBEAT_SECONDS / BEATS_PER_HEARTBEAT)
it visits the subscribers that have been sent nothing for HEARTBEAT_SECONDS (each is filed under
the tick it falls silent at, so a tick visits only those) and sends each the comment. A timer per
subscriber (a timeout around each wait for events) cost 5,000 timers armed, and re-armed at each
wake-up, for 5,000 subscribers.

Direct writes: to a subscriber whose stream waits with nothing queued, the hub writes heartbeats
and events straight to the connection (_deliver, through the server's BodyWriter); only what the
connection cannot take at once (its writes are paused) or a busy stream's share is queued, and
the stream woken to send it. Each wake-up and send through Starlette and uvicorn was a task's
turn per subscriber: 333 heartbeats a second for 5,000, and 5,000 per event fanned out to all.

Nothing runs while nobody listens: the wake-ups (wakeups.py) and the heartbeats start with the
first subscriber and stop when the last one leaves."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool

from sathub.db.engines import UNREACHABLE, Engine, connect
from sathub.db.revision_probe import RevisionProbe
from sathub.server.connection_hooks import chunk
from sathub.status.store import events as store
from sathub.status.stream.messages import HEARTBEAT, Filter, Message, messages
from sathub.status.stream.wakeups import FALLBACK_SECONDS, Wakeups

READ_LIMIT = 1000  # events per read, the hub's and a catching-up subscriber's
MAX_QUEUED_BYTES = 1 << 20  # queued for one subscriber beyond this: it is not reading, drop it
# After each read the hub rests this long: an event committed while the hub idles is read at once,
# and under a burst of writes one read takes the events of many commits, so the hub costs the
# writers a bounded number of reads a second (20), not one per commit. The LISTEN connection
# rests as long after a notification (wakeups.py): a wake-up sooner would find the hub resting.
REST_SECONDS = 0.05
HEARTBEAT_SECONDS = 15.0  # sent nothing this long: a subscriber is sent a comment
BEATS_PER_HEARTBEAT = 15  # the heartbeat timer's ticks: a stream is silent at most 1/15 longer
HEARTBEAT_CHUNK = chunk(HEARTBEAT)
log = logging.getLogger("sathub.status.stream")


class HubFull(Exception):
    """The process serves as many subscribers as SATHUB_STREAM_MAX_SUBSCRIBERS allows."""


@dataclass(eq=False)
class Subscriber:
    filter: Filter
    behind_at: int  # while behind the hub: the last id it has; while live: unused (the hub's)
    live: bool = False
    queue: deque[bytes] = field(default_factory=deque)
    queued_bytes: int = 0
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: bool = False  # too slow: its stream ends without a word
    closing: bool = False  # the server shuts down: its stream ends cleanly
    abort: Callable[[], None] | None = None  # the connection's, when the server offers it
    # While its stream waits with nothing to send: the connection's BodyWriter.write (when the
    # server offers one), through which the hub writes to it at once (see _deliver).
    direct: Callable[[bytes], bool] | None = None
    sent_at: float = field(default_factory=time.monotonic)  # of its last send (or its subscription)
    heartbeat_due: bool = False  # set by the hub's heartbeat timer, cleared by a send

    def sent(self) -> None:
        self.sent_at = time.monotonic()
        self.heartbeat_due = False

    def take(self) -> bytes:
        chunk = b"".join(self.queue)
        self.queue.clear()
        self.queued_bytes = 0
        self.wake.clear()
        return chunk


class EventHub:
    def __init__(self, engine: Engine, probe: RevisionProbe, max_subscribers: int):
        self.engine, self.max_subscribers = engine, max_subscribers
        self.groups: dict[Filter, set[Subscriber]] = {}  # the live, by filter
        self.behind: set[Subscriber] = set()  # catching up from the database
        self.count = 0
        self.position: int | None = None
        self.wakeups = Wakeups(engine, probe, self._wake, REST_SECONDS)
        self._woken = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._heartbeats: asyncio.Task | None = None
        self._silent: dict[int, list[Subscriber]] = {}  # by heartbeat tick (see _beat)
        self._joining = 0  # first subscribers reading the watermark
        self._started: asyncio.Future | None = None

    def _wake(self) -> None:
        self._woken.set()

    async def subscribe(self, wanted: Filter, after: int | None) -> Subscriber:
        """A subscriber from `after` (None: from now; a position beyond the hub's: from the hub's).
        HubFull beyond the cap; the database's errors while the hub first reads its position."""
        if self.count >= self.max_subscribers:
            raise HubFull
        position = await self._start()
        if not self.count:  # nobody listened: the hub did not follow the commits meanwhile
            self._listen()  # before the watermark is read: a commit after it wakes the hub
            self._joining += 1
            try:
                position = self.position = max(position, await run_in_threadpool(self._read, store.watermark))
            except BaseException:
                if not self.count and self._joining == 1:  # no other first subscriber on its way
                    self._rest()
                raise
            finally:
                self._joining -= 1
        subscriber = Subscriber(wanted, position if after is None else min(after, position))
        self.count += 1
        self._place(subscriber)
        self._file(subscriber, subscriber.sent_at)
        return subscriber

    def _listen(self) -> None:
        self.wakeups.start()
        if self._heartbeats is None:
            self._heartbeats = asyncio.create_task(self._beat(), name="sathub-stream-heartbeats")

    def _rest(self) -> None:
        """Nobody listens: no wake-up, no heartbeat timer (the next first subscriber starts them)."""
        self.wakeups.stop()
        if self._heartbeats is not None:
            self._heartbeats.cancel()
            self._heartbeats = None
        self._silent.clear()

    def _place(self, subscriber: Subscriber) -> None:
        """Into its filter's group when it has caught up with the hub, else among those behind."""
        if subscriber.behind_at == self.position:
            self.behind.discard(subscriber)
            subscriber.live = True
            self.groups.setdefault(subscriber.filter, set()).add(subscriber)
        else:
            self.behind.add(subscriber)

    def _remove(self, subscriber: Subscriber) -> bool:
        """Out of the hub; False when it was not in (dropped before)."""
        if subscriber.live:
            group = self.groups.get(subscriber.filter)
            if group is None or subscriber not in group:
                return False
            group.discard(subscriber)
            if not group:
                del self.groups[subscriber.filter]
            subscriber.live = False
        elif subscriber in self.behind:
            self.behind.discard(subscriber)
        else:
            return False
        self.count -= 1
        if not self.count:
            self._rest()
        return True

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._remove(subscriber)

    async def _start(self) -> int:
        if self._started is None:
            self._started = asyncio.get_running_loop().create_future()
            try:
                self.position = await run_in_threadpool(self._read, store.watermark)
            except BaseException as exc:
                self._started.set_exception(exc)
                self._started.exception()  # retrieved here; the next subscriber tries again
                self._started = None
                raise
            self._started.set_result(None)
            self._task = asyncio.create_task(self._run(), name="sathub-stream-hub")
        else:
            await asyncio.shield(self._started)
        assert self.position is not None
        return self.position

    def _read(self, work, *args):
        """`work(conn, *args)` on a pooled connection. Its commit (every read ends with one:
        engines.connect) wakes nobody (wakeups.py)."""
        with connect(self.engine) as conn:
            return work(conn, *args)

    async def _run(self) -> None:
        while True:
            # asyncio.timeout, not wait_for, whose Python 3.11 version loses a cancellation that
            # comes as the event is set (notify/webhook_delivery.py).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(FALLBACK_SECONDS if self.count else None):
                    await self._woken.wait()
            self._woken.clear()
            self.wakeups.taken()
            try:
                await self._read_new()
                await asyncio.sleep(REST_SECONDS)
            except UNREACHABLE as exc:
                log.warning("stream: database unavailable (%s); reading again on the next wake-up", exc)
                await asyncio.sleep(1)
            except Exception:
                log.exception("stream: reading events failed")
                await asyncio.sleep(1)

    async def _read_new(self) -> None:
        """Read the events committed since the hub's position that its live subscribers want, a
        page at a time, and give each its share. With nobody listening, nothing is read."""
        while True:
            assert self.position is not None
            start = self.position
            if not self.count:
                return  # nothing to read for: the next first subscriber reads the watermark
            names = self._wanted_names()
            upto, rows = await run_in_threadpool(self._read, _new_events, start, names)
            if upto > start:
                self._publish(start, upto, messages(rows), names)
            if len(rows) < READ_LIMIT:
                return

    def _wanted_names(self) -> frozenset[str] | None:
        """The satellites whose events the live groups want (None: every one). Reading only those
        spares the hub the rows nobody listens to: with 5,000 subscribers of one satellite
        nobody POSTed to, the events read and made into messages for none of them were a sixth
        of the process's time on the GIL (py-spy, SQLite)."""
        names: set[str] = set()
        for wanted in self.groups:
            if not wanted.names:
                return None
            names |= wanted.names
        return frozenset(names)

    async def _beat(self) -> None:
        """At each tick, wake the subscribers filed under it that have been sent nothing for
        HEARTBEAT_SECONDS, their heartbeat due, and file each again under the tick of its next
        heartbeat. A walk of all of them at each tick was a quarter of the time on the GIL of a
        process with 5,000 idle subscribers (py-spy, SQLite); this visits each once a heartbeat."""
        step = HEARTBEAT_SECONDS / BEATS_PER_HEARTBEAT  # read once started (tests shorten it)
        done = math.floor(time.monotonic() / step)
        while True:
            await asyncio.sleep(step)
            now = time.monotonic()
            current = math.floor(now / step)
            for tick in range(done + 1, current + 1):
                for subscriber in self._silent.pop(tick, ()):
                    if not (subscriber.live or subscriber in self.behind):
                        continue  # gone
                    silent_since = subscriber.sent_at
                    if silent_since + HEARTBEAT_SECONDS <= now:
                        if not _deliver(subscriber, HEARTBEAT_CHUNK, now):
                            subscriber.heartbeat_due = True
                            subscriber.wake.set()
                        silent_since = now  # its heartbeat goes out now
                    self._file(subscriber, silent_since)
            done = current

    def _file(self, subscriber: Subscriber, silent_since: float) -> None:
        """Under the first tick at which it will have been silent for HEARTBEAT_SECONDS."""
        tick = math.ceil((silent_since + HEARTBEAT_SECONDS) * BEATS_PER_HEARTBEAT / HEARTBEAT_SECONDS)
        self._silent.setdefault(tick, []).append(subscriber)

    def _subscribers(self):
        yield from self.behind
        for group in self.groups.values():
            yield from group

    def _publish(self, start: int, upto: int, made: list[Message], names: frozenset[str] | None) -> None:
        """Each live subscriber's share of a read (of the satellites `names`, None: all): the
        events its filter wants, joined once per group (distinct filter) and shared; a group whose
        filter wants none of them is not visited. Those behind are woken: they read up to the new
        position themselves, and so do the members of a group that went live during the read
        and wants satellites it did not read."""
        if self.position != start:
            # Everyone left during the read and a new first subscriber set the position from a
            # later watermark: this read is stale, the next one starts from there.
            return
        if names is not None:
            for wanted in [wanted for wanted in self.groups if not wanted.names or not wanted.names <= names]:
                for subscriber in self.groups.pop(wanted):
                    subscriber.live, subscriber.behind_at = False, start
                    self.behind.add(subscriber)
        self.position = upto
        for subscriber in self.behind:
            subscriber.wake.set()
        if not made:
            return
        dropped = []
        now = time.monotonic()
        for wanted, group in self.groups.items():
            share = b"".join(message.data for message in made if wanted.wants(message))
            if not share:
                continue
            size, framed = len(share), chunk(share)
            for subscriber in group:
                if _deliver(subscriber, framed, now):
                    continue
                subscriber.queue.append(share)
                subscriber.queued_bytes += size
                if subscriber.queued_bytes > MAX_QUEUED_BYTES:
                    dropped.append(subscriber)
                else:
                    subscriber.wake.set()
        for subscriber in dropped:
            self.drop(subscriber)

    def drop(self, subscriber: Subscriber) -> None:
        """A subscriber that does not read: free what it holds and cut its connection."""
        log.info("stream: a subscriber that stopped reading was dropped")
        subscriber.dropped = True
        subscriber.queue.clear()
        subscriber.queued_bytes = 0
        self._remove(subscriber)
        if subscriber.abort is not None:
            subscriber.abort()
        subscriber.wake.set()

    async def catch_up(self, subscriber: Subscriber) -> list[Message]:
        """The next page of what a subscriber behind the hub missed, read from the database; its
        position moves to the last id read, or to the hub's when the page ends before it."""
        upto = self.position
        assert upto is not None
        names = subscriber.filter.names
        after = subscriber.behind_at
        rows = await run_in_threadpool(self._read, store.events_between, after, upto, names, READ_LIMIT)
        subscriber.behind_at = rows[-1].id if len(rows) == READ_LIMIT else upto
        if not subscriber.dropped and subscriber in self.behind:
            self._place(subscriber)  # caught up with the hub (no read of its moved it meanwhile): live
        return [message for message in messages(rows) if subscriber.filter.wants(message)]

    async def oldest_kept(self) -> int | None:
        return await run_in_threadpool(self._read, store.oldest_kept)


def _deliver(subscriber: Subscriber, framed: bytes, now: float) -> bool:
    """Written straight to the subscriber's connection (`framed`, a chunk), when its stream waits
    with nothing queued and its connection takes it at once; False: the caller queues it and
    wakes the stream, which sends it. Only a stream that waits is written to, so a direct write
    never falls inside or ahead of one of its sends: the order of the stream holds."""
    if subscriber.direct is None or subscriber.queue or not subscriber.direct(framed):
        return False
    subscriber.sent_at = now
    return True


def _new_events(conn, start: int, names: frozenset[str] | None):
    """The watermark, then the events after `start` up to it, of the satellites `names` (None:
    all; none: only the watermark), at most READ_LIMIT: the hub's position moves to the last one
    read when the page is full."""
    upto = store.watermark(conn)
    wanted = upto > start and (names is None or names)
    rows = store.events_between(conn, start, upto, names or (), READ_LIMIT) if wanted else []
    if len(rows) == READ_LIMIT:
        upto = rows[-1].id
    return upto, rows
