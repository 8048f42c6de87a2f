"""The SQL of reports: storing submissions (each replacing its slot's earlier report atomically)
and imports, the searches and rollups of the API, and the windows the pages draw. Kept with them: report_totals
(per-name counts for catalog statistics), written in the same transaction as each new report."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.dialect import as_given, insert_for, insert_given, new_id
from sathub.status.revision import RevisionProbe
from sathub.status.rules import REPORT_VALUES
from sathub.status.store.text import db_text, folded
from sathub.status.tables import data_revision, report_hours, report_totals, reports, satellites

Window = tuple[date, int]  # first included (day, hour), see times.first_included_hour

_display_name = satellites.c.display_name.label("satellite_display_name")
_with_catalog = reports.outerjoin(satellites, sa.func.lower(satellites.c.api_name) == sa.func.lower(reports.c.name))
_name_key = sa.func.lower(reports.c.name).label("name_key")
# The unique slot index of migration 0001: one report per satellite, day, hour, quarter and callsign.
_slot = (sa.func.lower(reports.c.name), reports.c.day, reports.c.hour, reports.c.period,
         sa.func.upper(reports.c.callsign))
_newest_first = (reports.c.day.desc(), reports.c.hour.desc(), reports.c.period.desc(), reports.c.id.desc())


def _in_window(window: Window, table: sa.Table = reports):
    day, hour = window
    return sa.and_(table.c.day >= day, sa.or_(table.c.day > day, table.c.hour >= hour))


def _hour_number(dialect_name: str, day, hour):
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


@dataclass(frozen=True)
class Stored:
    id: int
    replaced_count: int


def insert_or_replace_report(conn: Connection, *, name: str, day: date, hour: int, period: int,
                             callsign: str, report: str, grid_square: str | None) -> Stored:
    """store_submitted for one report. Production no longer calls it: kept for the test seeds and
    benchmarks that still do (tests/status/seed.py, bench/status_burst.py, ...)."""
    return store_submitted(conn, [dict(name=name, day=day, hour=hour, period=period, callsign=callsign,
                                       report=report, grid_square=grid_square)])[0]


def store_submitted(conn: Connection, rows: list[dict]) -> list[Stored]:
    """Store submitted reports (the API's and the form's, those of a group commit together), one
    result each: each in its slot (name, day, hour, period, callsign), replacing the slot's earlier
    report in the same statement; the unique slot index makes this hold across processes. A
    replacement gets a new id, as upstream's delete-then-insert did.

    One statement per run of distinct slots, since a statement may not touch a row twice, so a
    later report of a slot still replaces an earlier one, in arrival order. One statement instead
    of one per report: on PostgreSQL each statement also runs the statement triggers."""
    params = [{**row, "callsign": db_text(row["callsign"]), "replaced_report": None} for row in rows]
    return [stored for run in _runs_of_distinct_slots(params)
            for stored in _one_statement_or_one_each(conn, run, lambda rows: _store_run(conn, rows))]


# PostgreSQL's "ON CONFLICT DO UPDATE command cannot affect row a second time".
_CARDINALITY_VIOLATION = "21000"


def _runs_of_distinct_slots(rows: list[dict]) -> list[list[dict]]:
    runs: list[list[dict]] = [[]]
    seen: set[tuple] = set()
    for row in rows:
        slot = (row["name"].lower(), row["day"], row["hour"], row["period"], row["callsign"].upper())
        if slot in seen:
            runs.append([])
            seen.clear()
        seen.add(slot)
        runs[-1].append(row)
    return [run for run in runs if run]


def _store_run(conn: Connection, run: list[dict]) -> list[Stored]:
    """One statement for reports of distinct slots; its rows come back in no set order, so they
    are matched to the reports by the values they were given (a replacement takes them all)."""
    written = {(row.name, row.day, row.hour, row.period, row.callsign): row
               for row in conn.execute(_submission_upsert(conn.dialect.name), as_given(conn, run, _GIVEN))}
    results = [written[(row["name"], row["day"], row["hour"], row["period"], row["callsign"])] for row in run]
    _add_to_totals(conn, [(row.name_key, row.day, row.hour) for row in results if row.replaced_report is None])
    return [Stored(id=row.id, replaced_count=0 if row.replaced_report is None else 1) for row in results]


# The columns of a report a write gives (insert_given).
_GIVEN = ("name", "day", "hour", "period", "callsign", "report", "grid_square")


@cache
def _submission_upsert(dialect_name: str):
    """Built once per dialect: every write of the API and the form runs it, and building and
    compiling it again cost more than executing it."""
    statement = insert_given(dialect_name, reports, _GIVEN)
    return statement.on_conflict_do_update(
        index_elements=_slot,
        set_={"id": new_id(dialect_name, reports, per_row=True), "name": statement.excluded.name,
              "callsign": statement.excluded.callsign, "report": statement.excluded.report,
              "grid_square": statement.excluded.grid_square, "replaced_report": reports.c.report},
    ).returning(reports.c.id, reports.c.replaced_report, _name_key, reports.c.name, reports.c.day, reports.c.hour,
                reports.c.period, reports.c.callsign)


def search_reports(conn: Connection, *, window: Window, limit: int, names: tuple[str, ...] = (),
                   callsign: str | None = None, grid_square: str | None = None,
                   report: str | None = None) -> Sequence[sa.Row]:
    """`callsign` comes upper-cased (rules.ascii_upper). api.v1.report_read_forms unpacks the rows in
    this column order."""
    query = (sa.select(reports.c.id, reports.c.name, _display_name, reports.c.day, reports.c.hour,
                       reports.c.callsign, reports.c.report, reports.c.grid_square, reports.c.period)
             .select_from(_with_catalog).where(_in_window(window)))
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
    query = (sa.select(reports.c.name, reports.c.day, reports.c.hour, reports.c.callsign, reports.c.report,
                       reports.c.grid_square)
             .where(sa.func.lower(reports.c.name) == folded(name), _in_window(window))
             .order_by(*_newest_first).limit(limit))
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
    return SummaryRead(revision=rows[0].revision, catalog_revision=rows[0].catalog_revision,
                       groups=[row for row in rows if row.name is not None])


@cache
def _summary_query(dialect_name: str, changed_only: bool) -> sa.Select:
    """summary's statement, built once per dialect (building it cost more than running it)."""
    hours = report_hours
    in_window = (sa.tuple_(hours.c.day, hours.c.hour)
                 >= sa.tuple_(sa.bindparam("day", type_=sa.Date), sa.bindparam("hour", type_=sa.SmallInteger)))
    hour_number = _hour_number(dialect_name, hours.c.day, hours.c.hour)
    grouping: list[sa.ColumnClause[Any]] = [hours.c.name, hours.c.report]
    if dialect_name == "sqlite" and not changed_only:
        # Unary +: SQLite would otherwise walk all of ix_report_hours_group to group without
        # sorting, instead of the window's range of the primary key (10 vs 3.5 ms at 1M reports).
        grouping = [sa.literal_column(f"+report_hours.{column.name}") for column in grouping]
    counts = (sa.select(hours.c.name, hours.c.report, sa.func.sum(hours.c.report_count).label("report_count"),
                        sa.func.max(sa.case((hours.c.report_count > 0, hour_number))).label("latest"))
              .where(in_window).group_by(*grouping))
    if changed_only:
        # IN, not a join with DISTINCT: SQLite then finds them through the revision index.
        changed = sa.select(hours.c.name, hours.c.report).where(hours.c.revision > sa.bindparam("since"), in_window)
        counts = counts.where(sa.tuple_(hours.c.name, hours.c.report).in_(changed))
    else:
        counts = counts.having(sa.func.sum(hours.c.report_count) > 0)
    groups = counts.subquery()
    columns = [data_revision.c.revision, data_revision.c.catalog_revision, groups.c.name, groups.c.report,
               sa.cast(groups.c.report_count, sa.Integer).label("report_count"), groups.c.latest]
    # From the revision row, so that an empty window still reads the revision in the same statement.
    rows = data_revision.outerjoin(groups, sa.true())
    if changed_only:
        # Neither the catalog nor an order: the answer being updated has the display names of its
        # names and orders its groups itself (summary_answer.py).
        return sa.select(*columns).select_from(rows).where(data_revision.c.id == 1)
    rank = sa.case({value: i for i, value in enumerate(REPORT_VALUES)}, value=groups.c.report,
                   else_=len(REPORT_VALUES))
    return (sa.select(*columns, _display_name)
            .select_from(rows.outerjoin(satellites,
                                        sa.func.lower(satellites.c.api_name) == sa.func.lower(groups.c.name)))
            .where(data_revision.c.id == 1)
            .order_by(sa.func.lower(groups.c.name), groups.c.name, groups.c.report_count.desc(), rank))


