"""status/stream/messages.py: what a row of report_events becomes on the wire, the grid's rule
deciding which cell changes a client sees, the filters, and Last-Event-ID as clients send it."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import orjson
import pytest

from sathub.status.stream.messages import Filter, gap, messages, parse_last_event_id

DAY = date(2026, 5, 23)
EMPTY = dict.fromkeys(
    [
        "action",
        "report_id",
        "period",
        "callsign",
        "report",
        "grid_square",
        "visible",
        "previous_report",
        "heard",
        "telemetry",
        "not_heard",
        "crew",
        "before_day",
        "before_hour",
        "before_heard",
        "before_telemetry",
        "before_not_heard",
        "before_crew",
        "cause_report_id",  # a cell row's report that moved it (store/events.py); tests/status/notify/test_changes.py
        "cause_day",
        "cause_hour",
        "cause_period",
        "cause_callsign",
        "cause_report",
        "cause_grid_square",
        "cause_visible",
    ]
)


def row(**values):
    fixed = {"stored_at": 1779525000, "name": "AO-91", "display_name": "AO-91 Mode U/v FM", "day": DAY, "hour": 8}
    return SimpleNamespace(**{**EMPTY, **fixed, **values})


def cell(heard=0, telemetry=0, not_heard=0, crew=0, before=None, **values):
    counts = dict(heard=heard, telemetry=telemetry, not_heard=not_heard, crew=crew)
    if before is not None:
        counts |= {f"before_{key}": value for key, value in before.items()}
        counts |= {"before_day": DAY, "before_hour": 8}
    return row(kind="cell", **counts, **values)


def parsed(data: bytes) -> tuple[dict, dict]:
    fields = dict(line.split(": ", 1) for line in data.decode().strip().split("\n"))
    return fields, orjson.loads(fields["data"])


def test_a_report_event():
    (message,) = messages(
        [
            row(
                id=7,
                kind="report",
                action="replaced",
                report_id=41,
                period=1,
                callsign="W5API",
                report="Not Heard",
                grid_square="EM25",
                visible=False,
                previous_report="Heard",
            )
        ]
    )
    fields, body = parsed(message.data)
    assert (fields["id"], fields["event"]) == ("7", "report")
    assert body == {
        "event_id": 7,
        "action": "replaced",
        "stored_at": "2026-05-23T08:30:00Z",
        "report": {  # the record of GET /api/v2/reports
            "id": 41,
            "name": "AO-91",
            "display_name": "AO-91 Mode U/v FM",
            "reported_time": "2026-05-23T08:30:00Z",  # the read form: minute 30 of the hour (v1)
            "period": 1,
            "callsign": "W5API",
            "report": "Not Heard",
            "grid_square": "EM25",
            "visible": False,  # as the report row has it (store/events.py)
        },
        "replaced_report": "Heard",
    }
    assert message.data.endswith(b"\n\n")


def test_a_status_event_when_the_page_would_show_another_colour():
    # 1 heard then 1 heard + 1 not heard: section 7's rule gives "conflicting" (no majority)
    (message,) = messages([cell(id=9, heard=1, not_heard=1, before=dict(heard=1, telemetry=0, not_heard=0, crew=0))])
    fields, body = parsed(message.data)
    assert fields["event"] == "status"
    assert body["cell"] == {
        "start": "2026-05-23T08:00:00Z",
        "end": "2026-05-23T10:00:00Z",  # exclusive, as GET /api/v2/status's cells
        "status": "conflicting",
        "counts": {"Heard": 1, "Telemetry Only": 0, "Not Heard": 1, "Crew Active": 0},
    }
    assert (body["name"], body["display_name"]) == ("AO-91", "AO-91 Mode U/v FM")
    assert body["previous"]["status"] == "heard"


def test_counts_that_change_no_colour_send_nothing():
    assert messages([cell(id=9, heard=3, before=dict(heard=2, telemetry=0, not_heard=0, crew=0))]) == []


def test_the_first_cell_and_crew_win():
    (message,) = messages([cell(id=3, heard=5, crew=1)])
    _, body = parsed(message.data)
    assert (body["cell"]["status"], body["previous"]) == ("crew", None)


def test_filters():
    report = messages([row(id=1, kind="report", action="created", report="Heard", name="AO-91")])[0]
    status = messages([cell(id=2, not_heard=2, name="FO-29")])[0]
    assert Filter().wants(report) and Filter().wants(status)
    assert Filter(names=frozenset({"ao-91"})).wants(report)
    assert not Filter(names=frozenset({"ao-91"})).wants(status)
    assert Filter(statuses=frozenset({"Not Heard"})).wants(status)
    assert not Filter(statuses=frozenset({"Not Heard"})).wants(report)


def test_gap():
    fields, body = parsed(gap(10, 25))
    assert fields["event"] == "gap" and "id" not in fields
    assert (body["after"], body["resumed_at"]) == (10, 25)


@pytest.mark.parametrize(
    ("raw", "position"),
    [
        (None, None),
        ("", None),
        ("  ", None),
        ("42", 42),
        (" 7 ", 7),
        ("9223372036854775807", 2**63 - 1),  # the largest id report_events.id (BIGINT) holds
        ("0" * 30 + "42", 42),
    ],
)
def test_last_event_id(raw, position):
    assert parse_last_event_id(raw) == position


@pytest.mark.parametrize("raw", ["-1", "1.5", "abc", "١٢", "9" * 19, "9223372036854775808", "1" * 5000, "0x10"])
def test_last_event_id_refused(raw):
    with pytest.raises(ValueError):
        parse_last_event_id(raw)
