"""Group commit: the writes of one process share transactions. While one transaction commits,
the writes that arrive wait; the next transaction takes them all, in arrival order, each in a
savepoint of its own (so one refused write does not undo the others), and every write learns
its outcome only after that transaction committed: a 201 still means stored.

A burst of 64 reports then costs a few transactions, not 64 (each with its lock hand-over and,
on PostgreSQL, its commit round trip and WAL flush)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Engine
from starlette.concurrency import run_in_threadpool

from sathub.db import connect

T = TypeVar("T")
MAX_BATCH = 256


class GroupCommit:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._waiting: list[tuple[Callable[..., Any], tuple, asyncio.Future]] = []
        self._writer: asyncio.Task | None = None

    async def run(self, work: Callable[..., T], *args) -> T:
        """`work(conn, *args)` in the next shared transaction; its result (or exception) once
        that transaction has committed."""
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((work, args, future))
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
                for (_, _, future), (ok, value) in zip(batch, outcomes):
                    if not future.done():
                        future.set_result(value) if ok else future.set_exception(value)
        finally:
            self._writer = None

    def _commit(self, batch: list) -> list[tuple[bool, Any]]:
        outcomes: list[tuple[bool, Any]] = []
        with connect(self.engine, write=True) as conn:
            for work, args, _ in batch:
                outcomes.append(_in_savepoint(conn, work, args))
        return outcomes


def _in_savepoint(conn: Connection, work: Callable[..., Any], args: tuple) -> tuple[bool, Any]:
    try:
        with conn.begin_nested():
            return True, work(conn, *args)
    except Exception as exc:  # this write's own refusal (a rule, a constraint): the others go on
        return False, exc
