"""The exports running in one process, and one client address's share of them.

At most `max_exports` run at once (SATHUB_MAX_EXPORTS), and one client address holds at most half
of them, rounded up (2 of the default 4; the one slot when there is one): a client that opens
exports and stops reading them leaves the others room, and loses each after
SATHUB_EXPORT_WRITE_TIMEOUT seconds (sending.py). The address is the request's client, the one a
trusted proxy forwards (SATHUB_TRUSTED_PROXIES)."""

from __future__ import annotations

FULL = "Too many exports are running; try again in a few seconds."
SHARE_TAKEN = "You are running as many exports as one client may; try again when one of them ends."


def share_of(limit: int) -> int:
    """The slots one client address may hold of `limit`: half, rounded up."""
    return (limit + 1) // 2


class Slots:
    """The exports running in this process, in all and per client address (one event loop: no
    lock needed)."""

    def __init__(self) -> None:
        self.running = 0
        self.held: dict[str, int] = {}

    def take(self, client: str, limit: int) -> str | None:
        """Take a slot for `client`: None when taken, else why not (the 503's words)."""
        if self.running >= limit:
            return FULL
        held = self.held.get(client, 0)
        if held >= share_of(limit):
            return SHARE_TAKEN
        self.running += 1
        self.held[client] = held + 1
        return None

    def give_back(self, client: str) -> None:
        self.running -= 1
        held = self.held[client] - 1
        if held:
            self.held[client] = held
        else:
            del self.held[client]


SLOTS = Slots()
