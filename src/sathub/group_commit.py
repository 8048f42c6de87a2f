"""Group commit: the writes of one process share transactions. While one transaction commits,
the writes that arrive wait; the next transaction takes them all, in arrival order, each in a
savepoint of its own (so one refused write does not undo the others), and every write learns
its outcome only after that transaction committed: a 201 still means stored.

A burst of 64 reports then costs a few transactions, not 64 (each with its lock hand-over and,
on PostgreSQL, its commit round trip and WAL flush). A write may come in two steps, a check of
its own and a `store` shared with the writes next to it (run_checked): then one statement
stores them all, and on PostgreSQL its statement triggers run once, not once per report."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Engine
from starlette.concurrency import run_in_threadpool

from sathub.db import WRITERS_LOCK, connect, one_at_a_time

T = TypeVar("T")
MAX_BATCH = 256
# A dict that lives as long as one shared transaction, in the thread that runs it: checks may keep
# there what cannot change within it (and would cost a round trip per write to ask again).
_memo: contextvars.ContextVar[dict | None] = contextvars.ContextVar("sathub_transaction_memo", default=None)


def transaction_memo() -> dict | None:
    """The current shared transaction's memo; None outside one."""
    return _memo.get()


class GroupCommit:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._waiting: list[tuple[Callable[..., Any], Callable | None, tuple, asyncio.Future]] = []
        self._writer: asyncio.Task | None = None

    async def run(self, work: Callable[..., T], *args) -> T:
        """`work(conn, *args)` in the next shared transaction; its result (or exception) once
        that transaction has committed."""
        return await self.run_checked(work, None, *args)

    async def run_checked(self, check: Callable[..., Any], store: Callable[[Connection, list], list] | None,
                          *args) -> Any:
        """`check(conn, *args)` (which must not write), then `store(conn, checked)` once for
        the checked values of the writes of the same `store` that arrived next to this one, in
        order; this write's element of what `store` returns. Without `store`, `check` is the
        whole write, in a savepoint of its own."""
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((check, store, args, future))
        if self._writer is None:
            self._writer = asyncio.ensure_future(self._write())
        # Shielded: a client that goes away does not take its write out of the transaction.
        return await asyncio.shield(future)

    async def _write(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[:MAX_BATCH], self._waiting[MAX_BATCH:]
                try:
                    outcomes = await run_in_threadpool(self._commit, batch)
                except BaseException as exc:  # the transaction failed: no write of it is stored
                    outcomes = [(False, exc)] * len(batch)
                for (_, _, _, future), (ok, value) in zip(batch, outcomes):
                    if not future.done():
                        future.set_result(value) if ok else future.set_exception(value)
        finally:
            self._writer = None

    def _commit(self, batch: list) -> list[tuple[bool, Any]]:
        outcomes: list[tuple[bool, Any]] = []
        with connect(self.engine, write=True) as conn:
            # A transaction of several statements: each takes row locks, then its statement
            # trigger the data_revision row, so two of them could each wait for the other's
            # locks (PostgreSQL). Taken one after the other, they cannot.
            one_at_a_time(conn, WRITERS_LOCK)
            token = _memo.set({})
            try:
                self._each(conn, batch, outcomes)
            finally:
                _memo.reset(token)
        return outcomes

    @staticmethod
    def _each(conn: Connection, batch: list, outcomes: list) -> None:
        """The writes of one transaction, in order: a run of writes with the same `store` at once."""
        start = 0
        while start < len(batch):
            store = batch[start][1]
            end = start + 1
            while store is not None and end < len(batch) and batch[end][1] is store:
                end += 1
            if store is None:
                outcomes.append(_in_savepoint(conn, batch[start][0], batch[start][2]))
            else:
                outcomes += _checked_and_stored(conn, batch[start:end], store)
            start = end


def _checked_and_stored(conn: Connection, group: list, store: Callable[[Connection, list], list]) -> list:
    checked = []
    for check, _, args, _ in group:
        try:
            checked.append((True, check(conn, *args)))
        except Exception as exc:  # this write's refusal: it is not stored, the others are
            checked.append((False, exc))
    ok, stored = _in_savepoint(conn, store, ([value for passed, value in checked if passed],))
    results = iter(stored) if ok else None
    return [(passed and ok, (next(results) if ok else stored) if passed else value) for passed, value in checked]


def _in_savepoint(conn: Connection, work: Callable[..., Any], args: tuple) -> tuple[bool, Any]:
    try:
        with conn.begin_nested():
            return True, work(conn, *args)
    except Exception as exc:  # this write's own refusal (a rule, a constraint): the others go on
        return False, exc
