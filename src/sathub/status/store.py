"""The SQL of interface A. Every function takes a Connection and knows nothing of HTTP.

Names and callsigns compare case-insensitively (upstream's MariaDB collation), through the
lower()/upper() expression indexes of migration 0001."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from sathub.status.rules import REPORT_VALUES
from sathub.status.tables import report_hours, report_totals, reports, satellite_aliases, satellites, users

Window = tuple[date, int]  # first included (day, hour), see times.first_included_hour

_display_name = satellites.c.display_name.label("satellite_display_name")
_with_catalog = reports.outerjoin(satellites, sa.func.lower(satellites.c.api_name) == sa.func.lower(reports.c.name))
_newest_first = (reports.c.day.desc(), reports.c.hour.desc(), reports.c.period.desc(), reports.c.id.desc())


def db_text(text: str) -> str:
    """User text as every backend can bind it: PostgreSQL text cannot hold NUL, so it becomes
    U+FFFD (which no name, callsign or grid contains, so matching is unchanged)."""
    return text.replace("\x00", "\ufffd")


def folded(text: str):
    """`text` lower-cased by the database, like the lower(column) it is compared with: Python's
    str.lower() folds Unicode, SQLite's lower() only ASCII, so OSCAR-Ø would never match."""
    return sa.func.lower(sa.literal(db_text(text), sa.String))


def _insert(conn: Connection):
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


def _in_window(window: Window, table: sa.Table = reports):
    day, hour = window
    return sa.and_(table.c.day >= day, sa.or_(table.c.day > day, table.c.hour >= hour))


def _hour_key(conn: Connection, day, hour):
    """A text that sorts like (day, hour), for max() over both."""
    if conn.dialect.name == "postgresql":
        return sa.func.to_char(day, "YYYY-MM-DD").op("||")(sa.func.lpad(sa.cast(hour, sa.Text), 2, "0"))
    return sa.cast(day, sa.Text).op("||")(sa.func.printf("%02d", hour))


def ping(conn: Connection) -> None:
    conn.execute(sa.text("SELECT 1")).scalar_one()


_REVISION = sa.text("SELECT revision FROM data_revision WHERE id = 1")


def data_revision(conn: Connection) -> int:
    """The revision of everything interface A's reads show; triggers bump it on every change."""
    return conn.execute(_REVISION).scalar_one()


# --- catalog ---

def catalog_is_empty(conn: Connection) -> bool:
    return conn.execute(sa.select(satellites.c.id).limit(1)).first() is None


def catalog(conn: Connection, name: str | None = None, with_stats: bool = False) -> list[sa.Row]:
    """Catalog entries ordered by display name (case-insensitive), optionally those matching `name`
    by API or display name, with report totals when asked."""
    columns = [satellites.c.id, satellites.c.api_name, satellites.c.display_name, satellites.c.website]
    source = satellites
    if with_stats:
        source = satellites.outerjoin(report_totals, report_totals.c.name_key == sa.func.lower(satellites.c.api_name))
        columns += [report_totals.c.report_count, report_totals.c.latest_day, report_totals.c.latest_hour]
    query = sa.select(*columns).select_from(source)
    if name is not None:
        key = folded(name)
        query = query.where(sa.or_(sa.func.lower(satellites.c.api_name) == key,
                                   sa.func.lower(satellites.c.display_name) == key))
    query = query.order_by(sa.func.lower(satellites.c.display_name), satellites.c.id)
    return conn.execute(query).all()


def resolve_api_name(conn: Connection, name: str, *, display_names: bool = True) -> str | None:
    """The API name a submission's satellite name stores under, case-insensitively: an API name,
    a display name (not on the legacy form, which passes display_names=False) or a retired alias."""
    key = folded(name)
    matches = [sa.func.lower(satellites.c.api_name) == key]
    if display_names:
        matches.append(sa.func.lower(satellites.c.display_name) == key)
    direct = sa.select(satellites.c.api_name, sa.literal(0).label("rank")).where(sa.or_(*matches))
    via_alias = sa.select(satellites.c.api_name, sa.literal(1).label("rank")).select_from(
        satellite_aliases.join(satellites)).where(sa.func.lower(satellite_aliases.c.alias) == key)
    union = sa.union_all(direct, via_alias).subquery()
    return conn.execute(sa.select(union.c.api_name).order_by(union.c.rank).limit(1)).scalar()


