"""The SQL of the public pages: the status grid's window, a satellite's page and feed, and the
shared rate-limit counter. Functions take a Connection and know nothing of HTTP."""

from __future__ import annotations

from datetime import date

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from sathub.status.store import folded
from sathub.status.tables import rate_limits, report_hours, reports, satellites

_report_columns = (reports.c.id, reports.c.name, reports.c.day, reports.c.hour, reports.c.period,
                   reports.c.callsign, reports.c.report, reports.c.grid_square)


def grid_window(conn: Connection, first_day: date, last_day: date) -> list[sa.Row]:
    """Every report of the grid's days, most recently stored first: the status page's one query
    (a range scan of the reports_time index)."""
    query = (sa.select(*_report_columns)
             .where(reports.c.day >= first_day, reports.c.day <= last_day)
             .order_by(reports.c.id.desc()))
    return conn.execute(query).all()


def catalog_names(conn: Connection) -> list[sa.Row]:
    """API name, display name and website of every entry, ordered by display name."""
    query = (sa.select(satellites.c.api_name, satellites.c.display_name, satellites.c.website)
             .order_by(sa.func.lower(satellites.c.display_name), satellites.c.id))
    return conn.execute(query).all()


def satellite_entry(conn: Connection, name: str) -> sa.Row | None:
    """The catalog entry of an API name (case-insensitive)."""
    query = (sa.select(satellites.c.api_name, satellites.c.display_name, satellites.c.website)
             .where(sa.func.lower(satellites.c.api_name) == folded(name)))
    return conn.execute(query).first()


def stored_name(conn: Connection, name: str) -> str | None:
    """The name as stored on some report (for names no longer in the catalog)."""
    query = sa.select(reports.c.name).where(sa.func.lower(reports.c.name) == folded(name)).limit(1)
    return conn.execute(query).scalar()


def history(conn: Connection, name: str, first_day: date) -> list[sa.Row]:
    """Report counts per (day, hour, value) of one satellite since first_day, summed from the
    hourly counts (report_hours) instead of counting the reports themselves."""
    hours = report_hours
    query = (sa.select(hours.c.day, hours.c.hour, hours.c.report,
                       sa.cast(sa.func.sum(hours.c.report_count), sa.Integer).label("count"))
             .where(hours.c.day >= first_day, sa.func.lower(hours.c.name) == folded(name))
             .group_by(hours.c.day, hours.c.hour, hours.c.report))
    return conn.execute(query).all()


def recent_reports(conn: Connection, name: str, limit: int) -> list[sa.Row]:
    """One satellite's newest reports (day, hour, quarter, then id, newest first)."""
    query = (sa.select(*_report_columns)
             .where(sa.func.lower(reports.c.name) == folded(name))
             .order_by(reports.c.day.desc(), reports.c.hour.desc(), reports.c.period.desc(), reports.c.id.desc())
             .limit(limit))
    return conn.execute(query).all()


def count_hit(conn: Connection, client: str, window_start: int) -> int:
    """Count one request of `client` in the window starting at `window_start` and return the
    window's hits so far, in one atomic upsert (correct across processes)."""
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    statement = insert(rate_limits).values(client=client, window_start=window_start, hits=1)
    same_window = rate_limits.c.window_start == statement.excluded.window_start
    statement = statement.on_conflict_do_update(
        index_elements=[rate_limits.c.client],
        set_={"hits": sa.case((same_window, rate_limits.c.hits + 1), else_=1),
              "window_start": statement.excluded.window_start},
    ).returning(rate_limits.c.hits)
    hits = conn.execute(statement).scalar_one()
    if hits == 1:
        # A client's first request of a window: drop rows of clients gone quiet for an hour.
        conn.execute(rate_limits.delete().where(rate_limits.c.window_start < window_start - 3600))
    return hits
