"""Group commit: the writes of one process share transactions. While one transaction commits,
the writes that arrive wait; the next transaction takes them all, in arrival order, and every
write learns its outcome only after that transaction committed: a 201 still means stored.

A write the database refuses must not undo the others. Savepoints would see to it, but on
PostgreSQL each costs two round trips, which a transaction of one statement spends more on than on
its statement; and writes are refused rarely (the rules are checked before). So a transaction
first runs its writes as they are; if one fails, it is rolled back and run again with each write
in a savepoint of its own.

A burst of 64 reports then costs a few transactions, not 64 (each with its lock hand-over and,
on PostgreSQL, its commit round trip and WAL flush). A write may come in two steps, a check of
its own and a `store` shared with the writes next to it (run_checked): then one statement
stores them all, and on PostgreSQL its statement triggers run once, not once per report.

In a burst the writer pauses GATHER_SECONDS between two transactions, so that the next takes more
writes: the event loop hands writes over as fast as it reads them, and without the pause a burst
ran about 7 per transaction. Each transaction moves the data revision, after which every cached
answer a reader asks for is made again (with a summary.php reader during a POST burst, the pause
took the POSTs' p99 from 48 to 44 ms on PostgreSQL, and the reads from 2,380 to 2,834 a second,
alternated six times with it off; docs/design.md). The pause comes only
when writes arrived during the last transaction: a write that finds the writer idle starts at once."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sathub.db.engines import WRITERS_LOCK, DatabaseUnavailable, connect, one_at_a_time

MAX_BATCH = 256
GATHER_SECONDS = 0.002
# An idle writer thread waits this long for the next write before it ends (a stopping process waits
# for it as long).
IDLE_SECONDS = 0.5
# A dict that lives as long as one shared transaction, in the thread that runs it: checks may keep
# there what cannot change within it (and would cost a round trip per write to ask again).
_memo: contextvars.ContextVar[dict | None] = contextvars.ContextVar("sathub_transaction_memo", default=None)


def transaction_memo() -> dict | None:
    """The current shared transaction's memo; None outside one."""
    return _memo.get()


class GroupCommit:
    def __init__(self, engine: Engine, gather_seconds: float = GATHER_SECONDS) -> None:
        self.engine = engine
        self.gather_seconds = gather_seconds
        self._waiting: list[tuple[Callable[..., Any], Callable | None, tuple, asyncio.Future]] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._writing = False

    async def run_checked(
        self, check: Callable[..., Any], store: Callable[[Connection, list], list] | None, *args
    ) -> Any:
        """`check(conn, *args)` (which must not write), then `store(conn, checked)` once for
        the checked values of the writes of the same `store` that arrived next to this one, in
        order; this write's element of what `store` returns, once the transaction has committed.
        Without `store`, `check` is the whole write (it may write) and its result is the answer."""
        future = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiting.append((check, store, args, future))
            if self._writing:
                self._arrived.notify()
            else:
                self._writing = True
                threading.Thread(target=self._write, name="sathub-writer").start()
        # Shielded: a client that goes away does not take its write out of the transaction.
        return await asyncio.shield(future)

    def _write(self) -> None:
        """The writer thread: one transaction after the other while writes wait. It takes the next
        batch itself rather than being handed each by the event loop: a hand-over to a pool thread
        waited ~2 ms for the busy loop (a quarter of a transaction's time in a burst).

        Idle, it waits IDLE_SECONDS for the next write before it ends: Thread.start() waits until
        the new thread runs, which a busy process's interpreter lock delays (the event loop spent
        4.7 % of its time in Thread.start beside archive calls, py-spy, when a thread was started
        for every write that found the writer gone)."""
        while True:
            with self._lock:
                if not self._waiting and not self._arrived.wait_for(lambda: self._waiting, IDLE_SECONDS):
                    self._writing = False
                    return
                batch, self._waiting = self._waiting[:MAX_BATCH], self._waiting[MAX_BATCH:]
            self._write_batch(batch)
            # Not kept while idle: the last writes' arguments (an app's state) would outlive them.
            del batch

    def _write_batch(self, batch: list) -> None:
        try:
            outcomes = self._commit(batch)
        except BaseException as exc:  # the transaction failed: no write of it is stored
            outcomes = [(False, exc)] * len(batch)
        # Writes that arrived while that transaction ran (not those sent after its outcomes): a burst.
        burst = bool(self._waiting)
        for (_, _, _, future), outcome in zip(batch, outcomes, strict=False):
            try:
                future.get_loop().call_soon_threadsafe(_settle, future, outcome)
            except RuntimeError:  # its event loop is closed: nobody waits for this outcome
                pass
        if burst:
            time.sleep(self.gather_seconds)  # let more of it join the next transaction

    def _commit(self, batch: list) -> list[tuple[bool, Any]]:
        try:
            return self._transaction(batch, _as_it_is)
        except _OneWriteFailed:  # rolled back: nothing of it is stored
            return self._transaction(batch, _in_savepoint)

    def _transaction(self, batch: list, run_one: Callable) -> list[tuple[bool, Any]]:
        outcomes: list[tuple[bool, Any]] = []
        with connect(self.engine, write=True) as conn:
            token = _memo.set({})
            try:
                self._each(conn, batch, outcomes, run_one)
            finally:
                _memo.reset(token)
        return outcomes

    @staticmethod
    def _each(conn: Connection, batch: list, outcomes: list, run_one: Callable) -> None:
        """The writes of one transaction, in order: a run of writes with the same `store` at once."""
        start = 0
        while start < len(batch):
            store = batch[start][1]
            end = start + 1
            while store is not None and end < len(batch) and batch[end][1] is store:
                end += 1
            if store is None:
                hold_writers_lock(conn)
                outcomes.append(run_one(conn, batch[start][0], batch[start][2]))
            else:
                outcomes += _checked_and_stored(conn, batch[start:end], store, run_one)
            start = end


