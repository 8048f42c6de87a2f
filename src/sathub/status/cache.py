"""Rendered answers kept per process while the data revision they were computed at is current.

The revision lives in the database and triggers bump it on every write (migration 0001), so an
answer is never served stale, whichever process or path wrote. Each request reads the revision
first (one cheap statement); only a miss opens a pooled connection to compute the answer."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine
from starlette.concurrency import run_in_threadpool

from sathub.db import RevisionProbe, connect

T = TypeVar("T")


class AnswerCache:
    def __init__(self, engine: Engine, size: int = 1024):
        self.engine = engine
        self.probe = RevisionProbe(engine)
        self._size = size
        self._entries: OrderedDict[Hashable, tuple[int, object]] = OrderedDict()

    def revision(self) -> int:
        """The current data revision; raises DatabaseUnavailable when the database is away."""
        return self.probe.read()

    async def get(self, key: Hashable, revision: int, compute: Callable[[Connection], T]) -> T:
        """The answer for `key` at `revision`; a miss is computed on a pooled connection in a
        worker thread, so a slow query does not stall the other requests of this process."""
        entry = self._entries.get(key)
        if entry is not None and entry[0] == revision:
            self._entries.move_to_end(key)
            return entry[1]
        value = await run_in_threadpool(self._compute, compute)
        self._entries[key] = (revision, value)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return value


    def _compute(self, compute: Callable[[Connection], T]) -> T:
        with connect(self.engine) as conn:
            return compute(conn)


def answers_of(request) -> AnswerCache:
    return request.app.state.answers
