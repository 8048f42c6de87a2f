"""The SQL of webhooks (migration 0020): the hooks an admin registered, the lease by which one
process at a time delivers each, its position in the event log, its run of failures, and the log
of its last attempts.

Why a conditional UPDATE for the lease: the claim and every later write of a deliverer name the
owner, so on both backends (PostgreSQL re-checks the WHERE of an UPDATE that waited for a row's
lock; SQLite has one writer at a time) exactly one process holds a hook at a time, and a process
that lost its lease (it stalled past `lease_until`) can neither move the position nor record an
outcome: what it was sending is sent again by the new holder, never skipped."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.dialect import MAX_INTEGER
from sathub.status.notify.webhook_rules import EVENTS
from sathub.status.store.catalog import resolve_api_name
from sathub.status.store.events import watermark
from sathub.status.tables import webhook_deliveries, webhooks


@dataclass(frozen=True)
class Webhook:
    id: int
    url: str
    secret: str
    events: frozenset[str]
    names: frozenset[str]  # lower-cased API names; empty: every satellite
    created_at: int
    enabled: bool
    disabled_reason: str | None
    position: int
    failures: int
    failing_since: float | None
    next_attempt: float
    lease_owner: str | None
    lease_until: float


@dataclass(frozen=True)
class Attempt:
    """One POST of an event to a hook, as the log keeps it."""

    delivery_id: str
    event_id: int
    attempted_at: float
    duration_ms: float
    status_code: int | None
    error: str | None


def _webhook(row: sa.Row) -> Webhook:
    values = dict(row._mapping)
    values["events"] = frozenset(filter(None, values["events"].split(",")))
    values["names"] = frozenset(filter(None, values["names"].split(",")))
    values["enabled"] = bool(values["enabled"])
    return Webhook(**values)


def _id_is(webhook_id: int):
    """The hook of an id; none for an id beyond the column's 32 bits (PostgreSQL would refuse the
    parameter: a 500 where an id it can hold just finds nothing)."""
    return webhooks.c.id == webhook_id if -MAX_INTEGER - 1 <= webhook_id <= MAX_INTEGER else sa.false()


def unknown_names(conn: Connection, names: Collection[str]) -> list[str]:
    """The names among `names` that are no satellite's API name (compared as the catalog does)."""
    return [name for name in names if resolve_api_name(conn, name, display_names=False) is None]


def add_webhook(conn: Connection, url: str, secret: str, events: Collection[str], names: Collection[str]) -> int:
    """A new hook, delivering the events committed from now on; its id. Its names are API names
    (checked by unknown_names), kept lower-cased as the stream's filters compare them."""
    row = {
        "url": url,
        "secret": secret,
        "events": ",".join(event for event in EVENTS if event in events),
        "names": ",".join(sorted({name.lower() for name in names})),
        "created_at": int(time.time()),
        "position": watermark(conn),
    }
    return conn.execute(webhooks.insert().returning(webhooks.c.id), row).scalar_one()


def all_webhooks(conn: Connection) -> list[Webhook]:
    return [_webhook(row) for row in conn.execute(sa.select(webhooks).order_by(webhooks.c.id))]


def webhook(conn: Connection, webhook_id: int) -> Webhook | None:
    row = conn.execute(sa.select(webhooks).where(_id_is(webhook_id))).first()
    return _webhook(row) if row else None


def remove_webhook(conn: Connection, webhook_id: int) -> bool:
    """Delete a hook and its log (ON DELETE CASCADE); whether it existed."""
    return conn.execute(webhooks.delete().where(_id_is(webhook_id))).rowcount == 1


def set_enabled(conn: Connection, webhook_id: int, enabled: bool) -> bool:
    """Enable a hook (its run of failures forgotten: the next attempt is now, from where it
    stopped) or disable it; whether it exists."""
    values: dict = {"enabled": enabled, "disabled_reason": None if enabled else "disabled by an administrator"}
    if enabled:
        values |= {"failures": 0, "failing_since": None, "next_attempt": 0}
    return conn.execute(webhooks.update().where(_id_is(webhook_id)).values(**values)).rowcount == 1