def hold_writers_lock(conn: Connection) -> None:
    """Before the transaction's first write, once. A transaction of several statements takes row
    locks, then (its statement trigger) the data_revision row, so two of them could each wait for
    the other's locks (PostgreSQL); taken one after the other, they cannot. Checks mostly only
    read, so they run before: the other processes' transactions wait for less (the API's rate count
    is in its store step). Outside a shared transaction, the lock is taken."""
    memo = _memo.get()
    if memo is None or "writers_lock" not in memo:
        one_at_a_time(conn, WRITERS_LOCK)
        if memo is not None:
            memo["writers_lock"] = True


def _settle(future: asyncio.Future, outcome: tuple[bool, Any]) -> None:
    ok, value = outcome
    if not future.done():
        future.set_result(value) if ok else future.set_exception(value)


def _checked_and_stored(
    conn: Connection, group: list, store: Callable[[Connection, list], list], run_one: Callable
) -> list:
    checked = []
    for check, _, args, _ in group:
        try:
            checked.append((True, check(conn, *args)))
        except Exception as exc:  # this write's refusal: it is not stored, the others are
            if _connection_lost(exc):
                raise  # not a refusal: the transaction cannot go on (nor commit) without it
            checked.append((False, exc))
    if not any(passed for passed, _ in checked):
        return checked
    hold_writers_lock(conn)
    ok, stored = run_one(conn, store, ([value for passed, value in checked if passed],))
    results = iter(stored if ok else ())  # read only when ok: then `stored` holds one result per passed check
    return [(passed and ok, (next(results) if ok else stored) if passed else value) for passed, value in checked]


def _in_savepoint(conn: Connection, work: Callable[..., Any], args: tuple) -> tuple[bool, Any]:
    try:
        with conn.begin_nested():
            return True, work(conn, *args)
    except Exception as exc:  # this write's own refusal (a rule, a constraint): the others go on
        return False, exc


class _OneWriteFailed(Exception):
    """A write failed in a transaction run without savepoints: run it again with them."""


def _as_it_is(conn: Connection, work: Callable[..., Any], args: tuple) -> tuple[bool, Any]:
    try:
        return True, work(conn, *args)
    except Exception as exc:
        if _connection_lost(exc):
            raise  # every write of the transaction fails alike: running it again would only wait again
        raise _OneWriteFailed from exc


def _connection_lost(exc: Exception) -> bool:
    """The database stopped answering, or this transaction's connection died."""
    return isinstance(exc, DatabaseUnavailable) or (isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated)
