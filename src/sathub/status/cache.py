"""Rendered answers kept per process while the data revision they were computed at is current.

The revision lives in the database and triggers bump it on every write (migration 0001), so an
answer is never served stale, whichever process or path wrote, and each request still reads
the revision first (one statement)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

from sathub.status.store import data_revision

T = TypeVar("T")


class RevisionCache:
    def __init__(self, size: int = 1024):
        self._size = size
        self._entries: OrderedDict[Hashable, tuple[int, object]] = OrderedDict()

    def get_or_compute(self, key: Hashable, revision: int, compute: Callable[[], T]) -> T:
        entry = self._entries.get(key)
        if entry is not None and entry[0] == revision:
            self._entries.move_to_end(key)
            return entry[1]
        value = compute()
        self._entries[key] = (revision, value)
        self._entries.move_to_end(key)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return value


def cached(request, conn, key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()`'s value for `key`, reused while the database's data revision is unchanged."""
    return request.app.state.answer_cache.get_or_compute(key, data_revision(conn), compute)
