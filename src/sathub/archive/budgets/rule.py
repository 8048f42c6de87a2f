"""The budget rule, pure: a token bucket per client address and budget, kept as the generic cell
rate algorithm keeps one, by one number, the moment the client's bucket is full again (`due`).

A budget of N a minute refills one token every 60/N seconds and holds N: a client may spend a
minute's worth at once, then one every 60/N seconds. A request at `now` is allowed when spending a
token would not push `due` more than a minute ahead of `now`, and then pushes it one interval on
(from `now` when the bucket was full). One number a client, compared and moved in one statement
(store/budgets.py): every process of a deployment spends from the same bucket."""

from __future__ import annotations

import math
from dataclasses import dataclass

MINUTE_MS = 60_000  # the bucket holds a minute's worth of the budget


@dataclass(frozen=True)
class Budget:
    """`per_minute` requests of one kind (`name`) a client address may make; 0: no budget."""

    name: str
    per_minute: int

    @property
    def interval_ms(self) -> int:
        """The time one request costs, by which `due` moves."""
        return math.ceil(MINUTE_MS / self.per_minute)

    def latest_start(self, now_ms: int) -> int:
        """The latest `due` (or `now`, when the bucket is full) from which one more request fits."""
        return now_ms + MINUTE_MS - self.interval_ms

    def retry_after(self, due_ms: int, now_ms: int) -> int:
        """Whole seconds from `now` until a client refused at `due` has a token again (at least 1)."""
        return max(1, math.ceil((due_ms - self.latest_start(now_ms)) / 1000))

    def client_key(self, address: str) -> str:
        """The row of one client address for this budget."""
        return f"{self.name}:{address}"[:128]
