"""Turns at the archive's doors: at most a number of one client address's reads are worked on at
once (SATHUB_ARCHIVE_TURNS); its others wait for a turn, in order, and take no core meanwhile.
Pure (asyncio alone).

A crawler on 64 connections of one address queued 64 answers of about a millisecond each in
front of every other reader's: one process answered a reader's page in 209–354 ms at p99
(docs/archive-crawlers.md). With turns, a reader waits behind the crawler's few answers in work,
not behind all it asked for. The address is the one the server knows the client by: a trusted
proxy's X-Forwarded-For (SATHUB_TRUSTED_PROXIES), else the connection's.

An address alone holds all its turns; beside another address that asks, each holds half of them
(at least one), so that a reader's answer shares the process's interpreter with fewer of the
crawler's (docs/archive-crawlers.md, "Turns")."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Turns:
    """The turns of each client address, `per_client` at once (0: no limit)."""

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self._working: dict[str, int] = {}  # turns held, by address
        self._waiting: dict[str, deque[asyncio.Future]] = {}  # by address, in the order they came

    @asynccontextmanager
    async def of(self, client: str) -> AsyncIterator[None]:
        """A turn of `client`'s, held while the block runs."""
        if not self.per_client:
            yield
            return
        await self._take(client)
        try:
            yield
        finally:
            self._give_back(client)

    def asking(self, client: str) -> int:
        """How many of `client`'s requests hold or wait for a turn."""
        return self._working.get(client, 0) + len(self._waiting.get(client, ()))

    async def _take(self, client: str) -> None:
        self._working.setdefault(client, 0)
        queue = self._waiting.setdefault(client, deque())
        if not queue and self._working[client] < self._share():
            self._working[client] += 1
            return
        turn = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._give_back(client)  # given just as its request was cancelled: passed on
            else:
                if turn in queue:  # not yet passed over by _pass_on
                    queue.remove(turn)
                self._forget_if_idle(client)
            raise

    def _give_back(self, client: str) -> None:
        self._working[client] -= 1
        self._forget_if_idle(client)
        self._pass_on()

    def _pass_on(self) -> None:
        """Give waiting requests the turns their addresses' shares allow, each address in turn."""
        given = True
        while given:
            given = False
            share = self._share()
            for client, queue in self._waiting.items():
                while queue and queue[0].cancelled():  # its request went away while it waited
                    queue.popleft()
                if queue and self._working[client] < share:
                    self._working[client] += 1
                    queue.popleft().set_result(None)
                    given = True

    def _share(self) -> int:
        """The turns an address may hold: all alone, half beside another (at least one)."""
        return self.per_client if len(self._working) <= 1 else max(1, self.per_client // 2)

    def _forget_if_idle(self, client: str) -> None:
        if not self._working.get(client) and not self._waiting.get(client):
            self._working.pop(client, None)
            self._waiting.pop(client, None)
