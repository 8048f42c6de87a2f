"""The webhooks' deliverer: every serving process runs one (its lifespan, `webhook_delivery`).

- Leases (store/webhooks.py `claim`): every Policy.claim_seconds a process takes the enabled hooks that
  nobody holds and renews its own; a hook is delivered by its holder alone. A process that stops
  gives its leases back; one that dies lets them lapse (Policy.lease_seconds) and another takes
  them over from the position the database keeps, so an event is delivered at least once. Before
  each POST the holder makes sure its lease outlasts the attempt's deadline, so the next holder
  never sends while an earlier one's attempt may still be on the wire.
- One task per held hook, sending one event at a time: the position (the last event delivered or
  passed over) moves only once the receiver answered 2xx, so each hook gets its events in order.
  A failure waits retry_delay (10 s, doubling, at most an hour) and tries the same event again; a
  hook failing for retry_seconds (24 h) in a row is disabled, with the reason, until an admin
  enables it again. Each hook waits only for its own receiver: the POSTs run in a pool of
  SENDING_THREADS threads, each cut at the attempt's deadline.
- Wake-ups: the stream's (status/stream/wakeups.py: this process's commits, PostgreSQL's NOTIFY,
  SQLite's data revision), started while the process holds any hook; each read takes the events
  after the hooks' positions up to the committed watermark (store/events.py) once, for every
  hook of the process; a hook further behind reads its own pages. With no wake-up, every
  Policy.claim_seconds (5 s) anyway."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass

from starlette.applications import Starlette

from sathub.config import Settings
from sathub.db.engines import UNREACHABLE, Engine, connect
from sathub.db.revision_probe import RevisionProbe
from sathub.status.notify.webhook_events import Payload, payloads
from sathub.status.notify.webhook_rules import (
    DELIVERY_HEADER,
    EVENT_HEADER,
    EVENT_ID_HEADER,
    SIGNATURE_HEADER,
    USER_AGENT,
    retry_delay,
    signature,
    utc_text,
)
from sathub.status.notify.webhook_sending import Outcome, Post
from sathub.status.store import events as event_store
from sathub.status.store import webhooks as store
from sathub.status.stream.wakeups import Wakeups

SENDING_THREADS = 64  # POSTs in flight at once per process; a dead receiver holds one until its deadline
READ_LIMIT = 1000  # events per read (ids are gap-free, so a window of ids holds at most this many)
# After a read the deliverer rests this long, so that a burst of commits (each one a wake-up) costs
# at most 20 reads a second; it adds at most this to a delivery's latency.
REST_SECONDS = 0.05
log = logging.getLogger("sathub.status.notify")


@dataclass(frozen=True)
class Policy:
    allow_private: bool = False
    timeout: float = 10.0  # connect, each read, and the whole attempt
    retry_seconds: float = 24 * 3600.0  # a hook failing this long in a row is disabled
    first_retry: float = 10.0
    longest_retry: float = 3600.0
    log_size: int = 50  # attempts kept per hook (up to twice as many between two trims)
    # Leases taken and renewed this often: a hook added (or enabled) starts within it, and one a
    # stopped process held is taken over within lease_seconds.
    claim_seconds: float = 5.0

    @classmethod
    def of(cls, settings: Settings) -> Policy:
        return cls(
            allow_private=bool(settings.webhooks_allow_private),
            timeout=float(settings.webhook_timeout),
            retry_seconds=settings.webhook_retry_hours * 3600.0,
        )

    @property
    def lease_seconds(self) -> float:
        """Outlasts an attempt (its deadline, and as long again for a cancelled one to end) and the
        gap between two renewals."""
        return max(60.0, 4 * self.timeout + 4 * self.claim_seconds)


@dataclass(frozen=True)
class Window:
    """The events after `after` up to the watermark `upto` that the hooks of the process want read."""

    after: int = 0
    upto: int = 0
    payloads: tuple[Payload, ...] = ()


class Deliveries:
    def __init__(self, engine: Engine, probe: RevisionProbe, policy: Policy) -> None:
        self.engine, self.policy = engine, policy
        self.owner = f"{socket.gethostname()[:32]}:{os.getpid()}:{secrets.token_hex(4)}"
        self.hooks: dict[int, HookDelivery] = {}
        self.window = Window()
        self.woken = asyncio.Event()
        self.wakeups = Wakeups(engine, probe, self.woken.set, REST_SECONDS)
        self.pool = ThreadPoolExecutor(SENDING_THREADS, thread_name_prefix="sathub-webhook")
        self._claimed_at = float("-inf")
        self._writes: list[tuple] = []
        self._writer: asyncio.Task | None = None
        self._unreachable = False

    async def run(self) -> None:
        try:
            while True:
                self.woken.clear()
                self.wakeups.taken()
                try:
                    await self._round()
                    self._unreachable = False
                except UNREACHABLE as exc:
                    if not self._unreachable:
                        log.warning("webhooks: database unavailable (%s); trying again", exc)
                    self._unreachable = True
                except Exception:  # a bug must not end delivery for the process: logged, tried again
                    log.exception("webhooks: delivery round failed")
                await asyncio.sleep(REST_SECONDS)
                wait = self._claimed_at + self.policy.claim_seconds - time.monotonic()
                if wait > 0:
                    # asyncio.timeout, not wait_for: Python 3.11's wait_for returns normally when
                    # the event is set as the task is cancelled, and a stop was lost for good (the
                    # deliverer kept running, its LISTEN connection open).
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(wait):
                            await self.woken.wait()
        finally:
            await self._stop()

    async def _round(self) -> None:
        if time.monotonic() - self._claimed_at >= self.policy.claim_seconds:
            await self._claim()
        ready = [hook.position for hook in self.hooks.values() if hook.ready]
        if ready:
            window = await asyncio.to_thread(self._read, min(ready))
            if window is not self.window:
                self.window = window
                for hook in self.hooks.values():
                    hook.more.set()

    async def _claim(self) -> None:
        now = time.time()
        until = now + self.policy.lease_seconds
        held = await asyncio.to_thread(self._claimed, now, until)
        self._claimed_at = time.monotonic()
        for hook_id in set(self.hooks) - {hook.id for hook in held}:
            self.hooks.pop(hook_id).stop()
        for hook in held:
            running = self.hooks.get(hook.id)
            if running is None or running.ended:
                self.hooks[hook.id] = HookDelivery(self, hook, until)
            else:
                running.lease_until = until
        if self.hooks:
            self.wakeups.start()
        else:
            self.wakeups.stop()

    def _claimed(self, now: float, until: float) -> list[store.Webhook]:
        with connect(self.engine, write=True) as conn:
            return store.claim(conn, self.owner, now, until)

    def _read(self, after: int) -> Window:
        """The events after `after` up to the watermark now, at most READ_LIMIT (the newest; those
        further behind read their own pages); the window as it is when nothing was committed since."""
        with connect(self.engine) as conn:
            upto = event_store.watermark(conn)
            if upto == self.window.upto and self.window.after <= after:
                return self.window
            start = max(after, upto - READ_LIMIT)
            return Window(start, upto, tuple(payloads(event_store.events_between(conn, start, upto, limit=READ_LIMIT))))

    def read_page(self, after: int, upto: int) -> tuple[list[Payload], int]:
        """The events after `after`, at most READ_LIMIT of them up to `upto`, and the last id the page reached."""
        with connect(self.engine) as conn:
            rows = event_store.events_between(conn, after, upto, limit=READ_LIMIT)
        return payloads(rows), rows[-1].id if len(rows) == READ_LIMIT else upto

    async def write(self, work, *args, **kwargs):
        """A write of a hook's state. The writes the hooks ask for meanwhile share one transaction
        (in a worker thread): 100 hooks delivering a report each was 100 transactions, one after
        the other on SQLite, and the deliveries of a burst waited seconds for their turn."""
        future = asyncio.get_running_loop().create_future()
        self._writes.append((work, args, kwargs, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        return await future

    async def _write_pending(self) -> None:
        while self._writes:
            batch, self._writes = self._writes, []
            try:
                results = await asyncio.to_thread(self._write_batch, batch)
            except Exception as exc:  # the whole transaction rolled back: each hook hears it
                for *_, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (*_, future), result in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(result)

    def _write_batch(self, batch: list) -> list:
        with connect(self.engine, write=True) as conn:
            return [work(conn, *args, **kwargs) for work, args, kwargs, _ in batch]

    async def _stop(self) -> None:
        self.wakeups.stop()
        held = bool(self.hooks)
        for hook in self.hooks.values():
            hook.stop()
        self.hooks.clear()
        self.pool.shutdown(wait=False, cancel_futures=True)
        if not held:  # no lease to give back: a process without hooks needs no database to stop
            return
        try:
            await asyncio.to_thread(self._release)
        except Exception as exc:  # the leases lapse instead
            log.warning("webhooks: leases not given back (%s); they lapse", exc)

    def _release(self) -> None:
        with connect(self.engine, write=True) as conn:
            store.release(conn, self.owner)


class HookDelivery:
    """One held hook's deliveries, in a task of its own."""

    def __init__(self, deliveries: Deliveries, hook: store.Webhook, lease_until: float) -> None:
        self.deliveries, self.hook, self.lease_until = deliveries, hook, lease_until
        self.id, self.position, self.stored = hook.id, hook.position, hook.position
        self.failures, self.failing_since = hook.failures, hook.failing_since
        self.next_attempt = hook.next_attempt
        self.attempts = 0
        self.more = asyncio.Event()
        self.more.set()
        self.ended = False
        self.task = asyncio.create_task(self._run(), name=f"sathub-webhook-{hook.id}")

    @property
    def ready(self) -> bool:
        return not self.ended and self.next_attempt <= time.time()

    def stop(self) -> None:
        self.ended = True
        self.task.cancel()

    async def _run(self) -> None:
        try:
            while not self.ended:
                await self.more.wait()
                self.more.clear()
                await self._catch_up()
        except UNREACHABLE as exc:
            log.warning("webhooks: hook %d paused, database unavailable (%s)", self.id, exc)
        except Exception:
            log.exception("webhooks: hook %d failed", self.id)
        finally:
            self.ended = True  # the next claim starts it again, from the position it stored

    async def _catch_up(self) -> None:
        deliveries = self.deliveries
        while not self.ended and self.position < (window := deliveries.window).upto:
            wait = self.next_attempt - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if window.after <= self.position:
                batch, end = [payload for payload in window.payloads if payload.event_id > self.position], window.upto
            else:
                batch, end = await asyncio.to_thread(deliveries.read_page, self.position, window.upto)
            if not await self._deliver_in_order(batch):
                continue  # failed: the same event again once its retry is due (or the hook ended)
            # Events passed over move the stored position now and then, not each time (a restart
            # passes over them again): a write per event for every hook that wants none of them
            # was as many writes as deliveries.
            if end - self.stored >= READ_LIMIT and not await self._store_position(end):
                return
            self.position = max(self.position, end)

    async def _deliver_in_order(self, batch: list[Payload]) -> bool:
        """The batch's events this hook wants, one after the other; whether all were delivered."""
        for payload in batch:
            if payload.wanted_by(self.hook.events, self.hook.names) and not await self._deliver(payload):
                return False
        return True

    def _trim(self) -> int | None:
        """Every log_size attempts, the log is trimmed to the last log_size."""
        self.attempts += 1
        return self.deliveries.policy.log_size if self.attempts % self.deliveries.policy.log_size == 0 else None

    def _lease(self) -> tuple[float, float]:
        now = time.time()
        return now, now + self.deliveries.policy.lease_seconds

    async def _store_position(self, position: int) -> bool:
        now, until = self._lease()
        held = await self.deliveries.write(store.advance, self.id, self.deliveries.owner, now, until, position)
        self.lease_until, self.stored, self.ended = until, position, not held
        return held

    async def _deliver(self, payload: Payload) -> bool:
        """One attempt at the event; whether it was delivered (the hook goes on to the next)."""
        deliveries, policy, owner = self.deliveries, self.deliveries.policy, self.deliveries.owner
        if self.lease_until - time.time() < 2 * policy.timeout + policy.claim_seconds:
            now, until = self._lease()
            if not await deliveries.write(store.renew, self.id, owner, now, until):
                self.ended = True
                return False
            self.lease_until = until
        delivery_id = str(uuid.uuid4())
        attempted_at = time.time()
        outcome = await self._post(payload, delivery_id)
        attempt = store.Attempt(
            delivery_id, payload.event_id, attempted_at, outcome.duration_ms, outcome.status_code, outcome.error
        )
        now, until = self._lease()
        if outcome.delivered:
            held = await deliveries.write(
                store.record_attempt, self.id, owner, now, until, attempt, delivered=True, trim_to=self._trim()
            )
            if held:
                self.position = self.stored = payload.event_id
                self.failures, self.failing_since, self.next_attempt, self.lease_until = 0, None, 0.0, until
            self.ended = not held
            return held
        self.failures += 1
        self.failing_since = self.failing_since or attempted_at
        reason = None
        if now - self.failing_since >= policy.retry_seconds:
            since = utc_text(self.failing_since)
            reason = f"failed {self.failures} times in a row since {since}; last: {_described(outcome)}"
        self.next_attempt = now + retry_delay(self.failures, policy.first_retry, policy.longest_retry)
        held = await deliveries.write(
            store.record_attempt, self.id, owner, now, until, attempt,
            delivered=False, next_attempt=self.next_attempt, disabled_reason=reason, trim_to=self._trim(),
        )  # fmt: skip
        if reason is not None:
            log.warning("webhooks: hook %d disabled: %s", self.id, reason)
        self.lease_until = until
        self.ended = not held or reason is not None
        return False

    async def _post(self, payload: Payload, delivery_id: str) -> Outcome:
        policy = self.deliveries.policy
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            SIGNATURE_HEADER: signature(self.hook.secret, payload.body),
            EVENT_HEADER: payload.kind,
            EVENT_ID_HEADER: str(payload.event_id),
            DELIVERY_HEADER: delivery_id,
        }
        post = Post(self.hook.url, payload.body, headers, policy.timeout, policy.allow_private)
        sending = asyncio.get_running_loop().run_in_executor(self.deliveries.pool, post.run)
        try:
            async with asyncio.timeout(policy.timeout):
                return await asyncio.shield(sending)
        except TimeoutError:
            post.cancel()
            return Outcome(None, "timed out (the whole attempt)", policy.timeout * 1000)
        except asyncio.CancelledError:
            post.cancel()
            raise


@asynccontextmanager
async def webhook_delivery(app: Starlette) -> AsyncIterator[None]:
    """The app's lifespan: this process delivers webhooks while it serves (unless
    SATHUB_WEBHOOK_DELIVERY=0)."""
    if not app.state.settings.webhook_delivery:
        yield
        return
    deliveries = Deliveries(app.state.engine, app.state.answers.probe, Policy.of(app.state.settings))
    task = asyncio.create_task(deliveries.run(), name="sathub-webhooks")
    try:
        yield
    finally:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass


def _described(outcome: Outcome) -> str:
    return outcome.error or f"HTTP {outcome.status_code}"
