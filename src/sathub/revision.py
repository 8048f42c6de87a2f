"""The data revision (migration 0001: one row that triggers bump on every write), read before
every cached answer is served. It must be read fresh for each request, or a client could miss
its own write when another process answers its next request; so it is made cheap instead:

- on a dedicated autocommit connection: checking out a pooled SQLAlchemy connection and its
  transaction costs ~40 times the query itself;
- on PostgreSQL, asynchronously and shared: requests that arrive while a read is on its way wait
  for the next read, which starts after they arrived, and all of them take its answer. The event
  loop goes on serving while the server answers, and 64 concurrent requests cost a few round
  trips, not 64. (SQLite's read is a local file access of a few microseconds: done in place.)"""

from __future__ import annotations

import asyncio
import threading

import psycopg
from sqlalchemy.engine import Engine

from sathub.db import DatabaseUnavailable

QUERY = "SELECT revision FROM data_revision WHERE id = 1"


class RevisionProbe:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.local = threading.local()
        self._shared = engine.dialect.name == "postgresql"
        self._conninfo = (engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
                          if self._shared else "")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next: asyncio.Future | None = None  # the read the newly arrived requests wait for
        self._reading = False
        self._conn: psycopg.AsyncConnection | None = None

    async def current(self) -> int:
        """The revision as of some moment after this call began; raises DatabaseUnavailable."""
        if not self._shared:
            return self.read()
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (tests start several): nothing carries over
            self._loop, self._next, self._reading, self._conn = loop, None, False, None
        if self._next is None:
            self._next = loop.create_future()
            self._next.add_done_callback(_retrieve)
            if not self._reading:
                self._reading = True
                loop.create_task(self._read_for_waiters())
        return await asyncio.shield(self._next)

    async def _read_for_waiters(self) -> None:
        try:
            while self._next is not None:
                waiting, self._next = self._next, None  # later arrivals wait for the next read
                try:
                    waiting.set_result(await self._read_async())
                except DatabaseUnavailable as exc:
                    waiting.set_exception(exc)
        finally:
            self._reading = False

    async def _read_async(self) -> int:
        for attempt in range(2):  # a connection that died with its server: once more on a new one
            try:
                if self._conn is None:
                    self._conn = await psycopg.AsyncConnection.connect(
                        self._conninfo, autocommit=True, connect_timeout=3)
                cursor = await self._conn.execute(QUERY)
                return (await cursor.fetchone())[0]
            except Exception as exc:
                conn, self._conn = self._conn, None
                if conn is not None:
                    await conn.close()
                if attempt:
                    raise DatabaseUnavailable(str(exc)) from exc
        raise AssertionError("unreachable")

    def read(self) -> int:
        """The revision, read in place (per thread connection)."""
        try:
            return self._read()
        except Exception:  # a connection that died with its server: try once more on a new one
            self._discard()
        try:
            return self._read()
        except Exception as exc:
            self._discard()
            raise DatabaseUnavailable(str(exc)) from exc

    def _read(self) -> int:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.engine.raw_connection()
            # Detached: it must never go back to the pool in autocommit mode for someone else.
            conn.detach()
            if self.engine.dialect.name == "postgresql":
                conn.dbapi_connection.autocommit = True
            self.local.conn = conn
        cursor = conn.cursor()
        try:
            cursor.execute(QUERY)
            return cursor.fetchone()[0]
        finally:
            cursor.close()

    def _discard(self) -> None:
        conn = getattr(self.local, "conn", None)
        self.local.conn = None
        if conn is not None:
            try:
                conn.invalidate()
            except Exception:
                pass


def _retrieve(future: asyncio.Future) -> None:
    """Marks a failed read's exception as seen, for when every request waiting on it went away."""
    if not future.cancelled():
        future.exception()
