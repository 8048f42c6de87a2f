"""The data revision (migration 0001), read on the event loop before every cached answer: the
probe that tells an answer cache (status/cache.py) whether what it holds is still current, and
the stream's wake-ups on SQLite that something was written. It is a connection of its own kind
(autocommit, per thread, its query prepared), so it lives with the other connection kinds."""

from __future__ import annotations

import functools
import importlib
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from sathub.db.deadlines import PROBE_SECONDS
from sathub.db.engines import DatabaseUnavailable, deadlines_of, refuse_while_silent, under_deadline

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")


class RevisionProbe:
    """Reads the one-row data revision (migration 0001) on a dedicated autocommit connection per
    thread: checking out a pooled SQLAlchemy connection and its transaction costs ~40 times the
    query itself, and every cached read starts with this query. The connection keeps one cursor
    for it, and on PostgreSQL the query is a prepared statement (no parse or plan per request).
    `execute` runs another statement on the same connection: a read that also reads the revision
    can stand in for the probe."""

    QUERY = "SELECT revision FROM data_revision WHERE id = 1"
    _PREPARED = b"sathub_revision"  # its name on PostgreSQL
    # How long a commit or a read of this process vouches that the database is there.
    ALIVE_FOR = 0.25

    def __init__(self, engine: Engine):
        self.engine = engine
        self.local = threading.local()
        self.alive_at = float("-inf")
        self._psycopg = importlib.import_module("psycopg") if engine.dialect.name == "postgresql" else None
        # Every thread's connection, so that close() reaches those of threads that are gone.
        self._opened: list[Connection] = []
        self._opened_lock = threading.Lock()
        # The engine's commits vouch for the database; its listener holds the probe weakly, and a
        # probe collected without close() (an app made and dropped without its shutdown, as tests
        # do) closes its connections and stops listening then: held by a shared engine, each such
        # probe kept a connection open on the server, and its listener, for as long as the engine.
        self._listener = functools.partial(_commits_vouch, weakref.ref(self))
        event.listen(engine, "commit", self._listener)
        self._closer = weakref.finalize(self, _close, engine, self._listener, self._opened, self._opened_lock)

    def close(self) -> None:
        """Close every thread's connection and stop listening to the engine's commits (the app's
        shutdown)."""
        _close(self.engine, self._listener, self._opened, self._opened_lock)
        self.local = threading.local()

    def check(self) -> None:
        """Raise DatabaseUnavailable unless the database answered this process very recently
        (a write's check before its body: under a burst of writes, their commits vouch for it,
        without one more round trip per request on the event loop)."""
        if time.monotonic() - self.alive_at > self.ALIVE_FOR:
            self.read()

    def read(self) -> int:
        return self._run(self._revision)

    def _revision(self, conn: Connection, cursor) -> int:
        if self._psycopg:
            # Through psycopg's libpq wrapper: its cursor took 12 of the 44 µs a probe costs here.
            result = self._ok(cursor.connection.pgconn.exec_prepared(self._PREPARED, []), "TUPLES_OK")
            return int(result.get_value(0, 0))
        cursor.execute(self.QUERY)
        return cursor.fetchone()[0]

    def _ok(self, result, status: str):
        module = self._psycopg
        assert module is not None, "only PostgreSQL's results are checked here"
        if result.status != module.pq.ExecStatus[status]:
            raise module.OperationalError(result.get_error_message().decode(errors="replace"))
        return result

    def execute(self, statement: sa.Executable, parameters: dict) -> Sequence[sa.Row]:
        return self._run(lambda conn, cursor: conn.execute(statement, parameters).all())

    def _run(self, work: Callable[[Connection, object], T]) -> T:
        try:
            return self._once(work)
        except DatabaseUnavailable:  # the server stopped answering: no second wait
            self._discard()
            raise
        except Exception:  # a connection that died with its server: try once more on a new one
            self._discard()
        try:
            return self._once(work)
        except Exception as exc:
            self._discard()
            raise exc if isinstance(exc, DatabaseUnavailable) else DatabaseUnavailable(str(exc)) from exc

    def _once(self, work: Callable[[Connection, object], T]) -> T:
        deadlines = deadlines_of(self.engine)
        refuse_while_silent(deadlines)
        conn = getattr(self.local, "conn", None)
        if conn is None:
            # Autocommit, so that no read holds a snapshot; detached, so that it never goes back
            # to the pool in that mode for someone else.
            conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            conn.detach()
            self.local.conn = conn
            with self._opened_lock:
                self._opened.append(conn)
            dbapi_connection = conn.connection.dbapi_connection
            assert dbapi_connection is not None, "a connection just opened, not invalidated"
            self.local.cursor = dbapi_connection.cursor()
            if self._psycopg:
                # On PostgreSQL, sathub's dialect is psycopg's: its DBAPI connection is a psycopg.Connection.
                pgconn = cast("psycopg.Connection[Any]", dbapi_connection).pgconn
                self._ok(pgconn.prepare(self._PREPARED, self.QUERY.encode()), "COMMAND_OK")
        cursor = self.local.cursor
        # This runs on the event loop: a server that stopped answering must not stop it.
        with under_deadline(deadlines, cursor.connection, PROBE_SECONDS, declare=True):
            result = work(conn, cursor)
        self.alive_at = time.monotonic()
        return result

    def _discard(self) -> None:
        conn = getattr(self.local, "conn", None)
        self.local.conn = self.local.cursor = None
        if conn is not None:
            with self._opened_lock:
                self._opened[:] = [kept for kept in self._opened if kept is not conn]
            try:
                conn.invalidate()
            except Exception:
                pass


def _commits_vouch(probe: weakref.ref[RevisionProbe], *_) -> None:
    alive = probe()
    if alive is not None:
        alive.alive_at = time.monotonic()


def _close(engine: Engine, listener: Callable, opened: list[Connection], lock: threading.Lock) -> None:
    if event.contains(engine, "commit", listener):
        event.remove(engine, "commit", listener)
    with lock:
        connections = opened[:]
        opened.clear()
    for conn in connections:
        try:
            conn.close()
        except Exception:  # gone with its server already
            pass
