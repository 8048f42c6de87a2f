"""Rendered answers kept per process while the data revision they were computed at is current.

The revision lives in the database and triggers bump it on every write (migration 0001), so an
answer is never served stale, whichever process or path wrote. Each request reads the revision
first (one cheap statement); only a miss opens a pooled connection to compute the answer, and
concurrent misses of one answer share a single computation.

On the event loop, one probe serves every request of the same batch of ready callbacks: a request
whose handler runs in that batch was received before the batch began (its task was queued by then),
so before the probe was sent, and the probe sees every write acknowledged before it arrived. The
shared value is forgotten by a callback queued right after the probe, which runs before the
handler of any request received later (docs/design.md, "Answers are cached per process, never
stale")."""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Protocol, TypeVar, cast

from starlette.concurrency import run_in_threadpool

from sathub.db.engines import Connection, Engine, connect
from sathub.db.revision_probe import RevisionProbe
from sathub.status.templating import CachedPage

T = TypeVar("T")


class Updatable(Protocol):
    @property
    def revision(self) -> int: ...


U = TypeVar("U", bound=Updatable)
# What an answer is kept under: the data revision, or a tuple starting with it. All the labels of
# one key are of one kind (the key names its endpoint, which passes the same kind every time).
Label = TypeVar("Label", int, tuple)