def claim(conn: Connection, owner: str, now: float, until: float) -> list[Webhook]:
    """Take the lease of every enabled hook nobody holds (or whose holder let it lapse), and
    renew those `owner` holds; the hooks `owner` holds now."""
    free = sa.or_(webhooks.c.lease_owner.is_(None), webhooks.c.lease_until < now, webhooks.c.lease_owner == owner)
    statement = (
        webhooks.update()
        .where(webhooks.c.enabled, free)
        .values(lease_owner=owner, lease_until=until)
        .returning(*webhooks.c)
    )
    return sorted((_webhook(row) for row in conn.execute(statement)), key=lambda hook: hook.id)


def release(conn: Connection, owner: str) -> None:
    """Give back every lease `owner` holds (a process that stops)."""
    conn.execute(webhooks.update().where(webhooks.c.lease_owner == owner).values(lease_owner=None, lease_until=0))


def _held(webhook_id: int, owner: str, now: float):
    return webhooks.update().where(
        webhooks.c.id == webhook_id, webhooks.c.enabled, webhooks.c.lease_owner == owner, webhooks.c.lease_until >= now
    )


def renew(conn: Connection, webhook_id: int, owner: str, now: float, until: float) -> bool:
    """Extend a lease `owner` still holds; whether it does."""
    return conn.execute(_held(webhook_id, owner, now).values(lease_until=until)).rowcount == 1


def advance(conn: Connection, webhook_id: int, owner: str, now: float, until: float, position: int) -> bool:
    """Move the hook's position past events it does not want; whether `owner` still holds it."""
    statement = _held(webhook_id, owner, now).where(webhooks.c.position < position)
    return conn.execute(statement.values(position=position, lease_until=until)).rowcount == 1


def record_attempt(
    conn: Connection,
    webhook_id: int,
    owner: str,
    now: float,
    until: float,
    attempt: Attempt,
    *,
    delivered: bool,
    next_attempt: float = 0,
    disabled_reason: str | None = None,
    trim_to: int | None = None,
) -> bool:
    """An attempt's outcome, while `owner` still holds the hook: delivered, the position moves to
    its event and the run of failures ends; failed, the run grows and the next attempt waits
    (or the hook is disabled, with the reason). The attempt goes into the log; with `trim_to`,
    the log keeps only the hook's last so many (a DELETE each time was a third of a delivery's
    writes: its caller trims now and then). Whether `owner` still held the hook (nothing is
    written otherwise)."""
    if delivered:
        values: dict = {"position": attempt.event_id, "failures": 0, "failing_since": None, "next_attempt": 0}
    else:
        values = {
            "failures": webhooks.c.failures + 1,
            "failing_since": sa.func.coalesce(webhooks.c.failing_since, attempt.attempted_at),
            "next_attempt": next_attempt,
        }
        if disabled_reason is not None:
            values |= {"enabled": False, "disabled_reason": disabled_reason, "lease_owner": None}
    if conn.execute(_held(webhook_id, owner, now).values(lease_until=until, **values)).rowcount != 1:
        return False
    conn.execute(webhook_deliveries.insert(), {"webhook_id": webhook_id, **vars(attempt)})
    if trim_to is None:
        return True
    oldest_kept = (
        sa.select(webhook_deliveries.c.id)
        .where(webhook_deliveries.c.webhook_id == webhook_id)
        .order_by(webhook_deliveries.c.id.desc())
        .limit(1)
        .offset(trim_to - 1)
        .scalar_subquery()
    )
    conn.execute(
        webhook_deliveries.delete().where(
            webhook_deliveries.c.webhook_id == webhook_id, webhook_deliveries.c.id < oldest_kept
        )
    )
    return True


def recent_attempts(conn: Connection, webhook_ids: Collection[int], limit: int) -> dict[int, list[Attempt]]:
    """The last `limit` attempts of each hook, newest first."""
    ranked = (
        sa.select(
            webhook_deliveries,
            sa.func.row_number()
            .over(partition_by=webhook_deliveries.c.webhook_id, order_by=webhook_deliveries.c.id.desc())
            .label("rank"),
        )
        .where(webhook_deliveries.c.webhook_id.in_(list(webhook_ids)))
        .subquery()
    )
    rows = conn.execute(
        sa.select(ranked).where(ranked.c.rank <= limit).order_by(ranked.c.webhook_id, ranked.c.id.desc())
    )
    found: dict[int, list[Attempt]] = {webhook_id: [] for webhook_id in webhook_ids}
    columns = ("delivery_id", "event_id", "attempted_at", "duration_ms", "status_code", "error")
    for row in rows:
        found[row.webhook_id].append(Attempt(*(getattr(row, column) for column in columns)))
    return found
