"""The SQL of the stream's events (migration 0009): the committed watermark, the events after a
position up to it, the oldest one kept, and the pruning of those past the retention.

Why a reader never skips an event: ids come from data_revision.last_event_id, taken under that
row's lock and released only at commit, so ids are gap-free in commit order (see the migration).
A read is bounded by the watermark read first: every id up to it is committed and visible to the
next statement, and nothing above it is delivered, so "the last id delivered" is a complete
position, whatever commits meanwhile."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.status.tables import data_revision, report_events, satellites

# The columns status/stream/messages.py reads, in this order (then display_name).
COLUMNS = (
    "id",
    "kind",
    "action",
    "stored_at",
    "name",
    "report_id",
    "day",
    "hour",
    "period",
    "callsign",
    "report",
    "grid_square",
    "previous_report",
    "heard",
    "telemetry",
    "not_heard",
    "crew",
    "before_day",
    "before_hour",
    "before_heard",
    "before_telemetry",
    "before_not_heard",
    "before_crew",
)
# With each event, the catalog's display name of its satellite ("" when not in the catalog).
_display_name = sa.func.coalesce(satellites.c.display_name, "").label("display_name")
_with_catalog = report_events.outerjoin(
    satellites, sa.func.lower(satellites.c.api_name) == sa.func.lower(report_events.c.name)
)


def watermark(conn: Connection) -> int:
    """The id of the last committed event (0: none yet)."""
    return conn.execute(_WATERMARK).scalar_one()


_WATERMARK = sa.select(data_revision.c.last_event_id).where(data_revision.c.id == 1)


def events_between(
    conn: Connection, after: int, upto: int, names: Collection[str] = (), limit: int = 1000
) -> Sequence[sa.Row]:
    """Events with after < id <= upto, in id order, at most `limit`; with `names` (API names,
    compared case-insensitively as the catalog does) only those satellites'."""
    if names:
        return conn.execute(_named(), {"after": after, "upto": upto, "limit": limit, "names": list(names)}).all()
    return conn.execute(_all(), {"after": after, "upto": upto, "limit": limit}).all()


def _between():
    return (
        sa.select(*(report_events.c[column] for column in COLUMNS), _display_name)
        .select_from(_with_catalog)
        .where(report_events.c.id > sa.bindparam("after"), report_events.c.id <= sa.bindparam("upto"))
    )


@cache
def _all():
    return _between().order_by(report_events.c.id).limit(sa.bindparam("limit"))


@cache
def _named():
    return (
        _between()
        .where(sa.func.lower(report_events.c.name).in_(sa.bindparam("names", expanding=True)))
        .order_by(report_events.c.id)
        .limit(sa.bindparam("limit"))
    )


def oldest_kept(conn: Connection) -> int | None:
    """The smallest id still kept (None: none kept)."""
    return conn.execute(sa.select(sa.func.min(report_events.c.id))).scalar_one()


def prune(conn: Connection, stored_before: int) -> int:
    """Delete the events stored before a Unix time; how many."""
    return conn.execute(report_events.delete().where(report_events.c.stored_at < stored_before)).rowcount