def load_catalog(conn: Connection, rows: list[dict]) -> int:
    """Insert or update entries keyed by API name (case-insensitive); returns how many were written."""
    written = 0
    for row in rows:
        api_name = db_text((row.get("name") or "").strip())
        if not api_name:
            continue
        values = {"display_name": db_text((row.get("display_name") or api_name).strip()),
                  "website": db_text((row.get("website") or "").strip())}
        updated = conn.execute(satellites.update()
                               .where(sa.func.lower(satellites.c.api_name) == folded(api_name))
                               .values(**values)).rowcount
        if not updated:
            conn.execute(satellites.insert().values(api_name=api_name, **values))
        written += 1
    return written


def load_aliases(conn: Connection, rows: list[dict]) -> int:
    """Add the aliases whose target is in the catalog and that are not themselves API names."""
    added = 0
    for row in rows:
        if add_alias(conn, row["alias"].strip(), row["name"].strip(), replace=False) is None:
            added += 1
    return added


def add_alias(conn: Connection, alias: str, name: str, replace: bool = True) -> str | None:
    """Point `alias` at satellite `name`; returns an error sentence, or None when done."""
    target = conn.execute(sa.select(satellites.c.id).where(
        sa.func.lower(satellites.c.api_name) == folded(name))).scalar()
    if target is None:
        return f"No satellite named {name!r}."
    if conn.execute(sa.select(satellites.c.id).where(
            sa.func.lower(satellites.c.api_name) == folded(alias))).first():
        return f"{alias!r} is a current API name, not a retired one."
    existing = conn.execute(sa.select(satellite_aliases.c.alias).where(
        sa.func.lower(satellite_aliases.c.alias) == folded(alias))).scalar()
    if existing is not None:
        if not replace:
            return f"{alias!r} is already an alias."
        conn.execute(satellite_aliases.delete().where(satellite_aliases.c.alias == existing))
    conn.execute(satellite_aliases.insert().values(alias=alias, satellite_id=target))
    return None


def remove_alias(conn: Connection, alias: str) -> bool:
    return conn.execute(satellite_aliases.delete().where(
        sa.func.lower(satellite_aliases.c.alias) == folded(alias))).rowcount > 0


def catalog_with_aliases(conn: Connection) -> list[dict]:
    rows = conn.execute(
        sa.select(satellites.c.id, satellites.c.api_name, satellites.c.display_name, satellites.c.website,
                  satellite_aliases.c.alias)
        .select_from(satellites.outerjoin(satellite_aliases))
        .order_by(sa.func.lower(satellites.c.display_name), satellites.c.id, satellite_aliases.c.alias)).all()
    entries: dict[int, dict] = {}
    for row in rows:
        entry = entries.setdefault(row.id, {"api_name": row.api_name, "display_name": row.display_name,
                                            "website": row.website, "aliases": []})
        if row.alias:
            entry["aliases"].append(row.alias)
    return list(entries.values())


def remove_satellite(conn: Connection, name: str) -> bool:
    """Delete a catalog entry (its aliases go with it; its reports stay)."""
    return conn.execute(satellites.delete().where(
        sa.func.lower(satellites.c.api_name) == folded(name))).rowcount > 0


# --- reports ---

@dataclass(frozen=True)
class Stored:
    id: int
    replaced_count: int


def insert_or_replace_report(conn: Connection, *, name: str, day: date, hour: int, period: int,
                             callsign: str, report: str, grid_square: str | None) -> Stored:
    """Store a report in its slot (name, day, hour, period, callsign), replacing the slot's earlier
    report in the same statement; the unique slot index makes this hold across processes.

    A replacement gets a new id, as upstream's delete-then-insert did."""
    insert = _insert(conn)
    values = dict(name=name, day=day, hour=hour, period=period, callsign=db_text(callsign), report=report,
                  grid_square=grid_square, replaced_report=None)
    statement = insert(reports).values(**values)
    if conn.dialect.name == "postgresql":
        new_id = sa.func.nextval(sa.func.pg_get_serial_sequence("reports", "id"))
    else:
        new_id = sa.select(sa.func.max(reports.c.id) + 1).scalar_subquery()
    statement = statement.on_conflict_do_update(
        index_elements=[sa.func.lower(reports.c.name), reports.c.day, reports.c.hour, reports.c.period,
                        sa.func.upper(reports.c.callsign)],
        set_={"id": new_id, "name": statement.excluded.name, "callsign": statement.excluded.callsign,
              "report": statement.excluded.report, "grid_square": statement.excluded.grid_square,
              "replaced_report": reports.c.report},
    ).returning(reports.c.id, reports.c.replaced_report)
    row = conn.execute(statement).one()
    if row.replaced_report is None:
        _count_new_report(conn, name, day, hour)
    return Stored(id=row.id, replaced_count=0 if row.replaced_report is None else 1)


