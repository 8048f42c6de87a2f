"""What the group commit's writer thread runs for POST /api/v1/reports.php (web.in_write_batch):
the check step, in the shared write transaction (the client's count, then the body in the order
of status-api.md 4.3, report_input.py), and the store step, one statement for the reports that
arrived together. The handler (v1.py) only reads the request and answers."""

from __future__ import annotations

import time

from sathub.db.engines import Connection
from sathub.status import rate_limit, times
from sathub.status.api import report_input
from sathub.status.api.responses import ApiError
from sathub.status.store import accounts, writes
from sathub.status.store import catalog as catalog_store


def check_report(conn: Connection, fields: dict | ApiError, client: str, limit: int) -> report_input.Accepted:
    """The check step of a POST: its client's count first (kept when the POST is then refused, as
    submit.php counts refused submissions; 0: no limit), then the body (4.3)."""
    if limit > 0:
        count_post(conn, client, limit)
    if isinstance(fields, ApiError):
        raise fields
    return report_input.validate_api(fields, conn, times.utc_now(), resolve=catalog_store.memoized_resolver())


def count_post(conn: Connection, client: str, limit: int) -> None:
    """Count one POST of `client` in its minute, in the database (every process shares the
    count); 429 beyond `limit`."""
    now = time.time()
    start, hit = accounts.count_under_writers_lock(conn, client, now, _counted_client)
    verdict = rate_limit.judge(hit, limit, start, now)
    if not verdict.allowed:
        raise ApiError(
            429,
            "rate_limited",
            f"Too many reports from this address: try again in {verdict.retry_after} seconds.",
            headers={"Retry-After": str(verdict.retry_after)},
        )


def _counted_client(args: tuple) -> str | None:
    """The client a write checked alongside counts (check_report's arguments), None when uncounted."""
    _, client, limit = args
    return client if limit > 0 else None


def store_reports(
    conn: Connection, accepted: list[report_input.Accepted]
) -> list[tuple[report_input.Accepted, writes.Stored]]:
    """The reports that arrived together, in one statement (db/group_commit.py)."""
    return list(zip(accepted, writes.store_submitted(conn, [a.row() for a in accepted]), strict=True))
