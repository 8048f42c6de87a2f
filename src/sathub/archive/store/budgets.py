"""The SQL of the costly doors' budgets (archive/budgets/): each client's bucket, as the moment it
is full again (`due`, Unix milliseconds), spent from in one atomic upsert shared by every process."""

from __future__ import annotations

from functools import cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.archive.tables import archive_budgets
from sathub.db.dialect import insert_for

QUIET_MS = 3_600_000  # rows whose bucket has been full this long are dropped


def spend(conn: Connection, client: str, now_ms: int, interval_ms: int, latest_start_ms: int) -> int | None:
    """Spend one request of `client` at `now_ms` when its bucket's `due` (or `now_ms`, when it is
    full) is at most `latest_start_ms`, moving `due` on by `interval_ms`: None. Else nothing is
    spent and the `due` that refused it is returned. The check and the move are one statement
    (INSERT … ON CONFLICT DO UPDATE … WHERE): two processes never both spend the last token."""
    params = {"client": client, "now": now_ms, "interval": interval_ms, "latest": latest_start_ms}
    spent = conn.execute(_spend(conn.dialect.name), params).scalar_one_or_none()
    if spent is None:
        return conn.execute(sa.select(archive_budgets.c.due).where(archive_budgets.c.client == client)).scalar_one()
    if spent == now_ms + interval_ms:
        # A client whose bucket was full (or new): drop the rows of clients quiet for an hour.
        conn.execute(archive_budgets.delete().where(archive_budgets.c.due < now_ms - QUIET_MS))
    return None


@cache
def _spend(dialect_name: str):
    """Built once per dialect: every search and export spends with it."""
    now = sa.bindparam("now", type_=sa.BigInteger)
    interval = sa.bindparam("interval", type_=sa.BigInteger)
    start = sa.case((archive_budgets.c.due > now, archive_budgets.c.due), else_=now)
    statement = insert_for(dialect_name)(archive_budgets).values(client=sa.bindparam("client"), due=now + interval)
    return statement.on_conflict_do_update(
        index_elements=[archive_budgets.c.client],
        set_={"due": start + interval},
        where=start <= sa.bindparam("latest", type_=sa.BigInteger),
    ).returning(archive_budgets.c.due)