@dataclass(frozen=True)
class BulkStored:
    new: int  # stored in an empty slot
    unchanged: int  # its slot already held the same report: nothing written
    replaced: int  # its slot held a different report, which it replaced


def store_imported(conn: Connection, rows: list[dict]) -> BulkStored:
    """Store imported reports in one statement, each in its slot as store_submitted does.

    `rows` (dicts of name, day, hour, period, callsign, report, grid_square) hold at most one
    report per slot, in the order they were made, so new ids follow that order. A report equal to
    the one already in its slot (name, callsign, value and grid) leaves that row and its id alone,
    which is what makes a repeated import change nothing; a different one replaces it with a new
    id, as store_submitted does. report_totals stays exact."""
    if not rows:
        return BulkStored(new=0, unchanged=0, replaced=0)
    params = [{**row, "name": db_text(row["name"]), "callsign": db_text(row["callsign"]),
               "grid_square": None if row["grid_square"] is None else db_text(row["grid_square"]),
               "replaced_report": None} for row in rows]
    # executemany: compiled once, sent as multi-row INSERTs ("insertmanyvalues").
    upsert = _import_upsert(conn.dialect.name)
    written = _one_statement_or_one_each(conn, params, lambda run: conn.execute(upsert, run).all())
    inserted = [row for row in written if row.replaced_report is None]
    _add_to_totals(conn, (row[:3] for row in inserted))
    return BulkStored(new=len(inserted), unchanged=len(rows) - len(written),
                      replaced=len(written) - len(inserted))


