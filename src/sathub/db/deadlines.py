"""Deadlines for a PostgreSQL server that accepts connections but stops answering.

A frozen server, or a partition where packets vanish behind a proxy, leaves psycopg waiting for
ever once a query is sent: libpq has no timeout there, and TCP keepalives are answered by the
kernel (or the proxy) in front of the silent server. So a watchdog thread shuts down the socket
of a watched connection whose deadline passed; the wait ends with an OperationalError and the
connection is dropped.

A connection being opened has no socket to cut yet, and psycopg waits its connect_timeout (whole
seconds) for a server that accepted it and says nothing: the attempt runs in a thread of its own,
and the caller stops waiting for it at its deadline or when the server is declared silent.

A trivial query (the revision probe, the ping at checkout) that outlives PROBE_SECONDS, or a
connection's start-up that outlives CONNECT_SECONDS, means the server stopped answering: every
watched connection is cut at once, every connection attempt given up, new work fails at once with
DatabaseUnavailable instead of connecting to a server that would not answer, and a background
thread tries a fresh connection every RETRY_SECONDS until one answers (docs/design.md, "Database
unavailable")."""

from __future__ import annotations

import contextlib
import logging
import os
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
_IDLE_EXIT = 5.0
_MAX_ATTEMPTS = 8  # connection attempts in flight at once while the server is silent


class Watch:
    """One watched connection; `fired` tells whether the watchdog cut it."""

    __slots__ = ("deadline", "fd", "fired")

    def __init__(self, deadline: float, fd: int) -> None:
        self.deadline, self.fd, self.fired = deadline, fd, False


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
        # How long a `connect` block may take before its connection is cut (serving engines).
        self.block_seconds: float | None = None

    @contextlib.contextmanager
    def watch(self, dbapi_connection, seconds: float) -> Iterator[Watch]:
        """Cut `dbapi_connection` if the block is still running after `seconds`."""
        # A duplicate of the socket's descriptor, ours until the block ends: the watchdog can
        # never shut down another socket that reused the number after the driver closed its own.
        watch = Watch(time.monotonic() + seconds, os.dup(dbapi_connection.fileno()))
        with self._lock:
            self._watched.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sathub-db-deadlines", daemon=True)
                self._thread.start()
        try:
            yield watch
        finally:
            with self._lock:
                self._watched.discard(watch)
            os.close(watch.fd)

    def open(self, connect: Callable[[], Any], seconds: float) -> Any:
        """The connection `connect()` opens; SilentServer if it is not open after `seconds` (then the
        server is declared silent) or once the server is declared silent by someone else. An
        attempt given up goes on in its thread, and a connection it opens after all is closed."""
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
        threading.Thread(target=run, name="sathub-db-connect", daemon=True).start()
        attempt.ended.wait(seconds)
        with self._lock:
            self._opening.discard(attempt.ended)
            outcome = attempt.outcome
            attempt.abandoned = outcome is None
        if outcome is None:
            self.declare_silent()
            raise SilentServer(f"no connection within {seconds:g} s")
        ok, value = outcome
        if not ok:
            raise value
        return value

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

    def _run(self) -> None:
        last_attempt, last_busy = 0.0, time.monotonic()
        while True:
            time.sleep(_TICK)
            now = time.monotonic()
            with self._lock:
                if self._watched or self.silent_since is not None or self._attempts:
                    last_busy = now
                elif now - last_busy > _IDLE_EXIT:  # an engine nobody uses keeps no thread
                    self._thread = None
                    return
                for watch in self._watched:
                    if not watch.fired and watch.deadline <= now:
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


def _cut(watch: Watch) -> None:
    watch.fired = True
    try:
        with socket.socket(fileno=os.dup(watch.fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
