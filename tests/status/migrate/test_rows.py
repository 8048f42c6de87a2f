"""The pure rules of import-legacy: cleaning one upstream row, catalog names, the slot window."""

from datetime import date, datetime

import pytest

from sathub.status.migrate.rows import SlotWindow, catalog_names, clean_report, slot_key

GOOD = {
    "name": "AO-91",
    "day": "2024-03-01",
    "hour": "5",
    "period": "2",
    "callsign": "W1AW",
    "report": "Heard",
    "grid_square": "FN31",
}
API_NAMES = catalog_names(
    [
        {"api_name": "AO-91", "display_name": "AO-91 FM", "aliases": []},
        {"api_name": "AO-7_[U/v]", "display_name": "AO-7 Mode B", "aliases": ["[B]_AO-7"]},
    ]
)


def test_a_good_csv_row_becomes_a_typed_report():
    assert clean_report(GOOD, API_NAMES) == {
        "name": "AO-91",
        "day": date(2024, 3, 1),
        "hour": 5,
        "period": 2,
        "callsign": "W1AW",
        "report": "Heard",
        "grid_square": "FN31",
    }


def test_typed_mariadb_values_are_taken_as_they_are():
    row = {
        **GOOD,
        "day": datetime(2024, 3, 1, 0, 0),
        "hour": 23,
        "period": 0,
        "callsign": b" k1abc ",
        "grid_square": None,
    }
    assert clean_report(row, API_NAMES) == {
        "name": "AO-91",
        "day": date(2024, 3, 1),
        "hour": 23,
        "period": 0,
        "callsign": "k1abc",
        "report": "Heard",
        "grid_square": None,
    }


@pytest.mark.parametrize(
    "stored, api_name",
    [
        ("ao-91", "AO-91"),
        ("AO-91  ", "AO-91"),
        ("ao-91 fm", "AO-91"),
        ("[b]_ao-7", "AO-7_[U/v]"),
        ("AO-7 MODE B", "AO-7_[U/v]"),
        ("XX-1", "XX-1"),
        (" xx-1 ", "xx-1"),
    ],
)
def test_names_resolve_to_the_catalog_api_name_else_stay(stored, api_name):
    assert clean_report({**GOOD, "name": stored}, API_NAMES)["name"] == api_name


def test_api_names_win_over_display_names_over_aliases():
    names = catalog_names(
        [
            {"api_name": "A", "display_name": "B", "aliases": ["C"]},
            {"api_name": "B", "display_name": "C", "aliases": ["D"]},
            {"api_name": "E", "display_name": "E2", "aliases": ["D"]},
        ]
    )
    assert names == {"a": "A", "b": "B", "c": "B", "d": "B", "e": "E", "e2": "E"}


@pytest.mark.parametrize("report", ["heard", " Telemetry Only ", "no signal", "ISS crew (voice) active"])
def test_report_values_and_their_aliases_are_canonicalized(report):
    assert clean_report({**GOOD, "report": report}, API_NAMES)["report"] in (
        "Heard",
        "Telemetry Only",
        "Not Heard",
        "Crew Active",
    )


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"name": None}, "empty satellite name"),
        ({"name": "  "}, "empty satellite name"),
        ({"name": "N" * 256}, "satellite name too long"),
        ({"day": "0000-00-00"}, "bad day"),
        ({"day": "2024-02-30"}, "bad day"),
        ({"day": "01/03/2024"}, "bad day"),
        ({"day": None}, "bad day"),
        ({"hour": "24"}, "hour outside 0-23"),
        ({"hour": -1}, "hour outside 0-23"),
        ({"hour": "5.5"}, "hour outside 0-23"),
        ({"hour": ""}, "hour outside 0-23"),
        ({"period": "4"}, "period outside 0-3"),
        ({"period": None}, "period outside 0-3"),
        ({"callsign": ""}, "empty callsign"),
        ({"callsign": None}, "empty callsign"),
        ({"callsign": "W" * 33}, "callsign too long"),
        ({"report": "Maybe"}, "unknown report value"),
        ({"report": "not  heard"}, "unknown report value"),
        ({"grid_square": "FN31pr12a"}, "grid square too long"),
    ],
)
def test_bad_rows_give_their_reason(change, reason):
    assert clean_report({**GOOD, **change}, API_NAMES) == reason


def test_grid_squares_are_kept_as_stored_empty_and_null_apart():
    assert clean_report({**GOOD, "grid_square": ""}, API_NAMES)["grid_square"] == ""
    assert clean_report({**GOOD, "grid_square": None}, API_NAMES)["grid_square"] is None
    assert clean_report({**GOOD, "grid_square": "fn31PR"}, API_NAMES)["grid_square"] == "fn31PR"


def test_the_slot_ignores_case_of_name_and_callsign_but_not_value_or_grid():
    report = clean_report(GOOD, API_NAMES)
    assert slot_key(report) == slot_key(
        {**report, "name": "ao-91", "callsign": "w1aw", "report": "Not Heard", "grid_square": None}
    )
    assert slot_key(report) != slot_key({**report, "period": 3})


def report(callsign, value="Heard", period=0):
    return {
        "name": "AO-91",
        "day": date(2024, 3, 1),
        "hour": 5,
        "period": period,
        "callsign": callsign,
        "report": value,
        "grid_square": "",
    }


def test_the_window_lets_the_later_row_of_a_slot_win_before_anything_is_written():
    window = SlotWindow(2)
    assert window.add(report("W1AW")) == []
    assert window.add(report("K1ABC")) == []
    assert window.add(report("w1aw", "Not Heard")) == []  # supersedes the first, moves to the end
    assert window.add(report("N0CALL")) == []
    assert window.add(report("KB1XYZ")) == [report("K1ABC"), report("w1aw", "Not Heard")]
    assert window.superseded == 1
    assert window.drain() == [report("N0CALL"), report("KB1XYZ")]
    assert window.drain() == []
