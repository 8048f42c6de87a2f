"""The SQL that reads reports: the searches and rollups of the API and the windows the pages draw
(what stores them: writes.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.revision_probe import RevisionProbe
from sathub.status.rules import REPORT_VALUES
from sathub.status.store.text import db_text, folded
from sathub.status.tables import data_revision, report_hours, reports, satellites

Window = tuple[date, int]  # first included (day, hour), see times.first_included_hour

_display_name = satellites.c.display_name.label("satellite_display_name")
_with_catalog = reports.outerjoin(satellites, sa.func.lower(satellites.c.api_name) == sa.func.lower(reports.c.name))
_newest_first = (reports.c.day.desc(), reports.c.hour.desc(), reports.c.period.desc(), reports.c.id.desc())


def _in_window(window: Window, table: sa.Table = reports):
    day, hour = window
    return sa.and_(table.c.day >= day, sa.or_(table.c.day > day, table.c.hour >= hour))


def hour_number(dialect_name: str, day, hour):
    """Hours from 2000-01-01 00:00 to (day, hour): an integer that sorts like the pair, for max()
    over both (times.read_form_time_of_hour_number reads it; a text key cost PostgreSQL twice the
    summary's aggregate)."""
    if dialect_name == "postgresql":
        # date - date is an integer in PostgreSQL; typed so, SQLAlchemy does not multiply a Date.
        days: sa.ColumnElement[int] = sa.type_coerce(day - sa.literal_column("DATE '2000-01-01'"), sa.Integer)
    else:
        days = sa.cast(sa.func.julianday(day) - 2451544.5, sa.Integer)  # julianday('2000-01-01')
    return days * 24 + hour


def ping(conn: Connection) -> None:
    conn.execute(sa.text("SELECT 1")).scalar_one()


def search_reports(
    conn: Connection,
    *,
    window: Window,
    limit: int,
    names: tuple[str, ...] = (),
    callsign: str | None = None,
    grid_square: str | None = None,
    report: str | None = None,
) -> Sequence[sa.Row]:
    """`callsign` comes upper-cased (rules.ascii_upper). api.v1.report_read_forms unpacks the rows in
    this column order."""
    query = (
        sa.select(
            reports.c.id,
            reports.c.name,
            _display_name,
            reports.c.day,
            reports.c.hour,
            reports.c.callsign,
            reports.c.report,
            reports.c.grid_square,
            reports.c.period,
        )
        .select_from(_with_catalog)
        .where(_in_window(window))
    )
    if names:
        query = query.where(sa.func.lower(reports.c.name).in_([folded(n) for n in sorted(set(names))]))
    if callsign is not None:
        query = query.where(sa.func.upper(reports.c.callsign) == db_text(callsign))
    if grid_square is not None:
        query = query.where(reports.c.grid_square == grid_square)
    if report is not None:
        query = query.where(reports.c.report == report)
    return conn.execute(query.order_by(*_newest_first).limit(limit)).all()


def sat_info(conn: Connection, name: str, window: Window, limit: int = 100) -> Sequence[sa.Row]:
    """The legacy endpoint's reports: matched on the stored name only, no catalog."""
    query = (
        sa.select(
            reports.c.name, reports.c.day, reports.c.hour, reports.c.callsign, reports.c.report, reports.c.grid_square
        )
        .where(sa.func.lower(reports.c.name) == folded(name), _in_window(window))
        .order_by(*_newest_first)
        .limit(limit)
    )
    return conn.execute(query).all()


@dataclass(frozen=True)
class SummaryRead:
    revision: int  # the data revision the rows were read at (one statement, one snapshot)
    catalog_revision: int
    # (name, report, report_count, latest, and satellite_display_name unless read with `since`): a
    # group read with `since` that no longer has reports in the window has report_count 0 and latest None.
    groups: list[sa.Row]


def summary(conn: Connection, window: Window) -> SummaryRead:
    """One row per (stored name, report value) in the window, with count and newest hour number,
    in summary.php's order, and the revisions they were read at (one statement, one snapshot).
    Sums the hourly counts of report_hours (a few rows per hour, not one per report), then joins
    the catalog, so the join touches one row per group."""
    return _summary_read(conn.execute(_summary_query(conn.dialect.name, False), _window_parameters(window)).all())


def summary_changes(probe: RevisionProbe, window: Window, since: int) -> SummaryRead:
    """summary's groups that have an hourly count of the window changed after data revision
    `since` (stamped by migration 0007), those now at 0 included, read on the revision probe's
    connection (AnswerCache.refreshed: it stands in for the probe)."""
    statement = _summary_query(probe.engine.dialect.name, True)
    return _summary_read(probe.execute(statement, {**_window_parameters(window), "since": since}))


def _window_parameters(window: Window) -> dict:
    day, hour = window
    return {"day": day, "hour": hour}


def _summary_read(rows: Sequence[sa.Row]) -> SummaryRead:
    return SummaryRead(
        revision=rows[0].revision,
        catalog_revision=rows[0].catalog_revision,
        groups=[row for row in rows if row.name is not None],
    )


@cache
def _summary_query(dialect_name: str, changed_only: bool) -> sa.Select:
    """summary's statement, built once per dialect (building it cost more than running it)."""
    hours = report_hours
    in_window = sa.tuple_(hours.c.day, hours.c.hour) >= sa.tuple_(
        sa.bindparam("day", type_=sa.Date), sa.bindparam("hour", type_=sa.SmallInteger)
    )
    newest_hour = hour_number(dialect_name, hours.c.day, hours.c.hour)
    grouping: list[sa.ColumnClause[Any]] = [hours.c.name, hours.c.report]
    if dialect_name == "sqlite" and not changed_only:
        # Unary +: SQLite would otherwise walk all of ix_report_hours_group to group without
        # sorting, instead of the window's range of the primary key (10 vs 3.5 ms at 1M reports).
        grouping = [sa.literal_column(f"+report_hours.{column.name}") for column in grouping]
    counts = (
        sa.select(
            hours.c.name,
            hours.c.report,
            sa.func.sum(hours.c.report_count).label("report_count"),
            sa.func.max(sa.case((hours.c.report_count > 0, newest_hour))).label("latest"),
        )
        .where(in_window)
        .group_by(*grouping)
    )
    if changed_only:
        # IN, not a join with DISTINCT: SQLite then finds them through the revision index.
        changed = sa.select(hours.c.name, hours.c.report).where(hours.c.revision > sa.bindparam("since"), in_window)
        counts = counts.where(sa.tuple_(hours.c.name, hours.c.report).in_(changed))
    else:
        counts = counts.having(sa.func.sum(hours.c.report_count) > 0)
    groups = counts.subquery()
    columns = [
        data_revision.c.revision,
        data_revision.c.catalog_revision,
        groups.c.name,
        groups.c.report,
        sa.cast(groups.c.report_count, sa.Integer).label("report_count"),
        groups.c.latest,
    ]
    # From the revision row, so that an empty window still reads the revision in the same statement.
    rows = data_revision.outerjoin(groups, sa.true())
    if changed_only:
        # Neither the catalog nor an order: the answer being updated has the display names of its
        # names and orders its groups itself (summary_answer.py).
        return sa.select(*columns).select_from(rows).where(data_revision.c.id == 1)
    rank = sa.case({value: i for i, value in enumerate(REPORT_VALUES)}, value=groups.c.report, else_=len(REPORT_VALUES))
    return (
        sa.select(*columns, _display_name)
        .select_from(rows.outerjoin(satellites, sa.func.lower(satellites.c.api_name) == sa.func.lower(groups.c.name)))
        .where(data_revision.c.id == 1)
        .order_by(sa.func.lower(groups.c.name), groups.c.name, groups.c.report_count.desc(), rank)
    )


# --- the pages' reads ---

REPORT_COLUMNS = (
    reports.c.id,
    reports.c.name,
    reports.c.day,
    reports.c.hour,
    reports.c.period,
    reports.c.callsign,
    reports.c.report,
    reports.c.grid_square,
)


# A report whose satellite was below its grid square's horizon (docs/orbits.md), written as the
# partial index reports_implausible states it, so that the planners read that index for it.
IMPLAUSIBLE = reports.c.visible == sa.false()


def grid_window(
    conn: Connection, first_day: date, last_day: date, *, exclude_implausible: bool = False
) -> Sequence[sa.Row]:
    """Every report of the grid's days, most recently stored first: the status page's one query
    (a range scan of the reports_time index); with `exclude_implausible`, without those whose
    `visible` is false (SATHUB_STATUS_IMPLAUSIBLE=exclude). pages/report_grid.Report unpacks rows in
    this column order."""
    query = (
        sa.select(*REPORT_COLUMNS)
        .where(reports.c.day >= first_day, reports.c.day <= last_day)
        .order_by(reports.c.id.desc())
    )
    if exclude_implausible:
        query = query.where(reports.c.visible.is_not(sa.false()))
    return conn.execute(query).all()


def stored_name(conn: Connection, name: str) -> str | None:
    """The name as stored on some report (for names no longer in the catalog)."""
    query = sa.select(reports.c.name).where(sa.func.lower(reports.c.name) == folded(name)).limit(1)
    return conn.execute(query).scalar()


def hourly_counts(
    conn: Connection, first_day: date, last_day: date, *, exclude_implausible: bool = False
) -> Sequence[Any]:
    """(day, hour, name, report, report_count) of every hour with reports from first_day to
    last_day: the hourly counts the triggers keep (migrations 0004, 0007), one range of their
    primary key, a few rows per hour however many reports it holds (/api/v2/status).

    With `exclude_implausible`, less the reports whose `visible` is false, counted by a second
    statement from the partial index that holds them alone (reports_implausible): no trigger on
    the write path, and only the window's few implausible reports read beside the counts. Their
    counts are taken off here: 16.8 ms of CPU against 12.6 without them (13,805 counts, 1 % of
    500,000 reports implausible, SQLite), where joining them to the counts took 20.6 and summing a
    UNION ALL of both 27.1."""
    hours = report_hours
    counts = sa.select(hours.c.day, hours.c.hour, hours.c.name, hours.c.report, hours.c.report_count).where(
        hours.c.day >= first_day, hours.c.day <= last_day, hours.c.report_count > 0
    )
    rows = conn.execute(counts).all()
    if not exclude_implausible:
        return rows
    grouped = (reports.c.day, reports.c.hour, reports.c.name, reports.c.report)
    implausible = (
        sa.select(*grouped, sa.func.count())
        .where(IMPLAUSIBLE, reports.c.day >= first_day, reports.c.day <= last_day)
        .group_by(*grouped)
    )
    less = {(day, hour, name, report): count for day, hour, name, report, count in conn.execute(implausible)}
    if not less:
        return rows
    kept: list[Any] = []
    for row in rows:
        taken = less.get((row[0], row[1], row[2], row[3]))
        if taken is None:
            kept.append(row)
        elif row[4] > taken:
            kept.append((row[0], row[1], row[2], row[3], row[4] - taken))
    return kept


def history(conn: Connection, name: str, first_day: date) -> Sequence[sa.Row]:
    """Report counts per (day, hour, value) of one satellite since first_day, summed from the
    hourly counts (report_hours) instead of counting the reports themselves."""
    hours = report_hours
    query = (
        sa.select(
            hours.c.day,
            hours.c.hour,
            hours.c.report,
            sa.cast(sa.func.sum(hours.c.report_count), sa.Integer).label("count"),
        )
        .where(hours.c.day >= first_day, sa.func.lower(hours.c.name) == folded(name), hours.c.report_count > 0)
        .group_by(hours.c.day, hours.c.hour, hours.c.report)
    )
    return conn.execute(query).all()


def recent_reports(conn: Connection, name: str, limit: int) -> Sequence[sa.Row]:
    """One satellite's newest reports (day, hour, quarter, then id, newest first), with `visible`."""
    query = (
        sa.select(*REPORT_COLUMNS, reports.c.visible)
        .where(sa.func.lower(reports.c.name) == folded(name))
        .order_by(*_newest_first)
        .limit(limit)
    )
    return conn.execute(query).all()


def report_count(conn: Connection, name: str) -> int:
    """How many reports are stored under a name: whether deleting its catalog entry needs a
    confirmation."""
    query = sa.select(sa.func.count()).select_from(reports).where(sa.func.lower(reports.c.name) == folded(name))
    return conn.execute(query).scalar_one()
