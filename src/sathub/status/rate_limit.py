"""The abuse limits (submit.php, the API's POST, admin logins): a fixed one-minute window per
client address, counted in the rate_limits table so that every process of a deployment shares it
(store/accounts.py count_and_judge)."""

from __future__ import annotations

from dataclasses import dataclass

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: int  # seconds until the window resets; 0 when allowed


def window_start(now: float) -> int:
    return int(now) // WINDOW_SECONDS * WINDOW_SECONDS


def judge(hits: int, limit: int, start: int, now: float) -> Verdict:
    """`hits` includes the current request; a limit of 0 means no limit."""
    if limit <= 0 or hits <= limit:
        return Verdict(True, 0)
    return Verdict(False, max(1, start + WINDOW_SECONDS - int(now)))


def client_key(purpose: str, address: str) -> str:
    """The rate_limits row of one client for one purpose (form submissions, admin logins)."""
    return f"{purpose}:{address}"[:128]
