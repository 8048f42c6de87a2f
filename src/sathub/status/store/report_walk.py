"""The SQL of the reports read by a ReportFilter: the report walk (keyset pages over the whole
history, GET /api/v2/reports) and the reported locators of a window (GET /api/v2/grid-squares
and the satellite pages' map).

The walk's order is the slot's (migration 0001's unique index): time (day, hour, period), then
satellite and callsign as the database folds them. A report keeps its slot when another
replaces it (it gets a new id, so an id would not do as a key), so a page that starts after the
last slot of the page before returns every slot stored before the walk began exactly once.
Migration 0011 indexes that order, so every page is one index range, however deep (a walk of
named satellites reads the slot index instead, one range per name: report_page)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.status.store.reports import (  # hour_number: the summary's newest-hour key
    IMPLAUSIBLE,
    REPORT_COLUMNS,
    hour_number,
)
from sathub.status.store.text import db_text, folded
from sathub.status.tables import reports, satellites

Hour = tuple[date, int]  # (day, hour), as times.first_included_hour gives it
Visible = Literal["true", "false", "null"]

_name_key = sa.func.lower(reports.c.name)
_callsign_key = sa.func.upper(reports.c.callsign)
# The walk's key, in migration 0011's index order.
WALK_KEY = (reports.c.day, reports.c.hour, reports.c.period, _name_key, _callsign_key)
_display_name = sa.func.coalesce(satellites.c.display_name, "").label("display_name")


@dataclass(frozen=True)
class ReportFilter:
    """What a walk is restricted to; `callsign` comes upper-cased, `names` as given (folded by
    the database, like the index)."""

    names: tuple[str, ...] = ()
    callsign: str | None = None
    grid_square: str | None = None
    report: str | None = None
    first: Hour | None = None  # the first (day, hour) included
    last: Hour | None = None  # the last (day, hour) included
    # Reports whose `visible` is this: "true", "false" or "null" (not given: every report).
    visible: Visible | None = None


# The key of a row: (day, hour, period, name key, callsign key).
Key = tuple[date, int, int, str, str]


def report_page(
    conn: Connection, where: ReportFilter, *, ascending: bool, after: Key | None, limit: int
) -> Sequence[sa.Row]:
    """Up to `limit` reports after the key `after` (None: from the start), in the walk's order
    (ascending, or descending), each with its key columns last: id, name, display_name, day, hour,
    period, callsign, report, grid_square, visible, name_key, callsign_key.

    Without names, one range of reports_walk. With names, one branch per name, each a range of the
    slot index (its name first, then the walk's order: no sort, however many reports the name
    has), merged and cut to `limit`: a page reads at most `limit` rows per name. UNION, not UNION
    ALL: two given spellings of one name make two equal branches."""
    conditions = _conditions(dataclasses.replace(where, names=()))
    if after is not None:
        given = sa.tuple_(
            sa.literal(after[0], sa.Date),
            sa.literal(after[1], sa.SmallInteger),
            sa.literal(after[2], sa.SmallInteger),
            sa.literal(db_text(after[3]), sa.String),
            sa.literal(db_text(after[4]), sa.String),
        )
        key = sa.tuple_(*WALK_KEY)
        conditions.append(key > given if ascending else key < given)
    rows = sa.select(*_ROW_COLUMNS).where(*conditions)
    if where.names:
        ordered = rows.order_by(*_ordered(_SLOT_ORDER, ascending)).limit(limit)
        branches = [
            sa.select(*ordered.where(_name_key == folded(name)).subquery().c) for name in sorted(set(where.names))
        ]
        source = sa.union(*branches).subquery() if len(branches) > 1 else branches[0].subquery()
    else:
        source = rows.order_by(*_ordered(WALK_KEY, ascending)).limit(limit).subquery()
    walk_key = (source.c.day, source.c.hour, source.c.period, source.c.name_key, source.c.callsign_key)
    query = (
        sa.select(
            source.c.id,
            source.c.name,
            _display_name,
            source.c.day,
            source.c.hour,
            source.c.period,
            source.c.callsign,
            source.c.report,
            source.c.grid_square,
            source.c.visible,
            source.c.name_key,
            source.c.callsign_key,
        )
        .select_from(source.outerjoin(satellites, sa.func.lower(satellites.c.api_name) == source.c.name_key))
        .order_by(*_ordered(walk_key, ascending))
        .limit(limit)
    )
    return conn.execute(query).all()


_ROW_COLUMNS = (
    *REPORT_COLUMNS,
    reports.c.visible,
    _name_key.label("name_key"),
    _callsign_key.label("callsign_key"),
)
# With one name, the walk's order, as the slot index (migration 0001) gives it after its name.
# Without the name itself: SQLite would sort by a term the branch holds constant.
_SLOT_ORDER = (reports.c.day, reports.c.hour, reports.c.period, _callsign_key)


def _ordered(columns, ascending: bool) -> tuple:
    return tuple(columns) if ascending else tuple(column.desc() for column in columns)


def _conditions(where: ReportFilter) -> list:
    conditions: list = []
    if where.names:
        conditions.append(_name_key.in_([folded(name) for name in sorted(set(where.names))]))
    if where.callsign is not None:
        conditions.append(_callsign_key == db_text(where.callsign))
    if where.grid_square is not None:
        conditions.append(reports.c.grid_square == where.grid_square)
    if where.report is not None:
        conditions.append(reports.c.report == where.report)
    if where.visible is not None:
        conditions.append(VISIBLE_IS[where.visible])
    if where.first is not None:
        conditions.append(sa.tuple_(reports.c.day, reports.c.hour) >= sa.tuple_(*_hour_literals(where.first)))
    if where.last is not None:
        conditions.append(sa.tuple_(reports.c.day, reports.c.hour) <= sa.tuple_(*_hour_literals(where.last)))
    return conditions


# Implausible reports are a range of the partial index that holds them alone (store.reports
# IMPLAUSIBLE); true and null are the bulk of the reports, read from the walk's own range as the
# other filters are.
VISIBLE_IS = {"true": reports.c.visible == sa.true(), "false": IMPLAUSIBLE, "null": reports.c.visible.is_(None)}


def _hour_literals(hour: Hour):
    return sa.literal(hour[0], sa.Date), sa.literal(hour[1], sa.SmallInteger)


def located_hours(conn: Connection, first: Hour, names: tuple[str, ...]) -> Sequence[sa.Row]:
    """Reports with a locator from the hour `first` on, counted per (grid_square, report), with the
    newest (day, hour) of each as its hour number (store.reports' integer that sorts like the
    pair, read back by times.read_form_time_of_hour_number): what /api/v2/grid-squares and the
    satellite pages' map sum per locator."""
    query = (
        sa.select(
            reports.c.grid_square,
            reports.c.report,
            sa.func.max(hour_number(conn.dialect.name, reports.c.day, reports.c.hour)).label("latest"),
            sa.func.count().label("report_count"),
        )
        .where(*_conditions(ReportFilter(names=names, first=first)), reports.c.grid_square != "")
        .group_by(reports.c.grid_square, reports.c.report)
    )
    return conn.execute(query).all()
