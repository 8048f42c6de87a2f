"""report_hours (migrations 0004, 0007) stays equal to a grouped count of reports through every kind
of write: new reports, replacements that change value or name case, bulk imports, manual UPDATE
and DELETE; every count a write changes is stamped with a revision newer than any before it; and
summary.php reads the same answer from it as from the reports themselves, whole or brought up to
date from the counts changed since its last answer."""

from __future__ import annotations

from datetime import date

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sathub.db import MIGRATIONS, connect, create_engine
from sathub.status.api.summary_answer import SummaryAnswer
from sathub.status.revision import RevisionProbe
from sathub.status.rules import REPORT_VALUES
from sathub.status.store import reports as report_store
from sathub.status.tables import data_revision, report_hours, reports, satellites
from sathub.status.times import read_form_time_of_hour_number
from tests.conftest import POSTGRES_URL, empty_all_tables, fresh_postgres_database

DAYS = [date(2026, 11, 20), date(2026, 11, 21)]
slots = st.fixed_dictionaries({
    "name": st.sampled_from(["AO-91", "ao-91", "SO-50", "ISS-FM"]),
    "day": st.sampled_from(DAYS),
    "hour": st.sampled_from([0, 1, 23]),
    "period": st.integers(0, 3),
    "callsign": st.sampled_from(["W1AW", "w1aw", "DL1ABC", "K9X"]),
    "report": st.sampled_from(REPORT_VALUES),
    "grid_square": st.sampled_from(["FN31pr", None]),
})
writes = st.one_of(
    st.tuples(st.just("report"), slots),
    st.tuples(st.just("bulk"), st.lists(slots, max_size=6)),
    st.tuples(st.just("delete"), st.integers(0, 20)),
    st.tuples(st.just("relabel"), st.integers(0, 20), st.sampled_from(REPORT_VALUES)),
)


def apply(conn, write) -> None:
    kind = write[0]
    if kind == "report":
        report_store.store_submitted(conn, [write[1]])
    elif kind == "bulk":
        # One report per slot, as import-legacy hands them over.
        unique = {(row["name"].lower(), row["day"], row["hour"], row["period"], row["callsign"].upper()): row
                  for row in write[1]}
        report_store.store_imported(conn, list(unique.values()))
    else:
        ids = conn.execute(sa.select(reports.c.id).order_by(reports.c.id)).scalars().all()
        if not ids:
            return
        target = reports.c.id == ids[write[1] % len(ids)]
        if kind == "delete":
            conn.execute(reports.delete().where(target))
        else:
            conn.execute(reports.update().where(target).values(report=write[2]))


def counted(conn) -> dict:
    """The hourly counts, without those at 0 (kept as changes for readers)."""
    hours = report_hours.c
    return {(str(day), hour, name, report): count
            for day, hour, name, report, count in conn.execute(
                sa.select(hours.day, hours.hour, hours.name, hours.report, hours.report_count)
                .where(hours.report_count > 0))}


def stamps(conn) -> dict:
    return {(str(row.day), row.hour, row.name, row.report): (row.report_count, row.revision)
            for row in conn.execute(sa.select(report_hours))}


def current_revision(conn) -> int:
    return conn.execute(sa.select(data_revision.c.revision)).scalar_one()


def recounted(conn) -> dict:
    group = (reports.c.day, reports.c.hour, reports.c.name, reports.c.report)
    return {(str(day), hour, name, report): count
            for day, hour, name, report, count in conn.execute(sa.select(*group, sa.func.count()).group_by(*group))}


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


catalogs = st.lists(st.sampled_from(["AO-91", "SO-50", "ISS-FM"]), unique=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(writes, st.tuples(st.just("catalog"), catalogs)), min_size=1, max_size=12))
def test_summary_brought_up_to_date_equals_a_whole_read(migrated_engine, sequence):
    """After each write (reports, or the catalog's display names) the answer updated from the
    previous one is byte for byte the answer read whole."""
    empty_all_tables(migrated_engine)
    window = (DAYS[0], 1)
    probe = RevisionProbe(migrated_engine)
    with connect(migrated_engine) as conn:
        answer = SummaryAnswer.of(report_store.summary(conn, window), 24)
    for number, write in enumerate(sequence):
        with connect(migrated_engine, write=True) as conn:
            if write[0] == "catalog":
                conn.execute(satellites.delete())
                for name in write[1]:
                    conn.execute(satellites.insert().values(api_name=name, display_name=f"{name} #{number}"))
            else:
                apply(conn, write)
        update = report_store.summary_changes(probe, window, answer.revision)
        with connect(migrated_engine) as conn:
            whole = SummaryAnswer.of(report_store.summary(conn, window), 24)
        updated = answer.updated(update)
        if updated is None:  # a name it had not seen, or the catalog changed: read whole
            assert write[0] == "catalog" or {row.name for row in update.groups} - set(answer.names)
            updated = whole
        assert updated.revision == whole.revision
        assert updated.body == whole.body
        answer = updated


def test_summary_reads_the_same_as_a_scan(engine):
    with connect(engine, write=True) as conn:
        for hour in (22, 23):
            for i, report in enumerate(["Heard", "Heard", "Not Heard", "Telemetry Only"]):
                report_store.store_submitted(conn, [dict(name="AO-91" if i else "ao-91", day=DAYS[0], hour=hour,
                                                         period=i, callsign="W1AW", report=report, grid_square=None)])
    with connect(engine) as conn:
        rows = report_store.summary(conn, (DAYS[0], 23)).groups
    newest = "2026-11-20T23:30:00Z"
    assert [(row.name, row.report, row.report_count, read_form_time_of_hour_number(row.latest))
            for row in rows] == [
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
            report_store.store_submitted(conn, [dict(
                name="AO-91", day=DAYS[0], hour=1, period=0, callsign=long_callsign, report="Heard",
                grid_square=None)])
    except sa.exc.DBAPIError:
        assert engine.dialect.name == "postgresql"
    with connect(engine) as conn:
        stored = conn.execute(sa.select(reports.c.callsign)).scalars().all()
    assert stored == ([] if engine.dialect.name == "postgresql" else [long_callsign])


def test_migration_counts_existing_reports(database_url, tmp_path):
    """An existing deployment upgrading to 0004 gets the counts of the reports it already holds."""
    if database_url.startswith("postgresql"):
        url, drop = fresh_postgres_database(POSTGRES_URL)
    else:
        url, drop = f"sqlite:///{tmp_path / 'old.db'}", lambda: None
    engine = create_engine(url)
    try:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0003")
            conn.execute(reports.insert(), [
                {"name": name, "day": DAYS[0], "hour": 5, "period": period, "callsign": "W1AW", "report": "Heard"}
                for period, name in enumerate(["AO-91", "AO-91", "SO-50"])])
            command.upgrade(config, "head")
        with connect(engine) as conn:
            assert counted(conn) == recounted(conn) == {
                (str(DAYS[0]), 5, "AO-91", "Heard"): 2, (str(DAYS[0]), 5, "SO-50", "Heard"): 1}
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql("TRUNCATE reports")
                assert counted(conn) == {}
    finally:
        engine.dispose()
        drop()
