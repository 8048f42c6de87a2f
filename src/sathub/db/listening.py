"""Hearing that a database was written, for who must act on it at once (the status stream's
wake-ups, status/stream/wakeups.py): a commit of this process's own engine, in the thread that
committed, and on PostgreSQL another process's, by the NOTIFY a trigger sends on a channel,
over a connection of its own that LISTENs (no other dialect tells other processes' commits).

A Listener decides nothing: when to listen and when to rest is its user's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from sathub.db.engines import READ_COMMIT

CONNECT_SECONDS = 5  # a LISTEN connection that cannot be made by then fails, and is tried again


class Listener:
    """The commits of `engine` and, on PostgreSQL, the notifications of `channel`."""

    def __init__(self, engine: Engine, channel: str) -> None:
        self.engine, self.channel = engine, channel
        self._heard: Callable[[], None] | None = None

    @property
    def notified_by_others(self) -> bool:
        """Other processes' commits come as notifications (PostgreSQL); elsewhere their user polls."""
        return self.engine.dialect.name == "postgresql"

    def hear_commits(self, heard: Callable[[], None]) -> None:
        """`heard()` after each commit of this engine that may have written, in the thread that
        committed, until stop_hearing_commits."""
        self._heard = heard
        event.listen(self.engine, "commit", self._committed)

    def stop_hearing_commits(self) -> None:
        event.remove(self.engine, "commit", self._committed)
        self._heard = None

    @property
    def hears_commits(self) -> bool:
        return event.contains(self.engine, "commit", self._committed)

    def _committed(self, conn) -> None:
        # Reads end with a commit too (engines.connect): a listener woken by those, who then reads,
        # would read for ever.
        heard = self._heard
        if heard is not None and not conn.get_execution_options().get(READ_COMMIT):
            heard()

    @contextmanager
    def connection(self) -> Iterator[Channel]:
        """A connection of its own (not the pool's: it waits for notifications), to LISTEN on the
        channel; PostgreSQL only. Its errors are the driver's."""
        import psycopg  # only on PostgreSQL

        conninfo = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(conninfo, autocommit=True, connect_timeout=CONNECT_SECONDS) as conn:
            yield Channel(conn, self.channel)


class Channel:
    """One connection's view of the channel: whether it listens, and the notifications it got."""

    def __init__(self, conn: Any, name: str) -> None:
        self.conn, self.name = conn, name
        self.listening = False

    def listen(self) -> None:
        self.conn.execute(f"LISTEN {self.name}")
        self.listening = True

    def unlisten(self) -> None:
        """While a backend listens, every commit that NOTIFYs the channel signals it."""
        self.conn.execute(f"UNLISTEN {self.name}")
        self.listening = False

    def notified(self, timeout: float) -> bool:
        """A notification came within `timeout` seconds. Taken with it: those that came in the
        same packet (each only says that something was committed)."""
        return any(True for _ in self.conn.notifies(timeout=timeout, stop_after=1))
