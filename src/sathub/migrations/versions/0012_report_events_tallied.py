"""Interface A, SQLite: the stream's event triggers (0009) count a satellite's current cell from the
hourly tally (report_hours, 0004/0007), as PostgreSQL's already do, instead of from the reports.

SQLite fires the triggers of one event newest first, so 0009's per-row triggers ran before 0007's
reports_*_tally and the tally was not yet up to date for them: they counted the block's reports
(tens to hundreds of rows per report stored). Here 0009's event triggers are made again with the
cell read from report_hours, then 0007's tally triggers are made again too, so that they are the
newest and fire first: when an event trigger runs, report_hours counts the row it fires for. Both
are remade from their own SQL as stored in sqlite_master (the events' with the one query of the
cell swapped), so neither is written twice. Their order matters for nothing else: the events read
no data revision, the tally no event.

The query of the cell that 0009 wrote into its triggers is made here by a frozen copy of 0009's
helpers (COUNTED): this migration imports no other, so editing 0009 cannot change what it does;
if the stored triggers no longer hold that query, the migration stops rather than guess.

PostgreSQL: nothing (its statement triggers fire by name, reports_tally_* before
reports_zz_events_*, and count from report_hours since 0009).

Revision ID: 0012
Revises: 0011
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

STORED = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'reports' AND name GLOB ?"

# 0009's names and SQL as 0009 wrote them into its triggers, copied (frozen): what it made and
# what this migration replaces stay the same whatever becomes of 0009's file.
COUNTS = ("heard", "telemetry", "not_heard", "crew")
VALUES = ("Heard", "Telemetry Only", "Not Heard", "Crew Active")
SQLITE_WRITTEN = "SELECT NEW.day AS day, (NEW.hour / 2) * 2 AS hour"


def _counted_cell(name: str, written: str) -> str:
    """0009's _newest_cell: the current cell of the satellite named `name` (as stored) after a
    write, with the count of each report value in it, counted from the block's reports."""
    sums = ", ".join(
        f"sum(CASE WHEN r.report = '{value}' THEN 1 ELSE 0 END) AS {count}"
        for value, count in zip(VALUES, COUNTS, strict=True)
    )
    return (
        f"SELECT b.day, b.hour, {sums} FROM ({_newest_block(name, written)}) b "
        f"JOIN reports r ON lower(r.name) = lower({name}) AND r.name = {name} "
        f"AND r.day = b.day AND r.hour IN (b.hour, b.hour + 1) GROUP BY b.day, b.hour"
    )


def _newest_block(name: str, written: str) -> str:
    """0009's newest_block: the (day, hour) of the current cell, the newest of its three
    candidates (the block written, the cell recorded, else the block of the latest report)."""
    recorded = f"SELECT day, hour FROM report_event_cells WHERE name = {name}"
    latest = (
        f"SELECT latest_day, (latest_hour / 2) * 2 FROM report_totals WHERE name_key = lower({name}) "
        f"AND NOT EXISTS ({recorded})"
    )
    return (
        f"SELECT day, hour FROM ({written} UNION ALL {recorded} UNION ALL {latest}) candidates "
        "ORDER BY day DESC, hour DESC LIMIT 1"
    )


def _tallied_cell(name: str, written: str) -> str:
    """0009's _newest_cell (the same candidates for the current cell), with the count of each
    report value summed from at most eight rows of report_hours' primary key instead of the
    block's reports; no row when the cell holds no report, as 0009's count gave none."""
    sums = ", ".join(
        f"sum(CASE WHEN t.report = '{value}' THEN t.report_count ELSE 0 END) AS {count}"
        for value, count in zip(VALUES, COUNTS, strict=True)
    )
    return (
        f"SELECT b.day, b.hour, {sums} FROM ({_newest_block(name, written)}) b "
        f"JOIN report_hours t ON t.day = b.day AND t.hour IN (b.hour, b.hour + 1) AND t.name = {name} "
        f"GROUP BY b.day, b.hour HAVING sum(t.report_count) > 0"
    )


COUNTED = _counted_cell("NEW.name", SQLITE_WRITTEN)  # 0009's: the block's reports
TALLIED = _tallied_cell("NEW.name", SQLITE_WRITTEN)


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    tallies = _stored("reports_*_tally")
    _remake_events(COUNTED, TALLIED)
    for name, sql in tallies:  # made last: the newest, so they fire first
        op.execute(f"DROP TRIGGER {name}")
        op.execute(sql)


def downgrade() -> None:
    # 0009's triggers again, made after the tally's: they fire first and count the reports, as in 0009.
    if op.get_bind().dialect.name != "sqlite":
        return
    _remake_events(TALLIED, COUNTED)


def _stored(pattern: str) -> list[tuple[str, str]]:
    return [tuple(row) for row in op.get_bind().exec_driver_sql(STORED, (pattern,)).all()]


def _remake_events(cell: str, new_cell: str) -> None:
    """reports_insert_events and reports_update_events, made again with the query of the cell
    swapped (it occurs once in each)."""
    for name, sql in _stored("reports_*_events"):
        if sql.count(cell) != 1:
            raise RuntimeError(f"{name} is not the trigger this migration expects")
        op.execute(f"DROP TRIGGER {name}")
        op.execute(sql.replace(cell, new_cell))