@cache
def _import_upsert(dialect_name: str):
    statement = insert_for(dialect_name)(reports)
    compared = ("name", "callsign", "report", "grid_square")
    return statement.on_conflict_do_update(
        index_elements=_slot,
        set_={"id": new_id(dialect_name, reports, per_row=True),
              **{column: statement.excluded[column] for column in compared}, "replaced_report": reports.c.report},
        where=sa.or_(*(reports.c[column].is_distinct_from(statement.excluded[column]) for column in compared)),
    ).returning(_name_key, reports.c.day, reports.c.hour, reports.c.replaced_report)


def _one_statement_or_one_each(conn: Connection, rows: list[dict], execute) -> list:
    """`execute(rows)` as one statement; if PostgreSQL folds two of its names alike that Python
    kept apart (İ), so that the statement would touch a row twice, one statement per row, in order,
    so that the later report of the slot wins. The two fold ASCII alike: only rows with other
    letters need the savepoint that catches it (two round trips on PostgreSQL)."""
    if all(row["name"].isascii() and row["callsign"].isascii() for row in rows):
        return execute(rows)
    try:
        with conn.begin_nested():
            return execute(rows)
    except sa.exc.ProgrammingError as exc:
        if getattr(exc.orig, "sqlstate", None) != _CARDINALITY_VIOLATION:
            raise
    return [result for row in rows for result in execute([row])]


