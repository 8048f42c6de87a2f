"""Deadlines for a PostgreSQL server that accepts connections but stops answering.

A frozen server, or a partition where packets vanish behind a proxy, leaves psycopg waiting for
ever once a query is sent: libpq has no timeout there, and TCP keepalives are answered by the
kernel (or the proxy) in front of the silent server. So a watchdog thread shuts down the socket
of a watched connection whose deadline passed; the wait ends with an OperationalError and the
connection is dropped.

A connection being opened has no socket to cut yet, and psycopg waits its connect_timeout (whole
seconds) for a server that accepted it and says nothing: the attempt runs in a thread of its own,
and the caller stops waiting for it at its deadline or when the server is declared silent.

A trivial query (the revision probe, the checkout ping) that outlives PROBE_SECONDS, or a
connection's start-up that outlives CONNECT_SECONDS, means the server stopped answering, once
confirmed: every watched connection is cut at once, every connection attempt given up, new work
fails at once with DatabaseUnavailable instead of connecting to a server that would not answer,
and a background thread tries a fresh connection every RETRY_SECONDS until one answers
(docs/design.md, "Database unavailable").

A process starved of CPU is not a silent server, so before declaring one:
- deadlines run on the process's own clock (`on_time`), which advances at most _TICK + _LATE
  between two wakes of the watchdog (due every _TICK): when it wakes late, the time it lost is the
  process's (the machine was busy, or a thread held the GIL), not the server's;
- a trivial query whose deadline passes while its answer already waits in its socket, or while
  the server answered anything else in the second half of its wait, gets one more deadline, and
  is then cut without declaring the server silent (the server is there; that query is slow);
- likewise a connection's start-up while the server answered something else.
Only the second half of a wait counts: answers already on their way when a server froze still
arrive just after, and a probe begun then once took them for a live server (declared a second
later, a connection opened meanwhile on the event loop held every request 2 s).
A frozen server answers nothing: it is declared silent at the first deadline, as before."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger("sathub.db")

PROBE_SECONDS = 0.5
# A connection's start-up is several round trips and a new server process: on a loaded machine a
# healthy server took more than PROBE_SECONDS. A silence declared meanwhile ends the wait at once.
CONNECT_SECONDS = 2.0
RETRY_SECONDS = 0.25
_TICK = 0.05
# How late a tick may be and still count whole; beyond, the time was lost to the process's starvation.
_LATE = _TICK
_IDLE_EXIT = 5.0
_MAX_ATTEMPTS = 8  # connection attempts in flight at once while the server is silent


class Watch:
    """One watched connection; `fired` tells whether the watchdog cut it. `deadline` is on the
    process's own clock (Deadlines.on_time); an answer of the server after `heard_after` (on the
    monotonic clock, half the wait in) shows that the server is there."""

    __slots__ = ("deadline", "extended", "fd", "fired", "heard_after", "seconds", "trivial")

    def __init__(self, started: float, deadline: float, seconds: float, fd: int, trivial: bool) -> None:
        self.deadline, self.seconds, self.fd, self.trivial = deadline, seconds, fd, trivial
        self.heard_after = started + seconds / 2
        self.fired = self.extended = False


class Deadlines:
    def __init__(self, try_connection: Callable[[], None]) -> None:
        """`try_connection()` opens a new connection, runs a trivial query and closes it (raising
        when the server does not answer); the recovery attempts call it."""
        self._try_connection = try_connection
        self._lock = threading.Lock()
        self._watched: set[Watch] = set()
        self._opening: set[threading.Event] = set()  # the `ended` of each connection attempt waited for
        self._thread: threading.Thread | None = None
        self._attempts = 0
        self.silent_since: float | None = None  # set while the server is declared silent
        # The watchdog's last wake, on the monotonic clock and on the process's own (on_time).
        self._last_tick = self._tick_on_time = time.monotonic()
        self.heard_at = float("-inf")  # when a watched block last ended well: the server answered
        # How long a `connect` block may take before its connection is cut (serving engines).
        self.block_seconds: float | None = None

    def on_time(self) -> float:
        """The process's own clock: the monotonic one, less the time the process was starved of CPU."""
        with self._lock:
            return self._on_time(time.monotonic())

    def _on_time(self, now: float) -> float:  # under self._lock
        since = now - self._last_tick
        return self._tick_on_time + (since if self._thread is None else min(since, _TICK + _LATE))

    def heard_since(self, moment: float) -> bool:
        """Whether the server answered anything (a watched block ended well) after `moment`."""
        return self.heard_at > moment

    @contextlib.contextmanager
    def watch(self, dbapi_connection, seconds: float, *, trivial: bool = False) -> Iterator[Watch]:
        """Cut `dbapi_connection` if the block is still running after `seconds`. A `trivial` block
        (a query the server answers at once) gets one more deadline when the server is heard from."""
        # A duplicate of the socket's descriptor, ours until the block ends: the watchdog can
        # never shut down another socket that reused the number after the driver closed its own.
        fd = os.dup(dbapi_connection.fileno())
        with self._lock:
            self._start_watchdog()
            now = time.monotonic()
            watch = Watch(now, self._on_time(now) + seconds, seconds, fd, trivial)
            self._watched.add(watch)
        try:
            yield watch
            if not watch.fired:
                self.heard_at = time.monotonic()
        finally:
            with self._lock:
                self._watched.discard(watch)
            os.close(watch.fd)

    def open(self, connect: Callable[[], Any], seconds: float) -> Any:
        """The connection `connect()` opens; SilentServer if it is not open after `seconds` (then the
        server is declared silent, unless it answered something else meanwhile: then `seconds` more
        first) or once the server is declared silent by someone else. An attempt given up goes on in
        its thread, and a connection it opens after all is closed."""
        attempt = _Attempt()

        def run() -> None:
            try:
                outcome = (True, connect())
            except BaseException as exc:
                outcome = (False, exc)
            with self._lock:
                if not attempt.abandoned:
                    attempt.outcome = outcome
                    attempt.ended.set()
                    return
            if outcome[0]:
                outcome[1].close()

        with self._lock:
            if self.silent_since is not None:
                raise SilentServer("the server is silent")
            self._opening.add(attempt.ended)
            self._start_watchdog()
        heard_after = time.monotonic() + seconds / 2
        threading.Thread(target=run, name="sathub-db-connect", daemon=True).start()
        deadline, extended = self.on_time() + seconds, False
        while not attempt.ended.wait(max(0.0, deadline - self.on_time())):
            if deadline > self.on_time():
                continue  # the process was starved meanwhile: the time it lost is given back
            if extended or not self.heard_since(heard_after):
                break
            deadline, extended = deadline + seconds, True
        with self._lock:
            self._opening.discard(attempt.ended)
            outcome = attempt.outcome
            attempt.abandoned = outcome is None
        if outcome is None:
            if self.gave_up(heard_after):
                raise SilentServer(f"no connection within {seconds:g} s")
            raise SilentServer(f"no connection within {2 * seconds:g} s, though the server answers")
        ok, value = outcome
        if not ok:
            raise value
        return value

    def gave_up(self, heard_after: float) -> bool:
        """Work outlived its deadline: the server is declared silent unless it answered something
        after `heard_after` (the work's Watch.heard_after), or it already is. Whether it is silent."""
        if self.silent_since is None and not self.heard_since(heard_after):
            self.declare_silent()
        return self.silent_since is not None

    def declare_silent(self) -> None:
        """The server stopped answering: cut every watched connection, give up every connection
        attempt, and retry in the background."""
        with self._lock:
            if self.silent_since is not None:
                return
            self.silent_since = time.monotonic()
            for watch in self._watched:
                _cut(watch)
            for ended in self._opening:
                ended.set()
        log.error("the database stopped answering; requests answer 503 until it answers again")

    def _start_watchdog(self) -> None:  # under self._lock
        if self._thread is None:
            now = time.monotonic()
            self._tick_on_time, self._last_tick = self._on_time(now), now
            self._thread = threading.Thread(target=self._run, name="sathub-db-deadlines", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        last_attempt, last_busy = 0.0, time.monotonic()
        while True:
            time.sleep(_TICK)
            now = time.monotonic()
            with self._lock:
                on_time = self._tick_on_time = self._on_time(now)
                self._last_tick = now
                if self._watched or self._opening or self.silent_since is not None or self._attempts:
                    last_busy = now
                elif now - last_busy > _IDLE_EXIT:  # an engine nobody uses keeps no thread
                    self._thread = None
                    return
                for watch in self._watched:
                    if not watch.fired and watch.deadline <= on_time:
                        if (
                            watch.trivial
                            and not watch.extended
                            and (_answered(watch) or self.heard_since(watch.heard_after))
                        ):
                            watch.extended, watch.deadline = True, on_time + watch.seconds
                        else:
                            _cut(watch)
                retry = (
                    self.silent_since is not None
                    and now - last_attempt >= RETRY_SECONDS
                    and self._attempts < _MAX_ATTEMPTS
                )
                if retry:
                    self._attempts += 1
                    last_attempt = now
            if retry:
                # An attempt against a silent server waits up to connect_timeout: several run at
                # once, so one started after the server is back answers within RETRY_SECONDS.
                threading.Thread(target=self._attempt, daemon=True).start()

    def _attempt(self) -> None:
        try:
            self._try_connection()
        except Exception:
            return
        finally:
            with self._lock:
                self._attempts -= 1
        with self._lock:
            if self.silent_since is None:
                return
            self.silent_since = None
        log.warning("the database answers again")


class _Attempt:
    __slots__ = ("abandoned", "ended", "outcome")

    def __init__(self) -> None:
        # `ended` is set when the attempt ends or the server is declared silent
        self.ended = threading.Event()
        self.outcome: tuple[bool, Any] | None = None
        self.abandoned = False


class SilentServer(Exception):
    """A connection attempt given up: the server accepted it and did not answer."""


def _answered(watch: Watch) -> bool:
    """Whether an answer waits in the watched socket, unread: the server spoke, the process did not
    get to it yet."""
    readable = select.poll()  # not select(): a serving process's descriptors go past 1,024
    readable.register(watch.fd, select.POLLIN)
    return bool(readable.poll(0))


def _cut(watch: Watch) -> None:
    watch.fired = True
    try:
        with socket.socket(fileno=os.dup(watch.fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
