"""The stream's report events and `visible` (status/store/events.py, migration 0021), on SQLite and
PostgreSQL: an event reads `visible` from its report when it is read, a recheck (an UPDATE of
`visible` alone) records no event but moves the data revision, and a replacement is recorded as
before, its old event left saying null (its report is gone with its id)."""

from __future__ import annotations

import sqlalchemy as sa

from sathub import db
from sathub.status.store import events as store
from sathub.status.tables import data_revision, reports
from tests.status.seed import hours_ago, seed_catalog, set_visible, store_report


def events_after(engine, start: int):
    with db.connect(engine) as conn:
        return store.events_between(conn, start, store.watermark(conn))


def revision(engine) -> int:
    with db.connect(engine) as conn:
        return conn.execute(sa.select(data_revision.c.revision)).scalar_one()


def test_a_recheck_records_no_event_and_the_event_reads_the_new_value(engine):
    seed_catalog(engine)
    before = events_after(engine, 0)
    start = before[-1].id if before else 0
    report = store_report(engine, "AO-91", hours_ago(1), callsign="W5API", grid="EM25")
    (event, cell) = events_after(engine, start)
    assert (event.kind, event.report_id, event.visible) == ("report", report.id, None)
    moved = revision(engine)

    set_visible(engine, report.id, False)

    after = events_after(engine, start)
    assert [row.id for row in after] == [event.id, cell.id]  # nothing new: no report was stored
    assert after[0].visible is False
    assert revision(engine) > moved  # cached answers (and their ETags) are made again


def test_a_recheck_of_many_reports_in_one_statement_records_nothing(engine):
    seed_catalog(engine)
    for hours, callsign in ((1, "W1AW"), (2, "K1ABC"), (3, "DL1ABC")):
        store_report(engine, "FO-29", hours_ago(hours), callsign=callsign)
    with db.connect(engine) as conn:
        last = store.watermark(conn)
    with db.connect(engine, write=True) as conn:
        assert conn.execute(sa.update(reports).values(visible=True)).rowcount == 3
    assert events_after(engine, last) == []


def test_a_replacement_is_recorded_and_its_old_event_says_null(engine):
    seed_catalog(engine)
    when = hours_ago(0, minute=5)
    first = store_report(engine, "AO-91", when, callsign="W5API", report="Heard", grid="EM25")
    set_visible(engine, first.id, True)
    with db.connect(engine) as conn:
        start = store.watermark(conn)
    second = store_report(engine, "AO-91", when, callsign="W5API", report="Not Heard", grid="EM25")
    replaced = [row for row in events_after(engine, 0) if row.kind == "report"]
    assert [(row.report_id, row.action) for row in replaced] == [(first.id, "created"), (second.id, "replaced")]
    assert replaced[0].visible is None  # the first report is gone with its id
    set_visible(engine, second.id, False)
    assert [row.visible for row in events_after(engine, start) if row.kind == "report"] == [False]
    assert events_after(engine, start)[0].report_id == second.id