def _count_new_report(conn: Connection, name: str, day: date, hour: int) -> None:
    insert = _insert(conn)
    statement = insert(report_totals).values(name_key=sa.func.lower(name), report_count=1, latest_day=day,
                                             latest_hour=hour)
    newer = sa.or_(statement.excluded.latest_day > report_totals.c.latest_day,
                   sa.and_(statement.excluded.latest_day == report_totals.c.latest_day,
                           statement.excluded.latest_hour > report_totals.c.latest_hour))
    conn.execute(statement.on_conflict_do_update(
        index_elements=[report_totals.c.name_key],
        set_={"report_count": report_totals.c.report_count + 1,
              "latest_day": sa.case((newer, statement.excluded.latest_day), else_=report_totals.c.latest_day),
              "latest_hour": sa.case((newer, statement.excluded.latest_hour), else_=report_totals.c.latest_hour)}))


def search_reports(conn: Connection, *, window: Window, limit: int, names: tuple[str, ...] = (),
                   callsign: str | None = None, grid_square: str | None = None,
                   report: str | None = None) -> list[sa.Row]:
    """`callsign` comes upper-cased (rules.ascii_upper). api.report_read_forms unpacks the rows in
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


def sat_info(conn: Connection, name: str, window: Window, limit: int = 100) -> list[sa.Row]:
    """The legacy endpoint's reports: matched on the stored name only, no catalog."""
    query = (sa.select(reports.c.name, reports.c.day, reports.c.hour, reports.c.callsign, reports.c.report,
                       reports.c.grid_square)
             .where(sa.func.lower(reports.c.name) == folded(name), _in_window(window))
             .order_by(*_newest_first).limit(limit))
    return conn.execute(query).all()


def summary(conn: Connection, window: Window) -> list[sa.Row]:
    """One row per (stored name, report value) in the window, with count and newest hour key.
    Sums the hourly counts of report_hours (a few rows per hour, not one per report), then joins
    the catalog, so the join touches one row per group."""
    hours = report_hours
    groups = (sa.select(hours.c.name, hours.c.report, sa.func.sum(hours.c.report_count).label("report_count"),
                        sa.func.max(_hour_key(conn, hours.c.day, hours.c.hour)).label("latest"))
              .where(_in_window(window, hours)).group_by(hours.c.name, hours.c.report).subquery())
    rank = sa.case({value: i for i, value in enumerate(REPORT_VALUES)}, value=groups.c.report,
                   else_=len(REPORT_VALUES))
    query = (sa.select(groups.c.name, _display_name, groups.c.report,
                       sa.cast(groups.c.report_count, sa.Integer).label("report_count"), groups.c.latest)
             .select_from(groups.outerjoin(satellites,
                                           sa.func.lower(satellites.c.api_name) == sa.func.lower(groups.c.name)))
             .order_by(sa.func.lower(groups.c.name), groups.c.name, groups.c.report_count.desc(), rank))
    return conn.execute(query).all()


# --- administrators ---

# Moving a user's session generation on ends every session issued before (migration 0005).
_next_generation = users.c.session_generation + 1


def save_user(conn: Connection, username: str, password_hash: str, email: str = "") -> None:
    """Create a user, or set a new password (which ends the user's sessions)."""
    updated = conn.execute(users.update().where(users.c.username == username)
                           .values(password=password_hash, email=email,
                                   session_generation=_next_generation)).rowcount
    if not updated:
        conn.execute(users.insert().values(username=username, password=password_hash, email=email))


def admin_user(conn: Connection, username: str) -> sa.Row | None:
    """(password, session_generation) of a user."""
    query = sa.select(users.c.password, users.c.session_generation).where(users.c.username == username)
    return conn.execute(query).first()


