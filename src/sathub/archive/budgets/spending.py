"""The budgets at the doors: every search (the JSON API, the page, the search feed) and every export
(a list's, a search's; not a single message's) spends one request of its client address's budget
before it reads anything, once a conditional GET has been answered 304 (which costs nothing).

The client address is the one web.client_address reads for every per-client limit: the
connection's, or behind SATHUB_TRUSTED_PROXIES the X-Forwarded-For address the proxy vouches for
(uvicorn's proxy headers, set by `sathub serve`), so that one crawler behind a proxy never spends
its other clients' budgets. Beyond the budget: ArchiveError 429 with Retry-After, rendered by the
door it reached (JSON in the read API's shape, an HTML page saying when to come back)."""

from __future__ import annotations

import time

from starlette.requests import Request

from sathub.archive.budgets.rule import Budget
from sathub.archive.edge import ArchiveError
from sathub.archive.store import budgets
from sathub.db.engines import connect
from sathub.web import client_address, engine_of, settings_of

SEARCH, EXPORT = "search", "export"
WHAT = {SEARCH: "searches", EXPORT: "exports"}


def budget_of(request: Request, name: str) -> Budget:
    settings = settings_of(request)
    return Budget(name, settings.search_budget if name == SEARCH else settings.export_budget)


def spend(request: Request, name: str) -> None:
    """Spend one request of the `name` budget (SEARCH or EXPORT) of the request's client, or raise
    ArchiveError 429 with Retry-After. Blocking: called in a worker thread."""
    budget = budget_of(request, name)
    if budget.per_minute <= 0:
        return
    now_ms = int(time.time() * 1000)
    client = budget.client_key(client_address(request))
    with connect(engine_of(request), write=True) as conn:
        due = budgets.spend(conn, client, now_ms, budget.interval_ms, budget.latest_start(now_ms))
    if due is None:
        return
    seconds = budget.retry_after(due, now_ms)
    raise ArchiveError(
        429,
        f"Too many {WHAT[name]} from your address ({budget.per_minute} a minute): "
        f"try again in {seconds} second{'' if seconds == 1 else 's'}.",
        headers={"Retry-After": str(seconds)},
    )
