"""store/events.py on SQLite and PostgreSQL: each 'cell' event read with the report that moved it
(derived when read: the newest report of the satellite in the cell's block, of the same write),
whatever position a read starts from, so that a client resuming anywhere gets each status change
once, the same as a client that never left."""

from __future__ import annotations

import orjson
import sqlalchemy as sa

from sathub import db
from sathub.status.rules import period_of_minute
from sathub.status.store import events as store
from sathub.status.store import writes
from sathub.status.stream.messages import messages
from tests.status.seed import hours_ago, seed_catalog, store_report


def row(name: str, hours: float, callsign: str, report: str) -> dict:
    when = hours_ago(hours)
    period = period_of_minute(when.minute)
    return dict(
        name=name, day=when.date(), hour=when.hour, period=period, callsign=callsign, report=report, grid_square=None
    )


def status_events(engine, after: int, chunk: int) -> list:
    """The status events after `after`, read `chunk` events at a time as a resuming client's
    catch-up reads them (stream/hub.py), each read starting after the last event read."""
    found = []
    with db.connect(engine) as conn:
        upto = store.watermark(conn)
        while rows := store.events_between(conn, after, upto, limit=chunk):
            found += [message for message in messages(rows) if b"event: status" in message.data]
            after = rows[-1].id
    return found


def test_each_change_once_with_its_report_from_any_position(engine):
    seed_catalog(engine)
    for name, hours, callsign, report in (
        ("AO-91", 4, "W1AW", "Not Heard"),
        ("AO-91", 0, "W5API", "Heard"),  # a newer cell: heard
        ("AO-91", 0, "K1ABC", "Heard"),  # the counts only
    ):
        store_report(engine, name, hours_ago(hours), callsign=callsign, report=report)
    with db.connect(engine, write=True) as conn:  # one statement: several satellites, a late report
        writes.store_submitted(
            conn,
            [
                row("FO-29", 0, "G4XYZ", "Telemetry Only"),
                row("AO-91", 0, "N0CALL", "Not Heard"),
                row("AO-91", 0, "G4XYZ", "Not Heard"),  # 2 beside 2: conflicting
                row("AO-91", 6, "JA1ABC", "Heard"),  # an older cell: not the cause
                row("ISS-FM", 2, "DL1ABC", "Crew Active"),
            ],
        )
    store_report(engine, "AO-91", hours_ago(0), callsign="K2ABC", report="Heard")  # 3 beside 2: heard

    everything = status_events(engine, 0, 1000)
    told = [(message.name_key, _body(message)["cell"]["status"], _cause(message)) for message in everything]
    assert sorted(told[:1] + told[5:]) == [
        ("ao-91", "heard", "K2ABC"),
        ("ao-91", "not_heard", "W1AW"),
    ]
    assert told[1] == ("ao-91", "heard", "W5API")
    # One statement's changes: on PostgreSQL one cell event per satellite (the statement's last
    # report of the cell), on SQLite one per report that changed a status.
    assert ("ao-91", "conflicting", "G4XYZ") in told[2:5]
    assert {("fo-29", "telemetry", "G4XYZ"), ("iss-fm", "crew", "DL1ABC")} <= set(told[2:5])

    with db.connect(engine) as conn:
        last = store.watermark(conn)
    for after in range(last + 1):
        for chunk in (1, 2):
            resumed = status_events(engine, after, chunk)
            assert resumed == [message for message in everything if message.id > after], (after, chunk)


def test_a_write_with_no_report_in_the_cell_it_made_current_names_none(engine):
    """A satellite's first cell event, for a late report of a satellite whose reports were stored
    before the events were recorded (no cell recorded for it yet): its current cell is its latest
    report's, which the write did not touch."""
    seed_catalog(engine)
    store_report(engine, "AO-91", hours_ago(0), callsign="W5API")
    with db.connect(engine, write=True) as conn:
        for table in ("report_events", "report_event_cells"):  # as if stored before migration 0009
            conn.execute(sa.text(f"DELETE FROM {table}"))
        start = store.watermark(conn)
    store_report(engine, "AO-91", hours_ago(6), callsign="W1AW", report="Not Heard")
    (change,) = status_events(engine, start, 1000)
    body = _body(change)
    assert (body["cell"]["status"], body["previous"], body["report"]) == ("heard", None, None)


def _body(message) -> dict:
    return orjson.loads(message.data.split(b"data: ", 1)[1])


def _cause(message) -> str | None:
    report = _body(message)["report"]
    return None if report is None else report["callsign"]