class AnswerCache:
    def __init__(self, engine: Engine, size: int = 1024, max_bytes: int = 256 * 2**20):
        self.engine = engine
        self.probe = RevisionProbe(engine)
        self._size = size
        # Answers are bytes of very different sizes (a 300-byte array, a 23 MB status page), and
        # without a configured base URL the Host header is part of their keys: bound both.
        self._max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[Hashable, tuple[int | tuple, object, int]] = OrderedDict()
        self._computing: dict[tuple[Hashable, int | tuple], asyncio.Future] = {}
        # (loop, revision) of the probe this batch of the event loop shares, else None.
        self._shared: tuple[asyncio.AbstractEventLoop, int] | None = None
        self._derived: OrderedDict[Hashable, tuple[Hashable, bytes]] = OrderedDict()

    def revision(self) -> int:
        """The current data revision, read after this request arrived; raises DatabaseUnavailable
        when the database is away."""
        loop = asyncio._get_running_loop()  # None in a worker thread: those always probe
        shared = self._shared
        if shared is not None and loop is not None and shared[0] is loop:
            return shared[1]
        revision = self.probe.read()
        if loop is not None:
            self._share(loop, revision)
        return revision

    def _share(self, loop: asyncio.AbstractEventLoop, revision: int) -> None:
        self._shared = (loop, revision)
        loop.call_soon(self._forget_shared)

    def _forget_shared(self) -> None:
        self._shared = None

    def derived(self, key: Hashable, version: Hashable, make: Callable[[], bytes]) -> bytes:
        """Bytes made without the database from a cached answer (a response body around a cached
        fragment), kept while `version` (the answer's revision and whatever else went into them,
        like the second of `meta.since`) stays the same: the last 64 keys."""
        entry = self._derived.get(key)
        if entry is not None and entry[0] == version:
            return entry[1]
        body = make()
        self._derived[key] = (version, body)
        self._derived.move_to_end(key)
        if len(self._derived) > 64:
            self._derived.popitem(last=False)
        return body

    def check_database(self) -> None:
        """DatabaseUnavailable unless the database is there (a recent answer or commit counts)."""
        self.probe.check()

    async def get(self, key: Hashable, revision: int | tuple, compute: Callable[[Connection], T]) -> T:
        """The answer for `key` at `revision` (the data revision, or a tuple starting with it when
        the answer also depends on something else that only moves forward, like the time). A miss
        is computed on a pooled connection in a worker thread, so a slow query does not stall the
        other requests of this process. Requests that miss while the same answer is being computed
        wait for it instead of computing it again (after a write, 64 connections asking for one
        summary would otherwise run 64 aggregates)."""
        entry = self._entries.get(key)
        if entry is not None and entry[0] == revision:
            self._entries.move_to_end(key)
            return cast(T, entry[1])  # a key's answers are all made by its endpoint's `compute`
        return await self._computation(key, revision, lambda conn: (revision, compute(conn)))

    async def refreshed(
        self, key: Hashable, whole: Callable[[Connection], U], changes: Callable[[RevisionProbe, U], U | None]
    ) -> U:
        """The answer for `key`, for an answer that says which data revision it was read at
        (`.revision`) and that a write can bring up to date cheaply. When the kept answer is older
        than the revision, `changes(probe, previous)` runs one statement with `probe.execute`
        that reads the current revision and what changed since previous.revision, on the event
        loop (no thread hop: during a burst of writes this runs after nearly every commit), and
        returns the updated answer, or None when it must be read whole: `whole(conn)`, in a worker
        thread. Kept answers are labelled with the revision they were read at, so one read after
        this request's revision serves it too."""
        revision = self.revision()
        entry = self._entries.get(key)
        if entry is not None:
            # A key of `refreshed` keeps only answers of its `whole` or `changes`, under their revision.
            label, previous = cast(int, entry[0]), cast(U, entry[1])
            if label >= revision:
                self._entries.move_to_end(key)
                return previous
            answer = changes(self.probe, previous)
            if answer is not None:
                self._keep(key, answer.revision, answer)
                return answer

        def read(conn: Connection) -> tuple[int, U]:
            answer = whole(conn)
            return answer.revision, answer

        return await self._computation(key, revision, read)

    async def _computation(
        self, key: Hashable, revision: int | tuple, make: Callable[[Connection], tuple[int | tuple, T]]
    ) -> T:
        """The answer `make` returns with the revision to keep it under, made once however many
        requests of `revision` wait for it."""
        computing = self._computing.get((key, revision))
        if computing is None:
            # A task of its own: it finishes and fills the cache even if the request that started
            # it goes away; shield keeps one waiter's cancellation from cancelling the others'.
            computing = asyncio.ensure_future(run_in_threadpool(self._compute, make))
            self._computing[(key, revision)] = computing
            computing.add_done_callback(functools.partial(self._computed, key, revision))
        return (await asyncio.shield(computing))[1]

    def last(self, key: Hashable) -> object | None:
        """The answer kept for `key` at whatever revision it was computed, if any."""
        entry = self._entries.get(key)
        return None if entry is None else entry[1]

    def _computed(self, key: Hashable, revision: int | tuple, computing: asyncio.Future) -> None:
        del self._computing[(key, revision)]
        if computing.cancelled() or computing.exception() is not None:
            return  # exception() marks it retrieved, whoever awaited it
        self._keep(key, *computing.result())

    def _keep(self, key: Hashable, label: Label, answer: object) -> None:
        """Keep `answer` under `label` unless a newer one is kept already."""
        newer = self._entries.get(key)
        if newer is not None:
            if cast(Label, newer[0]) > label:  # of the same kind as `label` (Label)
                return
            self._bytes -= newer[2]
        weight = _weight(answer)
        self._entries[key] = (label, answer, weight)
        self._entries.move_to_end(key)
        self._bytes += weight
        while len(self._entries) > self._size or (self._bytes > self._max_bytes and len(self._entries) > 1):
            self._bytes -= self._entries.popitem(last=False)[1][2]

    def _compute(self, compute: Callable[[Connection], T]) -> T:
        with connect(self.engine) as conn:
            return compute(conn)


def _weight(answer: object) -> int:
    """About the bytes an answer holds: bodies, rendered text, pages (with their gzip form), and
    the tuples some endpoints keep them in."""
    if isinstance(answer, (bytes, str)):
        return len(answer)
    if isinstance(answer, CachedPage):
        return len(answer.body) + len(answer.gzipped or b"")
    body = getattr(answer, "body", None)
    if isinstance(body, bytes):  # a SummaryAnswer, whose entries weigh as much
        return 2 * len(body)
    if isinstance(answer, (tuple, list)):
        return sum(map(_weight, answer))
    return 0


def answers_of(request) -> AnswerCache:
    return request.app.state.answers
