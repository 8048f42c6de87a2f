"""The PostgreSQL connections a test leaves open. Every connection a test worker makes carries the
worker's application_name (conftest.py puts it in POSTGRES_URL, and every test database's URL
and every `sathub serve` a test starts inherits it), so that two xdist workers on one server
never count each other's; the checker's own connection has a name of its own.

A connection idle in a SQLAlchemy pool is not left open: a pool keeps a bounded number for its
engine's next checkout (the session's migrated engine grows its pool as tests need), and closes
them with its engine, when disposed or collected. Any other is: a connection checked out and never
returned, one detached from its pool (a revision probe's) and never closed, a LISTEN connection,
a `sathub serve` that outlives its test."""

from __future__ import annotations

import gc
import time

import psycopg
from sqlalchemy import event
from sqlalchemy.pool import Pool

CHECKER = "sathub-tests-checker"
# How long connections that outlive a test may take to go: a `sathub serve` the test stopped
# exits within a second or two; a server closes a connection as soon as its client does.
SETTLE_SECONDS = 10.0


def backend_pid(dbapi_connection) -> int | None:
    try:
        return dbapi_connection.info.backend_pid  # psycopg's; SQLite's connections have none
    except Exception:
        return None


class PooledIdle:
    """The backend pids of the connections idle in any SQLAlchemy pool of this process."""

    def __init__(self) -> None:
        self.pids: set[int] = set()
        event.listen(Pool, "checkin", self._idle)
        for leaving in ("checkout", "close", "detach", "invalidate", "soft_invalidate"):
            event.listen(Pool, leaving, self._busy)

    def _idle(self, dbapi_connection, *_) -> None:
        if dbapi_connection is not None and (pid := backend_pid(dbapi_connection)):
            self.pids.add(pid)

    def _busy(self, dbapi_connection, *_) -> None:
        if dbapi_connection is not None:
            self.pids.discard(backend_pid(dbapi_connection))


class Connections:
    """The connections of one application_name on the server of `conninfo`, but those idle in a pool."""

    def __init__(self, conninfo: str, application_name: str) -> None:
        self.application_name = application_name
        self.checker = psycopg.connect(conninfo, autocommit=True, application_name=CHECKER)
        self.pooled = PooledIdle()

    def open(self) -> dict[int, str]:
        """Each open connection's backend pid, and what it is (database, state, its last query)."""
        rows = self.checker.execute(
            "SELECT pid, datname, state, left(query, 120) FROM pg_stat_activity"
            " WHERE application_name = %s AND pid <> pg_backend_pid()",
            (self.application_name,),
        ).fetchall()
        return {
            pid: f"{database} ({state}): {query}" for pid, database, state, query in rows if pid not in self.pooled.pids
        }

    def left_open(self, found: dict[int, str]) -> dict[int, str]:
        """The connections open now beyond the `found` ones' number, once those a test let go have
        had SETTLE_SECONDS to close (unreferenced engines and connections are collected first)."""
        deadline = time.monotonic() + SETTLE_SECONDS
        collected = False
        while True:
            now = self.open()
            if len(now) <= len(found):
                return {}
            if not collected:
                gc.collect()  # an engine or connection nobody holds closes its sockets when collected
                collected = True
                continue
            if time.monotonic() > deadline:
                return {pid: what for pid, what in now.items() if pid not in found}
            time.sleep(0.1)

    def close(self) -> None:
        self.checker.close()
