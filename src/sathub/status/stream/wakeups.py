"""What tells a process's hub that events were committed, by any process, with no broker:

- on PostgreSQL, one LISTEN connection per process (not per subscriber, db/listening.py), in a
  thread of its own, woken by the NOTIFY that migration 0009's trigger sends and PostgreSQL
  delivers at commit; it listens only until the first one comes, and again once the hub has
  rested (_listen);
- on SQLite, the data revision every process already shares (db/revision_probe.py), read on the
  event loop every POLL_SECONDS while someone listens (a one-row read of a kept cursor);
- in either, a commit of this process's own engine, at once.

They run only while someone listens: the hub starts them for its first subscriber and stops them
when its last one leaves. Left running, every commit of the process still woke the event loop
(and, on PostgreSQL, the LISTEN thread) for nobody: a process whose one subscriber had come and
gone POSTed 86 % as fast as one never subscribed to (PostgreSQL, 570 against 661 POST/s; on
SQLite 0.782 against 0.709 ms of CPU a report; docs/design.md).

A wake-up only says "read again": the hub reads the events themselves from the database, so a
notification lost (a dropped LISTEN connection) costs latency, never an event; the hub also
reads every FALLBACK_SECONDS whatever happens."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from sathub.db.engines import DatabaseUnavailable, Engine
from sathub.db.listening import Listener
from sathub.db.revision_probe import RevisionProbe

NOTIFY_CHANNEL = "sathub_report_events"  # migration 0009's pg_notify
POLL_SECONDS = 0.05
FALLBACK_SECONDS = 5.0
RECONNECT_SECONDS = 1.0
log = logging.getLogger("sathub.status.stream")


class Wakeups:
    """Calls `wake` on the event loop whenever events may have been committed."""

    def __init__(self, engine: Engine, probe: RevisionProbe, wake: Callable[[], None], rest_seconds: float):
        self.probe, self.wake = probe, wake
        self.listener = Listener(engine, NOTIFY_CHANNEL)
        # After a notification the LISTEN connection rests as long as the hub rests after a read.
        self.rest_seconds = rest_seconds
        self.loop: asyncio.AbstractEventLoop | None = None
        # Set when stopped; each start has its own, so a LISTEN thread still waiting out its
        # timeout after a stop ends even if the wake-ups were started again meanwhile.
        self.stopped: threading.Event | None = None
        self._poller: asyncio.Task | None = None
        self._pending = False  # a wake-up is queued on the loop already: the next commits ride on it

    @property
    def running(self) -> bool:
        return self.stopped is not None

    def start(self) -> None:
        """From the event loop; nothing when running already."""
        if self.stopped is not None:
            return
        self.loop = asyncio.get_running_loop()
        self._pending = False
        self.stopped = stopped = threading.Event()
        # Runs in the thread that committed (the group-commit writer, a worker thread); a read's
        # commit (the hub's own among them) is not heard.
        self.listener.hear_commits(self._wake_soon)
        if self.listener.notified_by_others:
            threading.Thread(target=self._listen, args=(stopped,), name="sathub-listen", daemon=True).start()
        else:
            self._poller = asyncio.create_task(self._poll(stopped))

    def stop(self) -> None:
        """From the event loop; nothing when stopped already."""
        if self.stopped is None:
            return
        self.stopped.set()
        self.stopped = None
        self.listener.stop_hearing_commits()
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None

    def _wake_soon(self) -> None:
        """From any thread: one wake-up for any number of commits until the hub takes it (a burst
        of writes must not wake the event loop, and take the GIL from it, once per commit: the
        hub reads at most 1 / hub.REST_SECONDS times a second anyway; clearing it at delivery instead
        cost 4.5 % of the samples of a process POSTed to, py-spy). No commit is missed for it:
        one whose wake-up is skipped happens before the hub takes the pending one, so before the
        hub's next read starts (and a commit not yet visible then is still announced by its
        NOTIFY or by the revision poll, as always)."""
        loop = self.loop
        if self._pending or loop is None or loop.is_closed():
            return
        self._pending = True
        loop.call_soon_threadsafe(self.wake)

    def taken(self) -> None:
        """The hub is about to read: the next commit wakes it again."""
        self._pending = False

    async def _poll(self, stopped: threading.Event) -> None:
        seen = None
        while not stopped.is_set():
            try:
                revision = self.probe.read()
            except DatabaseUnavailable:
                revision = None
            if revision != seen:
                seen = revision
                self.wake()
            await asyncio.sleep(POLL_SECONDS)

    def _listen(self, stopped: threading.Event) -> None:
        while not stopped.is_set():
            try:
                with self.listener.connection() as channel:
                    while not stopped.is_set():
                        if not channel.listening:
                            channel.listen()
                            self._wake_soon()  # what was committed while not listening
                        # One notification wakes the hub, then the connection stops listening for
                        # a rest: while a backend listens, every commit that NOTIFYs signals it,
                        # and it wakes to send each notification on, hundreds of times a second
                        # under a burst of POSTs. The hub reads at most 1 / rest_seconds times a
                        # second anyway, and after listening again reads whatever was committed
                        # meanwhile. (What it saves a POST is within the benchmark's noise.)
                        if channel.notified(timeout=1.0):
                            channel.unlisten()
                            self._wake_soon()
                            stopped.wait(self.rest_seconds)
            except Exception as exc:  # the server went away: listen again, the hub re-reads anyway
                log.warning("stream: LISTEN connection lost (%s); listening again", exc)
                stopped.wait(RECONNECT_SECONDS)
