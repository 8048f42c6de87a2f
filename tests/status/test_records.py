"""What /api/v2 and the stream both send (status/records.py): a report's flat record, as
docs/api-v2.md shows GET /api/v2/reports' records and the stream's `report` events, and the
status words of its status table."""

from datetime import date

import pytest

from sathub.status.grid import Counts, block_state
from sathub.status.records import STATUS_OF_STATE, report_records


def test_a_report_is_a_flat_record_without_null_strings():
    # a row of the walk: its record's columns, then the walk's key columns (not sent)
    walked = (
        41,
        "AO-91",
        "AO-91 Mode U/v FM",
        date(2026, 11, 25),
        20,
        1,
        "W5API",
        "Heard",
        None,
        None,
        "ao-91",
        "W5API",
    )
    (record,) = report_records([walked])
    expected = {
        "id": 41,
        "name": "AO-91",
        "display_name": "AO-91 Mode U/v FM",
        "reported_time": "2026-11-25T20:30:00Z",  # minute 30 of the stored hour, whatever the period
        "period": 1,
        "callsign": "W5API",
        "report": "Heard",
        "grid_square": "",
        "visible": None,  # cannot tell (docs/orbits.md): null, neither false nor a string
    }
    assert record == expected and list(record) == list(expected)  # the order of the bytes sent, too


def test_rows_without_the_key_columns_and_with_a_locator():
    row = (7, "FO-29", "", date(2026, 1, 2), 3, 0, "JA1ABC", "Not Heard", "PM95", 1)
    assert report_records([row])[0]["grid_square"] == "PM95"
    assert report_records([row])[0]["reported_time"] == "2026-01-02T03:30:00Z"


@pytest.mark.parametrize(("stored", "sent"), [(True, True), (False, False), (1, True), (0, False), (None, None)])
def test_visible_is_a_json_boolean_or_null(stored, sent):
    # SQLite's driver may hand a BOOLEAN column back as 0 or 1: the record says true or false
    row = (7, "FO-29", "", date(2026, 1, 2), 3, 0, "JA1ABC", "Not Heard", "PM95", stored)
    assert report_records([row])[0]["visible"] is sent


@pytest.mark.parametrize(
    ("counts", "status"),
    [
        (Counts(crew=1, heard=3), "crew"),
        (Counts(heard=2, not_heard=1), "heard"),
        (Counts(not_heard=2, telemetry=1), "not_heard"),
        (Counts(telemetry=1), "telemetry"),
        (Counts(heard=1, not_heard=1), "conflicting"),
        (Counts(), "no_majority"),  # only reports of none of the four values
    ],
)
def test_the_documented_status_of_a_blocks_counts(counts, status):
    state, _ = block_state(counts)
    assert STATUS_OF_STATE[state.key] == status
