"""What the group commit's writer thread runs for POST /api/v1/reports.php (web.in_write_batch):
the check step, before the shared transaction takes the writers' lock (the body in the order of
status-api.md 4.3, report_input.py; it writes nothing), and the store step, under the lock, for
the POSTs that arrived together: their clients' count in one statement, then the accepted reports
in one statement. The handler (v1.py) only reads the request and answers.

Checking the bodies before the lock keeps their Python work out of the one span that every
writing transaction of every process waits for: with two processes on PostgreSQL the lock was
held all the time, 7-8 ms a transaction of about 20 POSTs (bench/status_load.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sathub.db.engines import Connection
from sathub.status import rate_limit, times
from sathub.status.api import report_input
from sathub.status.api.responses import ApiError
from sathub.status.store import accounts, visibility, writes
from sathub.status.store import catalog as catalog_store


@dataclass(frozen=True, slots=True)
class Checked:
    """A POST's client, its limit a minute (0: not counted) and its body: accepted, or refused."""

    client: str
    limit: int
    body: report_input.Accepted | ApiError


def check_report(conn: Connection, fields: dict | ApiError, client: str, limit: int) -> Checked:
    """The check step of a POST: its body (4.3), a refusal kept as the outcome's body, since the
    client's count, in the store step, comes first."""
    if isinstance(fields, ApiError):
        return Checked(client, limit, fields)
    try:
        resolve = catalog_store.memoized_resolver(conn, visibility.catalog_revision(conn))
        accepted = report_input.validate_api(fields, conn, times.utc_now(), resolve=resolve)
    except ApiError as refusal:
        return Checked(client, limit, refusal)
    return Checked(client, limit, accepted)


def store_reports(
    conn: Connection, checked: list[Checked]
) -> list[tuple[report_input.Accepted, writes.Stored] | ApiError]:
    """The store step of the POSTs that arrived together, in arrival order: their clients' count
    (kept when a POST is then refused, as submit.php counts refused submissions), then for each a
    429 beyond its limit, else its body's refusal, else its report, stored with the others in one
    statement (db/group_commit.py)."""
    refusals = _refusals(conn, checked)
    accepted = [
        c.body
        for c, refusal in zip(checked, refusals, strict=True)
        if not isinstance(c.body, ApiError) and refusal is None
    ]
    stored = iter(
        zip(accepted, writes.store_submitted(conn, [a.row() for a in accepted]) if accepted else (), strict=True)
    )
    return [next(stored) if refusal is None else refusal for refusal in refusals]


def _refusals(conn: Connection, checked: list[Checked]) -> list[ApiError | None]:
    now = time.time()
    counted = [c.client for c in checked if c.limit > 0]
    start, numbers = accounts.count_in_order(conn, counted, now) if counted else (0, [])
    hits = iter(numbers)
    refusals: list[ApiError | None] = []
    for c in checked:
        verdict = rate_limit.judge(next(hits), c.limit, start, now) if c.limit > 0 else None
        if verdict is not None and not verdict.allowed:
            refusals.append(
                ApiError(
                    429,
                    "rate_limited",
                    f"Too many reports from this address: try again in {verdict.retry_after} seconds.",
                    headers={"Retry-After": str(verdict.retry_after)},
                )
            )
        else:
            refusals.append(c.body if isinstance(c.body, ApiError) else None)
    return refusals
