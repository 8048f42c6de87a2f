"""Migration 0009's triggers and status/store/events.py, on SQLite and PostgreSQL: every door that
stores a report records its event in the same transaction, replacements say what they replaced,
the current cell is recorded when it changes, and ids are gap-free in commit order even when
transactions commit in another order than they began."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.status.store import events as store
from sathub.status.store import writes
from tests.status.seed import hours_ago, seed_catalog, store_report


def _all_events(engine):
    with db.connect(engine) as conn:
        return store.events_between(conn, 0, store.watermark(conn), limit=100_000)


def _since(engine, start: int):
    with db.connect(engine) as conn:
        return store.events_between(conn, start, store.watermark(conn), limit=100_000)


def _position(engine) -> int:
    with db.connect(engine) as conn:
        return store.watermark(conn)


def test_a_new_report_then_its_replacement(engine):
    seed_catalog(engine)
    start = _position(engine)
    when = hours_ago(0, minute=5)
    first = store_report(engine, "AO-91", when, callsign="W5API", report="Heard", grid="EM25")
    second = store_report(engine, "AO-91", when, callsign="W5API", report="Not Heard", grid="EM25")
    rows = _since(engine, start)
    assert [row.id for row in rows] == list(range(start + 1, start + 5))  # gap-free
    report, cell, replaced, cell_after = rows
    assert (report.kind, report.action, report.report_id, report.report, report.previous_report) == (
        "report",
        "created",
        first.id,
        "Heard",
        None,
    )
    assert (report.name, report.day, report.hour, report.period) == ("AO-91", when.date(), when.hour, 0)
    assert (report.callsign, report.grid_square) == ("W5API", "EM25")
    block = (when.hour // 2) * 2
    assert (cell.kind, cell.day, cell.hour, cell.heard, cell.not_heard, cell.before_day) == (
        "cell",
        when.date(),
        block,
        1,
        0,
        None,
    )
    assert (replaced.action, replaced.report_id, replaced.report, replaced.previous_report) == (
        "replaced",
        second.id,
        "Not Heard",
        "Heard",
    )
    assert (cell_after.heard, cell_after.not_heard) == (0, 1)
    assert (cell_after.before_heard, cell_after.before_not_heard) == (1, 0)
    assert (cell_after.before_day, cell_after.before_hour) == (when.date(), block)


def test_the_cell_moves_to_a_newer_block_but_not_for_an_older_one(engine):
    seed_catalog(engine)
    now = datetime.now(UTC).replace(minute=10, second=0, microsecond=0)
    store_report(engine, "FO-29", now - timedelta(hours=4))
    start = _position(engine)
    store_report(engine, "FO-29", now, callsign="K1AB")  # a newer block: the current cell moves
    store_report(engine, "FO-29", now - timedelta(hours=6), callsign="K2AB")  # an older block: it does not
    kinds = [(row.kind, row.name) for row in _since(engine, start)]
    assert kinds == [("report", "FO-29"), ("cell", "FO-29"), ("report", "FO-29")]
    cell = _since(engine, start)[1]
    assert (cell.hour, cell.before_hour) == ((now.hour // 2) * 2, ((now - timedelta(hours=4)).hour // 2) * 2)


def test_one_statement_of_many_reports_numbers_them_in_id_order(engine):
    """A group commit stores many reports in one statement (PostgreSQL: one statement trigger)."""
    seed_catalog(engine)
    start = _position(engine)
    when = hours_ago(1)
    rows = [
        dict(name=name, day=when.date(), hour=when.hour, period=1, callsign=f"W{n}AB", report="Heard", grid_square="")
        for n, name in enumerate(["AO-91", "FO-29", "AO-91", "ISS-FM"])
    ]
    with db.connect(engine, write=True) as conn:
        stored = writes.store_submitted(conn, rows)
    events = _since(engine, start)
    reports = [row for row in events if row.kind == "report"]
    assert [row.report_id for row in reports] == sorted(s.id for s in stored)
    assert [row.id for row in events] == list(range(start + 1, start + 1 + len(events)))
    # Each satellite's last cell holds what its block holds after the statement. PostgreSQL's
    # statement trigger records one cell per satellite; SQLite's triggers run per row, so AO-91's
    # cell changes with each of its two reports.
    cells = {row.name: row.heard for row in events if row.kind == "cell"}
    assert cells == {"AO-91": 2, "FO-29": 1, "ISS-FM": 1}
    ao_91 = [row.heard for row in events if row.kind == "cell" and row.name == "AO-91"]
    assert ao_91 == ([2] if engine.dialect.name == "postgresql" else [1, 2])


def test_an_import_records_its_reports_and_a_repeated_import_nothing(engine):
    seed_catalog(engine)
    when = hours_ago(3)
    rows = [
        dict(name="AO-91", day=when.date(), hour=when.hour, period=2, callsign="N0IMP", report="Heard", grid_square="")
    ]
    start = _position(engine)
    with db.connect(engine, write=True) as conn:
        writes.store_imported(conn, rows)
    assert [row.kind for row in _since(engine, start)] == ["report", "cell"]
    again = _position(engine)
    with db.connect(engine, write=True) as conn:
        writes.store_imported(conn, rows)
    assert _since(engine, again) == []


def test_a_rolled_back_write_leaves_no_event_and_no_gap(engine):
    seed_catalog(engine)
    start = _position(engine)
    when = hours_ago(2)
    row = dict(name="AO-91", day=when.date(), hour=when.hour, period=0, callsign="X1X", report="Heard", grid_square="")
    with pytest.raises(RuntimeError), db.connect(engine, write=True) as conn:
        writes.store_submitted(conn, [row])
        raise RuntimeError("rolled back")
    assert _position(engine) == start
    store_report(engine, "AO-91", when)
    assert [row.id for row in _since(engine, start)] == [start + 1, start + 2]


def test_pruning_deletes_only_what_is_older(engine):
    seed_catalog(engine)
    store_report(engine, "AO-91", hours_ago(1))
    rows = _all_events(engine)
    with db.connect(engine, write=True) as conn:
        older = sa.text("UPDATE report_events SET stored_at = stored_at - 49 * 3600 WHERE id = :id")
        conn.execute(older, {"id": rows[0].id})
        assert store.prune(conn, int(time.time()) - 48 * 3600) == 1
        assert store.oldest_kept(conn) == rows[1].id


def test_ids_are_gap_free_in_commit_order_under_concurrent_writers(engine):
    """Writers in threads, transactions held open for a while after they write; a reader that
    keeps only "the last id delivered" and reads up to the watermark must see every id exactly
    once, in order."""
    seed_catalog(engine)
    start = _position(engine)
    stop = threading.Event()
    seen: list[int] = []
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for k in range(15):
                when = hours_ago(k % 20)
                row = dict(
                    name="AO-91",
                    day=when.date(),
                    hour=when.hour,
                    period=k % 4,
                    callsign=f"W{n}X{k}",
                    report="Heard" if (n + k) % 2 else "Not Heard",
                    grid_square="",
                )
                with db.connect(engine, write=True) as conn:
                    writes.store_submitted(conn, [row])
                    time.sleep(0.003 * (n % 3))  # commit later than it wrote
        except BaseException as exc:
            errors.append(exc)

    def reader() -> None:
        position = start
        while not stop.is_set() or position < _position(engine):
            with db.connect(engine) as conn:
                upto = store.watermark(conn)
                rows = store.events_between(conn, position, upto, limit=100_000)
            seen.extend(row.id for row in rows)
            position = upto
            time.sleep(0.001)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    watcher = threading.Thread(target=reader)
    watcher.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    watcher.join()
    assert not errors
    end = _position(engine)
    assert seen == list(range(start + 1, end + 1))
    assert sum(1 for row in _since(engine, start) if row.kind == "report") == 60


def test_a_satellite_with_reports_from_before_the_events_keeps_its_latest_block_current(engine):
    """Reports stored before migration 0009 have no recorded cell: the current cell is then the
    block of the satellite's latest report (report_totals), not the older block a backfill touches."""
    seed_catalog(engine)
    now = datetime.now(UTC).replace(minute=10, second=0, microsecond=0)
    store_report(engine, "AO-91", now, callsign="K1ABC")
    with db.connect(engine, write=True) as conn:
        conn.execute(sa.text("DELETE FROM report_event_cells"))
    start = _position(engine)
    store_report(engine, "AO-91", now - timedelta(hours=10), callsign="K2ABC", report="Not Heard")
    cell = [row for row in _since(engine, start) if row.kind == "cell"]
    assert [(row.day, row.hour, row.heard, row.not_heard, row.before_day) for row in cell] == [
        (now.date(), (now.hour // 2) * 2, 1, 0, None)
    ]
