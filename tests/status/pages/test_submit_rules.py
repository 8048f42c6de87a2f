"""The legacy form's pure rules (status-api.md section 8): fields, the checks in upstream's order
with its literal messages, the confirmation's values and its one-shot Yes link."""

from datetime import UTC, datetime

import pytest

from sathub.status.pages import submit_rules
from tests.status.seed import SUBMISSION as GOOD

NOW = datetime(2026, 5, 23, 8, 40, tzinfo=UTC)


def checked(**changes):
    return submit_rules.check({**GOOD, **changes}, NOW)


def test_fields_come_from_the_post_body_first_then_the_query_string():
    fields = submit_rules.read_fields({"SatName": "", "SatCall": "K1ABC"}, {"SatName": "AO-91", "SatReport": "Heard"})
    assert (fields["SatName"], fields["SatCall"], fields["SatReport"], fields["Confirm"]) == ("", "K1ABC", "Heard", "")


@pytest.mark.parametrize("value, submitted", [("yes", True), ("Submit Data", True), ("", False), ("0", False)])
def test_only_a_truthy_satsubmit_does_anything(value, submitted):
    assert submit_rules.is_submitted({"SatSubmit": value}) is submitted


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"SatName": ""}, "You appear to be missing either the Satellite Name or Status Report."),
        ({"SatReport": ""}, "You appear to be missing either the Satellite Name or Status Report."),
        ({"SatReport": "Loud"}, "You appear to be missing either the Satellite Name or Status Report."),
        ({"SatCall": "  "}, "You must enter a callsign."),
        ({"SatCall": "NOT_A_CALL"}, "The callsign you entered does not appear to be valid"),
        ({"SatHour": "09"}, "The time heard you entered does not appear to be valid"),
        ({"SatDay": "24", "SatHour": "00"}, "The time heard you entered does not appear to be valid"),
        ({"SatMonth": "02", "SatDay": "30"}, "The time heard you entered does not appear to be valid"),
        ({"SatHour": "24"}, "The time heard you entered does not appear to be valid"),
        ({"SatPeriod": "4"}, "The time heard you entered does not appear to be valid"),
        ({"SatHour": "8am"}, "The time heard you entered does not appear to be valid"),
        ({"SatGridSquare": "ZZ99"}, "The grid square you entered does not appear to be valid"),
        ({"SatCall": "W1AW/AB.C"}, "Only special characters - and / allowed in callsign."),
    ],
)
def test_each_check_answers_with_upstreams_message(changes, message):
    result = checked(**changes)
    assert isinstance(result, submit_rules.Rejected) and result.message == message


def test_go_back_link_only_where_upstream_offers_it():
    assert checked(SatName="").go_back and not checked(SatCall="").go_back
    assert not checked(SatCall="W1AW/AB.C").go_back


def test_a_later_quarter_of_the_current_hour_passes_the_hour_granular_future_check():
    assert isinstance(checked(SatHour="8", SatPeriod="3"), submit_rules.Checked)


@pytest.mark.parametrize(
    "call, grid, stored_call, stored_grid",
    [
        ("W1AW", "fn42", "W1AW", "FN42"),
        ("w1aw/FN42", "", "w1aw", "FN42"),
        ("W1AW//FN42AB", "", "W1AW", "FN42ab"),
        ("W1AW", "fn31pr12", "W1AW", "FN31pr"),
        ("EA8/DL1ABC/QRPP", "", "EA8/DL1ABC/QRP", ""),
        ("i12345ab", "", "i12345ab", ""),
    ],
)
def test_callsign_and_grid_normalization(call, grid, stored_call, stored_grid):
    result = checked(SatCall=call, SatGridSquare=grid)
    assert (result.callsign, result.grid_square) == (stored_call, stored_grid)


def test_confirmation_values_and_the_yes_link():
    result = checked(
        SatName="AO-7_[U/v] x&y",
        SatReport="Not Heard",
        SatCall="w1aw",
        SatMonth="5",
        SatDay="3",
        SatHour="8",
        SatGridSquare="",
    )
    assert result.shown_date == "Sunday, 5-3-2026"
    assert result.shown_time == "8:31-:45"
    assert result.shown_grid == "* None entered *"
    assert checked().shown_report == "Transponder/Repeater active"
    assert result.yes_query() == (
        "SatSubmit=yes&Confirm=yes&SatName=AO-7_%5BU%2Fv%5D+x%26y&SatYear=2026&SatMonth=5"
        "&SatDay=3&SatHour=8&SatPeriod=2&SatCall=W1AW&SatReport=Not+Heard&SatGridSquare="
    )