def password_hash_of(conn: Connection, username: str) -> str | None:
    user = admin_user(conn, username)
    return user.password if user else None


def end_sessions(conn: Connection, username: str) -> None:
    conn.execute(users.update().where(users.c.username == username).values(session_generation=_next_generation))


# --- bulk import (sathub status import-legacy) ---

@dataclass(frozen=True)
class BulkStored:
    new: int  # stored in an empty slot
    unchanged: int  # its slot already held the same report: nothing written
    replaced: int  # its slot held a different report, which it replaced


def insert_or_replace_reports(conn: Connection, rows: list[dict]) -> BulkStored:
    """insert_or_replace_report for many reports in one statement, for imports.

    `rows` (dicts of name, day, hour, period, callsign, report, grid_square) hold at most one
    report per slot, in the order they were made, so new ids follow that order. A report equal to
    the one already in its slot (name, callsign, value and grid) leaves that row and its id alone,
    which is what makes a repeated import change nothing; a different one replaces it with a new
    id, as insert_or_replace_report does. report_totals stays exact."""
    if not rows:
        return BulkStored(new=0, unchanged=0, replaced=0)
    insert = _insert(conn)
    statement = insert(reports)
    if conn.dialect.name == "postgresql":
        new_id = sa.func.nextval(sa.func.pg_get_serial_sequence("reports", "id"))
    else:
        # Correlated with the updated row, so SQLite computes it again for each row of the statement
        # (an uncorrelated max(id) + 1 is computed once and would give two replacements one id).
        new_id = sa.literal_column("(SELECT max(newest.id) + 1 FROM reports AS newest WHERE newest.id >= reports.id)")
    compared = ("name", "callsign", "report", "grid_square")
    statement = statement.on_conflict_do_update(
        index_elements=[sa.func.lower(reports.c.name), reports.c.day, reports.c.hour, reports.c.period,
                        sa.func.upper(reports.c.callsign)],
        set_={"id": new_id, **{column: statement.excluded[column] for column in compared},
              "replaced_report": reports.c.report},
        where=sa.or_(*(reports.c[column].is_distinct_from(statement.excluded[column]) for column in compared)),
    ).returning(sa.func.lower(reports.c.name).label("name_key"), reports.c.day, reports.c.hour,
                reports.c.replaced_report)
    # executemany: compiled once, sent as multi-row INSERTs ("insertmanyvalues").
    written = conn.execute(statement, [
        {**row, "name": db_text(row["name"]), "callsign": db_text(row["callsign"]),
         "grid_square": None if row["grid_square"] is None else db_text(row["grid_square"]), "replaced_report": None}
        for row in rows]).all()
    inserted = [row for row in written if row.replaced_report is None]
    _count_new_reports(conn, inserted)
    return BulkStored(new=len(inserted), unchanged=len(rows) - len(written),
                      replaced=len(written) - len(inserted))


def _count_new_reports(conn: Connection, inserted: list[sa.Row]) -> None:
    """Add newly inserted reports to report_totals: one row per name, count and newest hour.

    The key is the database's lower(name), the one catalog statistics join on."""
    counts: dict[str, int] = {}
    latest: dict[str, tuple[date, int]] = {}
    for key, day, hour, _ in inserted:
        counts[key] = counts.get(key, 0) + 1
        if key not in latest or (day, hour) > latest[key]:
            latest[key] = (day, hour)
    if not counts:
        return
    insert = _insert(conn)
    statement = insert(report_totals).values([
        {"name_key": key, "report_count": count, "latest_day": latest[key][0], "latest_hour": latest[key][1]}
        for key, count in counts.items()])
    newer = sa.or_(statement.excluded.latest_day > report_totals.c.latest_day,
                   sa.and_(statement.excluded.latest_day == report_totals.c.latest_day,
                           statement.excluded.latest_hour > report_totals.c.latest_hour))
    conn.execute(statement.on_conflict_do_update(
        index_elements=[report_totals.c.name_key],
        set_={"report_count": report_totals.c.report_count + statement.excluded.report_count,
              "latest_day": sa.case((newer, statement.excluded.latest_day), else_=report_totals.c.latest_day),
              "latest_hour": sa.case((newer, statement.excluded.latest_hour), else_=report_totals.c.latest_hour)}))