def _add_to_totals(conn: Connection, inserted: Iterable[tuple[str, date, int]]) -> None:
    """Add newly inserted reports, as (name key, day, hour), to report_totals: one row per name,
    count and newest hour. The key is the database's lower(name), the one catalog statistics
    join on."""
    counts: dict[str, int] = {}
    latest: dict[str, tuple[date, int]] = {}
    for key, day, hour in inserted:
        counts[key] = counts.get(key, 0) + 1
        if key not in latest or (day, hour) > latest[key]:
            latest[key] = (day, hour)
    if counts:
        conn.execute(_totals_upsert(conn.dialect.name), as_given(conn, [
            {"name_key": key, "report_count": count, "latest_day": latest[key][0], "latest_hour": latest[key][1]}
            for key, count in counts.items()], _TOTALS))


_TOTALS = ("name_key", "report_count", "latest_day", "latest_hour")


@cache
def _totals_upsert(dialect_name: str):
    statement = insert_given(dialect_name, report_totals, _TOTALS)
    newer = sa.or_(statement.excluded.latest_day > report_totals.c.latest_day,
                   sa.and_(statement.excluded.latest_day == report_totals.c.latest_day,
                           statement.excluded.latest_hour > report_totals.c.latest_hour))
    return statement.on_conflict_do_update(
        index_elements=[report_totals.c.name_key],
        set_={"report_count": report_totals.c.report_count + statement.excluded.report_count,
              "latest_day": sa.case((newer, statement.excluded.latest_day), else_=report_totals.c.latest_day),
              "latest_hour": sa.case((newer, statement.excluded.latest_hour), else_=report_totals.c.latest_hour)})

# --- the pages' reads ---

_report_columns = (reports.c.id, reports.c.name, reports.c.day, reports.c.hour, reports.c.period,
                   reports.c.callsign, reports.c.report, reports.c.grid_square)


def grid_window(conn: Connection, first_day: date, last_day: date) -> Sequence[sa.Row]:
    """Every report of the grid's days, most recently stored first: the status page's one query
    (a range scan of the reports_time index). grid.Report unpacks rows in this column order."""
    query = (sa.select(*_report_columns)
             .where(reports.c.day >= first_day, reports.c.day <= last_day)
             .order_by(reports.c.id.desc()))
    return conn.execute(query).all()


def stored_name(conn: Connection, name: str) -> str | None:
    """The name as stored on some report (for names no longer in the catalog)."""
    query = sa.select(reports.c.name).where(sa.func.lower(reports.c.name) == folded(name)).limit(1)
    return conn.execute(query).scalar()


def history(conn: Connection, name: str, first_day: date) -> Sequence[sa.Row]:
    """Report counts per (day, hour, value) of one satellite since first_day, summed from the
    hourly counts (report_hours) instead of counting the reports themselves."""
    hours = report_hours
    query = (sa.select(hours.c.day, hours.c.hour, hours.c.report,
                       sa.cast(sa.func.sum(hours.c.report_count), sa.Integer).label("count"))
             .where(hours.c.day >= first_day, sa.func.lower(hours.c.name) == folded(name), hours.c.report_count > 0)
             .group_by(hours.c.day, hours.c.hour, hours.c.report))
    return conn.execute(query).all()


def recent_reports(conn: Connection, name: str, limit: int) -> Sequence[sa.Row]:
    """One satellite's newest reports (day, hour, quarter, then id, newest first)."""
    query = (sa.select(*_report_columns)
             .where(sa.func.lower(reports.c.name) == folded(name))
             .order_by(*_newest_first)
             .limit(limit))
    return conn.execute(query).all()


def report_count(conn: Connection, name: str) -> int:
    """How many reports are stored under a name: whether deleting its catalog entry needs a
    confirmation."""
    query = sa.select(sa.func.count()).select_from(reports).where(sa.func.lower(reports.c.name) == folded(name))
    return conn.execute(query).scalar_one()
