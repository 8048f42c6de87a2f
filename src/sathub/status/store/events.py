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

from sathub.status.tables import data_revision, report_events, reports, satellites

# The columns status/stream/messages.py reads, in this order (then display_name and visible).
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
# With each event, the catalog's display name of its satellite ("" when not in the catalog), and
# a report event's `visible` as its report has it now, by the report's id (its primary key): the
# value stored with the report in the writing transaction, or that a later recheck gave it, which
# changes the report but records no event (migration 0021). A report since replaced in its slot
# has gone with its id: its old event says null (cannot tell), the replacement's event says what
# the replacement is. Copying the value into the event row instead would have to change the event
# triggers of migrations 0009 and 0012 in both dialects, and a replayed event would then say
# what a recheck has since corrected.
_display_name = sa.func.coalesce(satellites.c.display_name, "").label("display_name")
_with_catalog = report_events.outerjoin(
    satellites, sa.func.lower(satellites.c.api_name) == sa.func.lower(report_events.c.name)
).outerjoin(reports, reports.c.id == report_events.c.report_id)

# With each 'cell' event, the report event that moved the cell (what the status events and the
# status feed name as the report that changed the status): the newest report of the satellite, as
# stored, in the cell's block, that the same write recorded before the cell's row. The triggers
# write a report's event before its cell's (SQLite per row: the id just before; PostgreSQL per
# statement: the reports' events, then the cells'), and one write's events have consecutive ids
# and one stored_at. So a walk down the primary key from the cell's id stops at that report, or
# at the first event of another second (then None: the write stored no report in the cell it made
# current, a late report on a satellite's first event): a walk bounded by one second's events.
# With `stored_at = ` alone SQLite walked that second's index and sorted (1,000 events of a burst
# of one second read in 0.46 s instead of milliseconds).
# Derived when read rather than stored: no migration remakes the triggers of 0009 and 0012 in
# both dialects, and the events' ids stay as they are, gap-free.
_earlier = report_events.alias("earlier")
_cause = report_events.alias("cause")
_cause_report = reports.alias("cause_report")
_newest_cause_or_edge = (
    sa.select(_earlier.c.id)
    .where(
        _earlier.c.id < report_events.c.id,
        sa.or_(
            _earlier.c.stored_at != report_events.c.stored_at,
            sa.and_(
                _earlier.c.kind == "report",
                _earlier.c.name == report_events.c.name,
                _earlier.c.day == report_events.c.day,
                _earlier.c.hour.in_((report_events.c.hour, report_events.c.hour + 1)),
            ),
        ),
    )
    .order_by(_earlier.c.id.desc())
    .limit(1)
    .correlate(report_events)
    .scalar_subquery()
)
_CAUSE_COLUMNS = (
    _cause.c.report_id.label("cause_report_id"),
    _cause.c.day.label("cause_day"),
    _cause.c.hour.label("cause_hour"),
    _cause.c.period.label("cause_period"),
    _cause.c.callsign.label("cause_callsign"),
    _cause.c.report.label("cause_report"),
    _cause.c.grid_square.label("cause_grid_square"),
    _cause_report.c.visible.label("cause_visible"),
)
_with_causes = _with_catalog.outerjoin(
    _cause,
    sa.and_(
        _cause.c.id == sa.case((report_events.c.kind == "cell", _newest_cause_or_edge)),
        _cause.c.stored_at == report_events.c.stored_at,  # the cause, not the edge
    ),
).outerjoin(_cause_report, _cause_report.c.id == _cause.c.report_id)


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
    return _described().where(report_events.c.id > sa.bindparam("after"), report_events.c.id <= sa.bindparam("upto"))


def _described():
    """Events with what is read with them: display name, visible, the cause of a cell event."""
    columns = (*(report_events.c[column] for column in COLUMNS), _display_name, reports.c.visible, *_CAUSE_COLUMNS)
    return sa.select(*columns).select_from(_with_causes)


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


def newest_cell_events(conn: Connection, names: Collection[str], limit: int) -> Sequence[sa.Row]:
    """The newest 'cell' events of satellites (names lower-cased, as events_between takes them),
    newest first, at most `limit`, with the columns of events_between: a satellite's status
    changes among them (notify/changes.py) are its status feed."""
    return conn.execute(_cells(), {"names": list(names), "limit": limit}).all()


@cache
def _cells():
    return (
        _described()
        .where(report_events.c.kind == "cell")
        .where(sa.func.lower(report_events.c.name).in_(sa.bindparam("names", expanding=True)))
        .order_by(report_events.c.id.desc())
        .limit(sa.bindparam("limit"))
    )


def oldest_kept(conn: Connection) -> int | None:
    """The smallest id still kept (None: none kept)."""
    return conn.execute(sa.select(sa.func.min(report_events.c.id))).scalar_one()


def prune(conn: Connection, stored_before: int) -> int:
    """Delete the events stored before a Unix time; how many."""
    return conn.execute(report_events.delete().where(report_events.c.stored_at < stored_before)).rowcount
