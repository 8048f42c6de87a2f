"""`sathub status import-legacy`: from CSV exports and from a real MariaDB database of upstream's
schema, into SQLite and PostgreSQL (the `engine` fixture)."""

from __future__ import annotations

import os
import uuid
from collections import Counter
from datetime import date

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from sathub import db
from sathub.cli import main
from sathub.status.admin import passwords
from sathub.status.migrate import importer as legacy_import
from sathub.status.store import accounts as account_store
from sathub.status.store import catalog as catalog_store
from sathub.status.tables import report_totals, reports
from tests.status.seed import PHP_HASH, seed_catalog

MYSQL_URL = os.environ.get("SATHUB_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test")

HEADER = "id,name,longname,day,hour,period,callsign,report,grid_square,upmode,downmode"


def write_csv(tmp_path, *lines, name="satellite.csv"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def stored(engine) -> list[tuple]:
    with engine.connect() as conn:
        return [
            tuple(row)
            for row in conn.execute(
                sa.select(
                    reports.c.name,
                    reports.c.day,
                    reports.c.hour,
                    reports.c.period,
                    reports.c.callsign,
                    reports.c.report,
                    reports.c.grid_square,
                ).order_by(reports.c.id)
            )
        ]


def ids(engine) -> list[int]:
    with engine.connect() as conn:
        return conn.execute(sa.select(reports.c.id).order_by(reports.c.id)).scalars().all()


def assert_totals_exact(engine) -> None:
    """report_totals must equal what a full scan of reports says."""
    expected: dict[str, list] = {}
    with engine.connect() as conn:
        for key, day, hour in conn.execute(sa.select(sa.func.lower(reports.c.name), reports.c.day, reports.c.hour)):
            total = expected.setdefault(key, [0, (day, hour)])
            total[0] += 1
            total[1] = max(total[1], (day, hour))
        kept = {
            row.name_key: [row.report_count, (row.latest_day, row.latest_hour)]
            for row in conn.execute(sa.select(report_totals))
        }
    assert kept == expected


# --- CSV ---


@pytest.mark.parametrize(
    "header, separator",
    [
        (HEADER, ","),
        ("\ufeffID, Name ,LONGNAME,Day,Hour,Period,CallSign,Report,Grid_Square", ","),  # BOM, case, spaces
        ("name;day;hour;period;callsign;report;grid_square", ";"),
        ("id\tname\tlongname\tday\thour\tperiod\tcallsign\treport\tgrid_square", "\t"),  # mysql --batch
    ],
)
def test_csv_header_variants_and_extra_columns(engine, tmp_path, header, separator):
    columns = [name.strip().lstrip("\ufeff").lower() for name in header.split(separator)]
    values = {
        "id": "7",
        "name": "AO-91",
        "longname": "ignored",
        "day": "2024-03-01",
        "hour": "5",
        "period": "2",
        "callsign": "W1AW",
        "report": "Heard",
        "grid_square": "NULL",
        "upmode": "x",
        "downmode": "y",
    }
    line = separator.join(values[column] for column in columns)
    summary = legacy_import.run(engine, write_csv(tmp_path, header, line))
    assert (summary.rows_read, summary.stored_new) == (1, 1)
    assert stored(engine) == [("AO-91", date(2024, 3, 1), 5, 2, "W1AW", "Heard", None)]


def test_csv_duplicates_in_one_slot_keep_the_later_and_a_second_run_adds_nothing(engine, tmp_path):
    source = write_csv(
        tmp_path,
        HEADER,
        "1,AO-91,AO-91,2024-03-01,5,0,W1AW,Heard,FN31,,",
        "2,FO-29,FO-29,2024-03-01,5,0,W1AW,Heard,FN31,,",
        "3,ao-91,ao-91,2024-03-01,5,0,w1aw,Not Heard,,,",  # same slot as row 1, later: wins
        "4,AO-91,AO-91,2024-03-01,6,1,K1ABC,Telemetry Only,NULL,,",
        "5,AO-91,AO-91,2024-03-02,0,0,K1ABC,Heard,\\N,,",
    )
    first = legacy_import.run(engine, source)
    assert (first.rows_read, first.stored_new, first.superseded, first.already_present, first.replaced) == (
        5,
        4,
        1,
        0,
        0,
    )
    assert stored(engine) == [
        ("FO-29", date(2024, 3, 1), 5, 0, "W1AW", "Heard", "FN31"),
        ("ao-91", date(2024, 3, 1), 5, 0, "w1aw", "Not Heard", ""),
        ("AO-91", date(2024, 3, 1), 6, 1, "K1ABC", "Telemetry Only", None),
        ("AO-91", date(2024, 3, 2), 0, 0, "K1ABC", "Heard", None),
    ]
    assert_totals_exact(engine)
    before = ids(engine)

    second = legacy_import.run(engine, source)
    assert (second.stored_new, second.already_present, second.replaced, second.superseded) == (0, 4, 0, 1)
    assert ids(engine) == before
    assert_totals_exact(engine)
    assert "stored new:       0" in second.describe()


def test_csv_names_take_the_catalog_api_name(engine, tmp_path):
    seed_catalog(engine, aliases=[("AO-91[FM]", "AO-91")])
    source = write_csv(
        tmp_path,
        HEADER,
        "1,ao-91,,2024-03-01,5,0,W1AW,Heard,,,",
        "2,iss voice repeater,,2024-03-01,5,0,W1AW,Heard,,,",  # a display name
        "3,ao-91[fm],,2024-03-01,5,1,W1AW,Heard,,,",  # a retired name
        "4,Unknown-Sat,,2024-03-01,5,0,W1AW,Heard,,,",
    )
    legacy_import.run(engine, source)
    assert [row[0] for row in stored(engine)] == ["AO-91", "ISS-FM", "AO-91", "Unknown-Sat"]
    assert_totals_exact(engine)


def test_csv_bad_rows_are_skipped_and_counted_by_reason(engine, tmp_path):
    source = write_csv(
        tmp_path,
        HEADER,
        "1,AO-91,,0000-00-00,5,0,W1AW,Heard,,,",
        "2,AO-91,,2024-02-30,5,0,W1AW,Heard,,,",
        "3,AO-91,,2024-03-01,24,0,W1AW,Heard,,,",
        "4,AO-91,,2024-03-01,5,4,W1AW,Heard,,,",
        "5,AO-91,,2024-03-01,5,0,W1AW,Maybe,,,",
        "6,AO-91,,2024-03-01,5,0,  ,Heard,,,",
        "7,AO-91",  # a truncated line
        "",
        "8,AO-91,,2024-03-01,5,0,W1AW,Heard,FN31,,",
    )
    summary = legacy_import.run(engine, source)
    assert summary.rows_read == 8
    assert summary.skipped == Counter(
        {"bad day": 3, "hour outside 0-23": 1, "period outside 0-3": 1, "unknown report value": 1, "empty callsign": 1}
    )
    assert "    bad day: 3" in summary.describe()
    assert stored(engine) == [("AO-91", date(2024, 3, 1), 5, 0, "W1AW", "Heard", "FN31")]


def test_csv_text_postgresql_cannot_hold_is_stored_alike_on_both(engine, tmp_path):
    source = write_csv(tmp_path, HEADER, "1,AO-91,,2024-03-01,5,0,W1\x00AW,Heard,FN\x0031,,")
    assert legacy_import.run(engine, source).stored_new == 1
    assert stored(engine) == [("AO-91", date(2024, 3, 1), 5, 0, "W1\ufffdAW", "Heard", "FN\ufffd31")]
    assert legacy_import.run(engine, source).already_present == 1


def test_csv_duplicates_further_apart_than_the_window_still_keep_the_later(engine, tmp_path):
    others = [f"{hour},AO-91,,2024-03-01,{hour},0,W1AW,Heard,,," for hour in range(2, 9)]
    source = write_csv(
        tmp_path, HEADER, "1,AO-91,,2024-03-01,1,0,W1AW,Not Heard,,,", *others, "9,AO-91,,2024-03-01,1,0,W1AW,Heard,,,"
    )
    summary = legacy_import.run(engine, source, batch_size=2)  # holds 4 slots: hour 1 is long written
    assert (summary.stored_new, summary.replaced, summary.superseded) == (8, 1, 0)
    assert [(row[2], row[5]) for row in stored(engine)][-1] == (1, "Heard")
    assert_totals_exact(engine)


def test_a_csv_without_the_needed_columns_is_refused(engine, tmp_path):
    source = write_csv(tmp_path, "id,name,day,hour,callsign,report", "1,AO-91,2024-03-01,5,W1AW,Heard")
    with pytest.raises(legacy_import.SourceError, match="period, grid_square"):
        legacy_import.run(engine, source)
    result = CliRunner().invoke(
        main, ["status", "import-legacy", str(tmp_path / "missing.csv"), "--database-url", database_url_of(engine)]
    )
    assert result.exit_code == 1 and "Cannot read" in result.output


def test_slots_that_only_postgresql_folds_together_do_not_fail_the_batch(engine, tmp_path):
    # PostgreSQL lower('İ') is 'i'; SQLite's lower() and our slot keys fold ASCII only.
    source = write_csv(
        tmp_path, HEADER, "1,İSS,,2024-03-01,5,0,W1AW,Heard,,,", "2,iSS,,2024-03-01,5,0,W1AW,Not Heard,,,"
    )
    summary = legacy_import.run(engine, source)
    if engine.dialect.name == "postgresql":
        assert stored(engine) == [("iSS", date(2024, 3, 1), 5, 0, "W1AW", "Not Heard", "")]
        assert (summary.stored_new, summary.replaced) == (1, 1)
    else:
        assert [row[0] for row in stored(engine)] == ["İSS", "iSS"]
    assert_totals_exact(engine)


def database_url_of(engine) -> str:
    return engine.url.render_as_string(hide_password=False)


# --- MariaDB ---

UPSTREAM_SCHEMA = [
    """CREATE TABLE satellite_name (
         id int(11) NOT NULL AUTO_INCREMENT PRIMARY KEY,
         name varchar(255) NOT NULL,
         html_element_name varchar(255) NOT NULL,
         website varchar(255) NOT NULL DEFAULT ''
       ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci""",
    """CREATE TABLE satellite (
         id int(11) NOT NULL AUTO_INCREMENT PRIMARY KEY,
         name varchar(25) NOT NULL,
         longname varchar(50) DEFAULT NULL,
         day date DEFAULT NULL,
         hour int(2) DEFAULT NULL,
         period int(1) DEFAULT NULL,
         callsign varchar(14) DEFAULT NULL,
         report varchar(25) DEFAULT NULL,
         grid_square varchar(6) DEFAULT NULL,
         upmode varchar(10) DEFAULT NULL,
         downmode varchar(10) DEFAULT NULL
       ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci""",
    """CREATE TABLE users (
         id int(11) NOT NULL AUTO_INCREMENT PRIMARY KEY,
         username varchar(50) NOT NULL,
         password varchar(255) NOT NULL,
         email varchar(100) DEFAULT NULL
       ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci""",
]
UPSTREAM_CATALOG = [("AO-91 FM", "AO-91", "https://www.amsat.org/ao-91/"), ("ISS Voice", "ISS-FM", ""), ("", "", "")]
UPSTREAM_REPORTS = [  # id order; (name, day, hour, period, callsign, report, grid_square)
    ("AO-91", "2024-03-01", 5, 0, "W1AW", "Heard", "FN31"),
    ("ao-91 ", "2024-03-01", 5, 0, "w1aw", "Not Heard", None),  # same slot: the later wins
    ("iss voice", "2024-03-01", 5, 1, "K1ABC", "Telemetry Only", ""),  # display name, any case
    ("Old-Sat", "2024-03-01", 6, 3, "N0CALL", "Crew Active", None),  # not in the catalog: kept
    ("AO-91", "2024-03-02", 0, 2, "K1ABC", "Heard", "EM48ab"),
    ("AO-91", "0000-00-00", 1, 0, "K1ABC", "Heard", ""),
    ("AO-91", "2024-03-02", 25, 0, "K1ABC", "Heard", ""),
    ("AO-91", "2024-03-02", 1, 7, "K1ABC", "Heard", ""),
    ("AO-91", "2024-03-02", 1, 0, "K1ABC", "Sometimes", ""),
    ("AO-91", "2024-03-02", 1, 0, None, "Heard", ""),
]
EXPECTED_REPORTS = [
    ("ISS-FM", date(2024, 3, 1), 5, 1, "K1ABC", "Telemetry Only", ""),
    ("Old-Sat", date(2024, 3, 1), 6, 3, "N0CALL", "Crew Active", None),
    ("AO-91", date(2024, 3, 1), 5, 0, "w1aw", "Not Heard", None),
    ("AO-91", date(2024, 3, 2), 0, 2, "K1ABC", "Heard", "EM48ab"),
]


@pytest.fixture(scope="module")
def upstream_url():
    """A database of upstream's schema and data on the MariaDB server, dropped afterwards."""
    server = sa.create_engine(db.normalize_url(MYSQL_URL), isolation_level="AUTOCOMMIT")
    try:
        server.connect().close()
    except sa.exc.DBAPIError as exc:
        pytest.skip(f"MariaDB at {MYSQL_URL} is unreachable ({exc.orig}); set SATHUB_TEST_MYSQL_URL")
    name = f"sathub_legacy_{uuid.uuid4().hex[:12]}"
    with server.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name} CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci")
    url = db.normalize_url(MYSQL_URL).set(database=name)
    upstream = sa.create_engine(url)
    admin_hash = PHP_HASH  # made by PHP (its manual's example for password_verify)
    with upstream.begin() as conn:
        conn.exec_driver_sql("SET SESSION sql_mode = ''")  # upstream's old rows include zero dates
        for statement in UPSTREAM_SCHEMA:
            conn.exec_driver_sql(statement)
        conn.execute(
            sa.text("INSERT INTO satellite_name (name, html_element_name, website) VALUES (:n, :h, :w)"),
            [{"n": n, "h": h, "w": w} for n, h, w in UPSTREAM_CATALOG],
        )
        conn.execute(
            sa.text(
                "INSERT INTO satellite (name, longname, day, hour, period, callsign, report, "
                "grid_square) VALUES (:n, :n, :d, :h, :p, :c, :r, :g)"
            ),
            [dict(zip("ndhpcrg", row, strict=True)) for row in UPSTREAM_REPORTS],
        )
        conn.execute(
            sa.text("INSERT INTO users (username, password, email) VALUES (:u, :p, :e)"),
            [
                {"u": "admin", "p": admin_hash, "e": None},
                {"u": "", "p": "x", "e": ""},
                {"u": "ad\x00min", "p": admin_hash, "e": ""},  # a name no account here can hold
            ],
        )
    upstream.dispose()
    yield url.render_as_string(hide_password=False)
    with server.connect() as conn:
        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
    server.dispose()


