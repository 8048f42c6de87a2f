"""report_hours (migrations 0004, 0007) stays equal to a grouped count of reports through every kind
of write: new reports, replacements that change value or name case, bulk imports, manual UPDATE
and DELETE; every count a write changes is stamped with a revision newer than any before it; and
summary.php reads the same groups from it as from the reports themselves. (The answer brought up
to date from the counts changed since: tests/status/api/test_summary_answer.py.)"""

from __future__ import annotations

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sathub.db import connect
from sathub.status.store import reports as report_store
from sathub.status.store import writes as report_writes
from sathub.status.tables import data_revision, report_hours, reports
from sathub.status.times import read_form_time_of_hour_number
from tests.conftest import empty_all_tables, migrate, scratch_engine
from tests.status.store.report_writes import DAYS, apply, writes


def counted(conn) -> dict:
    """The hourly counts, without those at 0 (kept as changes for readers)."""
    hours = report_hours.c
    return {
        (str(day), hour, name, report): count
        for day, hour, name, report, count in conn.execute(
            sa.select(hours.day, hours.hour, hours.name, hours.report, hours.report_count).where(hours.report_count > 0)
        )
    }


def stamps(conn) -> dict:
    return {
        (str(row.day), row.hour, row.name, row.report): (row.report_count, row.revision)
        for row in conn.execute(sa.select(report_hours))
    }


def current_revision(conn) -> int:
    return conn.execute(sa.select(data_revision.c.revision)).scalar_one()


def recounted(conn) -> dict:
    group = (reports.c.day, reports.c.hour, reports.c.name, reports.c.report)
    return {
        (str(day), hour, name, report): count
        for day, hour, name, report, count in conn.execute(sa.select(*group, sa.func.count()).group_by(*group))
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(writes, min_size=1, max_size=12))
def test_hourly_counts_follow_every_write(migrated_engine, sequence):
    empty_all_tables(migrated_engine)
    for write in sequence:
        with connect(migrated_engine) as conn:
            before, revision = stamps(conn), current_revision(conn)
        with connect(migrated_engine, write=True) as conn:
            apply(conn, write)
        with connect(migrated_engine) as conn:
            after = stamps(conn)
            # A count that moved, appeared or fell to 0 carries a revision newer than the one
            # read before the write (a replacement by the same value may restamp one that did not).
            for key, (count, stamp) in after.items():
                if before.get(key, (0, None))[0] != count:
                    assert stamp > revision, key
                else:
                    assert stamp >= before[key][1], key
            assert before.keys() <= after.keys()  # counts of 0 stay, as changes to be seen
    with connect(migrated_engine) as conn:
        assert counted(conn) == recounted(conn)


def test_summary_reads_the_same_as_a_scan(engine):
    with connect(engine, write=True) as conn:
        for hour in (22, 23):
            for i, report in enumerate(["Heard", "Heard", "Not Heard", "Telemetry Only"]):
                report_writes.store_submitted(
                    conn,
                    [
                        dict(
                            name="AO-91" if i else "ao-91",
                            day=DAYS[0],
                            hour=hour,
                            period=i,
                            callsign="W1AW",
                            report=report,
                            grid_square=None,
                        )
                    ],
                )
    with connect(engine) as conn:
        rows = report_store.summary(conn, (DAYS[0], 23)).groups
    newest = "2026-11-20T23:30:00Z"
    assert [(row.name, row.report, row.report_count, read_form_time_of_hour_number(row.latest)) for row in rows] == [
        ("AO-91", "Heard", 1, newest),
        ("AO-91", "Telemetry Only", 1, newest),
        ("AO-91", "Not Heard", 1, newest),
        ("ao-91", "Heard", 1, newest),
    ]


def test_a_value_longer_than_its_column_is_refused_or_kept_whole_never_cut(engine):
    """PostgreSQL refuses a callsign longer than its VARCHAR(32); SQLite keeps it whole. The
    group insert must not cut it on the way (a cast to VARCHAR(32) would, silently)."""
    empty_all_tables(engine)
    long_callsign = "W" * 40
    try:
        with connect(engine, write=True) as conn:
            report_writes.store_submitted(
                conn,
                [
                    dict(
                        name="AO-91",
                        day=DAYS[0],
                        hour=1,
                        period=0,
                        callsign=long_callsign,
                        report="Heard",
                        grid_square=None,
                    )
                ],
            )
    except sa.exc.DBAPIError:
        assert engine.dialect.name == "postgresql"
    with connect(engine) as conn:
        stored = conn.execute(sa.select(reports.c.callsign)).scalars().all()
    assert stored == ([] if engine.dialect.name == "postgresql" else [long_callsign])


def test_migration_counts_existing_reports(database_url, tmp_path):
    """An existing deployment upgrading to 0004 gets the counts of the reports it already holds."""
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0003")
        with engine.begin() as conn:
            conn.execute(
                reports.insert(),
                [
                    {"name": name, "day": DAYS[0], "hour": 5, "period": period, "callsign": "W1AW", "report": "Heard"}
                    for period, name in enumerate(["AO-91", "AO-91", "SO-50"])
                ],
            )
        migrate(engine, "head")
        with connect(engine) as conn:
            assert (
                counted(conn)
                == recounted(conn)
                == {(str(DAYS[0]), 5, "AO-91", "Heard"): 2, (str(DAYS[0]), 5, "SO-50", "Heard"): 1}
            )
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql("TRUNCATE reports")
                assert counted(conn) == {}
