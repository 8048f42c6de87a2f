"""Turns at the archive's doors: at most a number of one client address's reads are worked on at
once (SATHUB_ARCHIVE_TURNS); its others wait for a turn, in order, and take no core meanwhile.
Pure (asyncio alone).

A crawler on 64 connections of one address queued 64 answers of about a millisecond each in
front of every other reader's: one process answered a reader's page in 209–354 ms at p99
(docs/archive-crawlers.md). With turns, a reader waits behind the crawler's few answers in work,
not behind all it asked for. The address is the one the server knows the client by: a trusted
proxy's X-Forwarded-For (SATHUB_TRUSTED_PROXIES), else the connection's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Turns:
    """The turns of each client address, `per_client` at once (0: no limit)."""

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self._turns: dict[str, asyncio.Semaphore] = {}
        self._asking: dict[str, int] = {}  # requests holding or waiting for a turn, by address

    @asynccontextmanager
    async def of(self, client: str) -> AsyncIterator[None]:
        """A turn of `client`'s, held while the block runs."""
        if not self.per_client:
            yield
            return
        turns = self._turns.get(client)
        if turns is None:
            turns = self._turns[client] = asyncio.Semaphore(self.per_client)
        self._asking[client] = self._asking.get(client, 0) + 1
        try:
            async with turns:
                yield
        finally:
            self._asking[client] -= 1
            if not self._asking[client]:  # nobody holds or waits: the address is forgotten
                del self._asking[client], self._turns[client]

    def asking(self, client: str) -> int:
        """How many of `client`'s requests hold or wait for a turn."""
        return self._asking.get(client, 0)