def test_mariadb_import_through_the_command_line(engine, upstream_url):
    command = ["status", "import-legacy", upstream_url, "--database-url", database_url_of(engine)]
    first = CliRunner().invoke(main, command)
    assert first.exit_code == 0, first.output
    assert "Report rows read:   10" in first.output
    assert "stored new:       4" in first.output
    assert "superseded:       1" in first.output
    for line in (
        "bad day: 1",
        "hour outside 0-23: 1",
        "period outside 0-3: 1",
        "unknown report value: 1",
        "empty callsign: 1",
        "Satellites:     2 added, 1 skipped",
        "Administrators: 1 added, 2 skipped",
    ):
        assert line in first.output
    assert sorted(stored(engine), key=lambda row: (row[1], row[2], row[3])) == sorted(
        EXPECTED_REPORTS, key=lambda row: (row[1], row[2], row[3])
    )
    assert_totals_exact(engine)
    with engine.connect() as conn:
        assert [(row.api_name, row.display_name, row.website) for row in catalog_store.catalog(conn)] == [
            ("AO-91", "AO-91 FM", "https://www.amsat.org/ao-91/"),
            ("ISS-FM", "ISS Voice", ""),
        ]
        assert passwords.verify_password("rasmuslerdorf", account_store.password_hash_of(conn, "admin"))
    before = ids(engine)

    second = CliRunner().invoke(main, command)
    assert second.exit_code == 0, second.output
    assert "stored new:       0" in second.output and "already present:  4" in second.output
    assert "replaced:         0" in second.output
    assert "Satellites:     0 added, 2 unchanged, 1 skipped" in second.output
    assert "Administrators: 0 added, 1 unchanged, 2 skipped" in second.output
    assert ids(engine) == before


def test_mariadb_import_in_small_batches_matches(engine, upstream_url):
    seed_catalog(engine, rows=[{"name": "AO-91", "display_name": "Our AO-91", "website": ""}])
    with db.connect(engine, write=True) as conn:
        account_store.save_user(conn, "admin", passwords.hash_password("changed-here"))
    summary = legacy_import.run(engine, upstream_url, batch_size=2)
    assert (summary.rows_read, summary.stored_new, summary.superseded) == (10, 4, 1)
    assert sum(summary.skipped.values()) == 5
    assert summary.source.endswith(upstream_url.rsplit("/", 1)[1]) and "***" not in summary.source
    assert (summary.satellites.added, summary.satellites.updated) == (1, 1)  # upstream's display name wins
    assert summary.users.kept == 1  # a password set here is not undone
    assert len(stored(engine)) == 4
    assert_totals_exact(engine)
    with engine.connect() as conn:
        assert passwords.verify_password("changed-here", account_store.password_hash_of(conn, "admin"))


def test_a_database_without_upstream_tables_is_refused(engine, upstream_url):
    with pytest.raises(legacy_import.SourceError, match="no table `satellite`"):
        legacy_import.run(engine, MYSQL_URL.rsplit("/", 1)[0] + "/information_schema")
