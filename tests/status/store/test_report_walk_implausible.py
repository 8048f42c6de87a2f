"""The implausible reports' own index (migration 0021, reports_implausible) serves the reads that
ask for them, on SQLite and PostgreSQL: a walk of `visible=false` (store/report_walk.py) and the
grid's subtraction (store/reports.py hourly_counts). A partial index serves only a query whose
condition implies the index's, so a query written another way (`visible IS false`, `NOT visible`
on SQLite) would walk every report instead: this reads the plans the database makes."""

from __future__ import annotations

from datetime import date

from sqlalchemy import event

from sathub import db
from sathub.status.store import report_walk, reports

DAY = date(2026, 11, 27)


def plans(engine, read) -> list[str]:
    """The plan of each statement `read(conn)` ran, with its parameters; PostgreSQL is told to
    avoid sequential scans, so that a plan over a few rows shows whether the index can serve."""
    ran: list[tuple[str, object]] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT"):  # not the connection's own set-up
            ran.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        with db.connect(engine) as conn:
            read(conn)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    with db.connect(engine) as conn:
        if engine.dialect.name == "postgresql":
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            explain = "EXPLAIN "
        else:
            explain = "EXPLAIN QUERY PLAN "
        return [
            "\n".join(str(row[-1]) for row in conn.exec_driver_sql(explain + statement, parameters))
            for statement, parameters in ran
        ]


def test_a_walk_of_implausible_reports_reads_their_index(engine):
    def walk(conn):
        where = report_walk.ReportFilter(visible="false")
        after = (DAY, 20, 1, "ao-91", "W1AW")
        report_walk.report_page(conn, where, ascending=False, after=after, limit=101)

    (plan,) = plans(engine, walk)
    assert "reports_implausible" in plan


def test_the_grid_counts_the_implausible_reports_from_their_index(engine):
    def counts(conn):
        reports.hourly_counts(conn, DAY, DAY, exclude_implausible=True)

    counted, implausible = plans(engine, counts)
    assert "reports_implausible" in implausible and "reports_implausible" not in counted
