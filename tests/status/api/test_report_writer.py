"""What the writer thread runs for POST /api/v1/reports.php (api/report_writer.py), on a write
connection of the test's own: the client's count comes first and keeps refused POSTs (as
submit.php counts its refusals), a client beyond its limit gets 429 with Retry-After, 0 is no
limit, and the checked reports are stored together, each in its slot."""

import types

import pytest

from sathub import db
from sathub.status import rate_limit
from sathub.status.api import report_writer
from sathub.status.api.responses import ApiError
from tests.status.seed import hours_ago

CLIENT = "api:192.0.2.7"


def fields(callsign: str = "W1AW", at: str = "") -> dict:
    at = at or hours_ago(1).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"name": "AO-91", "report": "heard", "callsign": callsign, "reported_at": at}


@pytest.fixture
def frozen(monkeypatch) -> float:
    """Every count in one window, 30 s before it ends: Retry-After is then 30."""
    now = rate_limit.window_start(1_800_000_000) + 30.0
    monkeypatch.setattr(report_writer, "time", types.SimpleNamespace(time=lambda: now))
    return now


def refusal(conn, given, client: str, limit: int) -> ApiError:
    with pytest.raises(ApiError) as raised:
        report_writer.check_report(conn, given, client, limit)
    return raised.value


def test_refused_posts_count_and_the_one_beyond_the_limit_is_429(seeded, frozen):
    with db.connect(seeded, write=True) as conn:
        assert report_writer.check_report(conn, fields(), CLIENT, 3).name == "AO-91"
        assert refusal(conn, {**fields(), "name": ""}, CLIENT, 3).code == "missing_name"
        unreadable = ApiError(400, "invalid_json", "The request body must be a JSON object.")
        assert refusal(conn, unreadable, CLIENT, 3) is unreadable
        beyond = refusal(conn, fields(), CLIENT, 3)
        assert (beyond.status, beyond.code, beyond.headers) == (429, "rate_limited", {"Retry-After": "30"})
        assert report_writer.check_report(conn, fields(), "api:192.0.2.8", 3).callsign == "W1AW"  # counted apart
        assert report_writer.check_report(conn, fields(), CLIENT, 0).report == "Heard"  # 0: no limit


def test_the_checked_reports_are_stored_together_each_in_its_slot(seeded):
    at = hours_ago(1).strftime("%Y-%m-%dT%H:%M:%SZ")  # one quarter-hour for all three
    with db.connect(seeded, write=True) as conn:
        accepted = [report_writer.check_report(conn, fields(call, at), CLIENT, 0) for call in ("W1AW", "K1ABC", "W1AW")]
        stored = report_writer.store_reports(conn, accepted)
    assert [checked for checked, _ in stored] == accepted
    (first, one), (_, other), (_, again) = stored
    assert first.callsign == "W1AW" and len({one.id, other.id, again.id}) == 3
    # the third is the first's slot again (same satellite, quarter-hour and callsign): it replaces it
    assert (one.replaced_count, other.replaced_count, again.replaced_count) == (0, 0, 1)
