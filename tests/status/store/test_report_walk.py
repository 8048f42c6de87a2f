"""The SQL of the reports read by a filter (store/report_walk.py), on SQLite and PostgreSQL: the
walk's keyset pages in the order docs/api-v2.md states (day, hour, quarter, then satellite and
callsign case-folded), a walk of named satellites, and the locators of a window counted per value.
The expected order is written out here, not computed by the code under test."""

from datetime import UTC, datetime

from sathub import db
from sathub.status.store.report_walk import ReportFilter, located_hours, report_page
from tests.status.seed import seed_catalog, store_report

AT = datetime(2026, 11, 25, 20, 5, tzinfo=UTC)  # period 0 of 20:00
EVERY_REPORT = ReportFilter()


def seeded_walk(engine) -> None:
    seed_catalog(engine)
    store_report(engine, "FO-29", AT, callsign="k1abc", grid="PM95")
    store_report(engine, "AO-91", AT, callsign="W1AW", grid="FN31")
    store_report(engine, "AO-91", AT.replace(minute=50), callsign="A1A", report="Not Heard", grid="FN31")
    store_report(engine, "ao-91", AT.replace(hour=18), callsign="N0CALL", grid="")
    store_report(engine, "ISS-FM", AT.replace(day=24), callsign="W1AW", grid="FN31")


def walk(engine, where=EVERY_REPORT, ascending=True, limit=2) -> list[tuple[str, str]]:
    """Every report of a walk in pages of `limit`, each page after the last key of the one before."""
    found, after = [], None
    with db.connect(engine) as conn:
        while True:
            rows = report_page(conn, where, ascending=ascending, after=after, limit=limit)
            found += [(row.name, row.callsign) for row in rows]
            if len(rows) < limit:
                return found
            last = rows[-1]
            after = (last.day, last.hour, last.period, last.name_key, last.callsign_key)


def test_a_walk_in_pages_is_in_slot_order_once(engine):
    seeded_walk(engine)
    oldest_first = [
        ("ISS-FM", "W1AW"),  # the 24th
        ("ao-91", "N0CALL"),  # the 25th, 18:00
        ("AO-91", "W1AW"),  # 20:00 period 0: ao-91 before fo-29
        ("FO-29", "k1abc"),
        ("AO-91", "A1A"),  # 20:00 period 3
    ]
    assert walk(engine) == oldest_first
    assert walk(engine, ascending=False, limit=3) == oldest_first[::-1]


def test_a_walk_of_names_matches_them_case_folded(engine):
    seeded_walk(engine)
    assert walk(engine, ReportFilter(names=("AO-91", "ao-91"))) == [
        ("ao-91", "N0CALL"),
        ("AO-91", "W1AW"),
        ("AO-91", "A1A"),
    ]
    where = ReportFilter(names=("ao-91",), callsign="W1AW", first=(AT.date(), 19), last=(AT.date(), 20))
    assert walk(engine, where) == [("AO-91", "W1AW")]


def test_the_located_hours_of_a_window_per_locator_and_value(engine):
    seeded_walk(engine)
    with db.connect(engine) as conn:
        located = located_hours(conn, (AT.date(), 0), ())
        named = located_hours(conn, (AT.date(), 0), ("FO-29",))
    counts = sorted((row.grid_square, row.report, row.report_count) for row in located)
    # the ISS-FM report is the day before the window; an empty locator is no locator
    assert counts == [("FN31", "Heard", 1), ("FN31", "Not Heard", 1), ("PM95", "Heard", 1)]
    assert [(row.grid_square, row.report_count) for row in named] == [("PM95", 1)]
