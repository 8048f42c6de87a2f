"""The SQL that stores reports: submissions (the API's and the form's, each replacing its slot's
earlier report atomically) and imports. Kept with them: report_totals (per-name counts for catalog
statistics), written in the same transaction as each new report, and each report's `visible`
(store/visibility.py), given before the statement that stores it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.dialect import as_given, insert_for, insert_given, new_id
from sathub.status.store.text import db_text
from sathub.status.store.visibility import visible_flags
from sathub.status.tables import report_totals, reports

_name_key = sa.func.lower(reports.c.name).label("name_key")
# The unique slot index of migration 0001: one report per satellite, day, hour, quarter and callsign.
_slot = (
    sa.func.lower(reports.c.name),
    reports.c.day,
    reports.c.hour,
    reports.c.period,
    sa.func.upper(reports.c.callsign),
)


@dataclass(frozen=True)
class Stored:
    id: int
    replaced_count: int


def store_submitted(conn: Connection, rows: list[dict]) -> list[Stored]:
    """Store submitted reports (the API's and the form's, those of a group commit together), one
    result each: each in its slot (name, day, hour, period, callsign), replacing the slot's earlier
    report in the same statement; the unique slot index makes this hold across processes. A
    replacement gets a new id, as upstream's delete-then-insert did.

    One statement per run of distinct slots, since a statement may not touch a row twice, so a
    later report of a slot still replaces an earlier one, in arrival order. One statement instead
    of one per report: on PostgreSQL each statement also runs the statement triggers."""
    params = [
        {**row, "callsign": db_text(row["callsign"]), "replaced_report": None, "visible": visible}
        for row, visible in zip(rows, visible_flags(conn, rows), strict=True)
    ]
    return [
        stored
        for run in _runs_of_distinct_slots(params)
        for stored in _one_statement_or_one_each(conn, run, lambda rows: _store_run(conn, rows))
    ]


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
    written = {
        (row.name, row.day, row.hour, row.period, row.callsign): row
        for row in conn.execute(_submission_upsert(conn.dialect.name), as_given(conn, run, _GIVEN))
    }
    results = [written[(row["name"], row["day"], row["hour"], row["period"], row["callsign"])] for row in run]
    _add_to_totals(conn, [(row.name_key, row.day, row.hour) for row in results if row.replaced_report is None])
    return [Stored(id=row.id, replaced_count=0 if row.replaced_report is None else 1) for row in results]


# The columns of a report a write gives (insert_given).
_GIVEN = ("name", "day", "hour", "period", "callsign", "report", "grid_square", "visible")


@cache
def _submission_upsert(dialect_name: str):
    """Built once per dialect: every write of the API and the form runs it, and building and
    compiling it again cost more than executing it."""
    statement = insert_given(dialect_name, reports, _GIVEN)
    return statement.on_conflict_do_update(
        index_elements=_slot,
        set_={
            "id": new_id(dialect_name, reports, per_row=True),
            "name": statement.excluded.name,
            "callsign": statement.excluded.callsign,
            "report": statement.excluded.report,
            "grid_square": statement.excluded.grid_square,
            "visible": statement.excluded.visible,
            "replaced_report": reports.c.report,
        },
    ).returning(
        reports.c.id,
        reports.c.replaced_report,
        _name_key,
        reports.c.name,
        reports.c.day,
        reports.c.hour,
        reports.c.period,
        reports.c.callsign,
    )


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
    id, as store_submitted does. report_totals stays exact. An unchanged report keeps its
    `visible` too: `sathub status recheck` judges stored reports again."""
    if not rows:
        return BulkStored(new=0, unchanged=0, replaced=0)
    params = [
        {
            **row,
            "name": db_text(row["name"]),
            "callsign": db_text(row["callsign"]),
            "grid_square": None if row["grid_square"] is None else db_text(row["grid_square"]),
            "replaced_report": None,
            "visible": visible,
        }
        for row, visible in zip(rows, visible_flags(conn, rows), strict=True)
    ]
    # executemany: compiled once, sent as multi-row INSERTs ("insertmanyvalues").
    upsert = _import_upsert(conn.dialect.name)
    written = _one_statement_or_one_each(conn, params, lambda run: conn.execute(upsert, run).all())
    inserted = [row for row in written if row.replaced_report is None]
    _add_to_totals(conn, (row[:3] for row in inserted))
    return BulkStored(new=len(inserted), unchanged=len(rows) - len(written), replaced=len(written) - len(inserted))


@cache
def _import_upsert(dialect_name: str):
    statement = insert_for(dialect_name)(reports)
    compared = ("name", "callsign", "report", "grid_square")
    return statement.on_conflict_do_update(
        index_elements=_slot,
        set_={
            "id": new_id(dialect_name, reports, per_row=True),
            **{column: statement.excluded[column] for column in compared},
            "visible": statement.excluded.visible,
            "replaced_report": reports.c.report,
        },
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
        conn.execute(
            _totals_upsert(conn.dialect.name),
            as_given(
                conn,
                [
                    {
                        "name_key": key,
                        "report_count": count,
                        "latest_day": latest[key][0],
                        "latest_hour": latest[key][1],
                    }
                    for key, count in counts.items()
                ],
                _TOTALS,
            ),
        )


_TOTALS = ("name_key", "report_count", "latest_day", "latest_hour")


@cache
def _totals_upsert(dialect_name: str):
    statement = insert_given(dialect_name, report_totals, _TOTALS)
    newer = sa.or_(
        statement.excluded.latest_day > report_totals.c.latest_day,
        sa.and_(
            statement.excluded.latest_day == report_totals.c.latest_day,
            statement.excluded.latest_hour > report_totals.c.latest_hour,
        ),
    )
    return statement.on_conflict_do_update(
        index_elements=[report_totals.c.name_key],
        set_={
            "report_count": report_totals.c.report_count + statement.excluded.report_count,
            "latest_day": sa.case((newer, statement.excluded.latest_day), else_=report_totals.c.latest_day),
            "latest_hour": sa.case((newer, statement.excluded.latest_hour), else_=report_totals.c.latest_hour),
        },
    )
