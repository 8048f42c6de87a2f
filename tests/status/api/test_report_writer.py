"""What the writer thread runs for POST /api/v1/reports.php (api/report_writer.py), on a write
connection of the test's own: the check step writes nothing; the store step counts the client
first and keeps refused POSTs (as submit.php counts its refusals), a client beyond its limit gets
429 with Retry-After whatever its body, 0 is no limit, and the accepted reports are stored
together, each in its slot."""

import types

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sathub import db
from sathub.status import rate_limit
from sathub.status.api import report_writer
from sathub.status.api.responses import ApiError
from sathub.status.tables import rate_limits
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


def posted(conn, *posts: tuple) -> list:
    """The outcomes of POSTs (fields, client, limit) that arrived together: checked, then stored."""
    return report_writer.store_reports(conn, [report_writer.check_report(conn, *post) for post in posts])


def counts(conn) -> dict[str, int]:
    return dict(conn.execute(sa.select(rate_limits.c.client, rate_limits.c.hits)).all())


def test_refused_posts_count_and_the_one_beyond_the_limit_is_429(seeded, frozen):
    unreadable = ApiError(400, "invalid_json", "The request body must be a JSON object.")
    with db.connect(seeded, write=True) as conn:
        [(accepted, _)] = posted(conn, (fields(), CLIENT, 3))
        assert accepted.name == "AO-91"
        [missing] = posted(conn, ({**fields(), "name": ""}, CLIENT, 3))
        assert missing.code == "missing_name"
        assert posted(conn, (unreadable, CLIENT, 3)) == [unreadable]
        [beyond] = posted(conn, (fields(), CLIENT, 3))
        assert (beyond.status, beyond.code, beyond.headers) == (429, "rate_limited", {"Retry-After": "30"})
        [beyond_and_unreadable] = posted(conn, (unreadable, CLIENT, 3))
        assert beyond_and_unreadable.status == 429  # the count comes before the body
        assert posted(conn, (fields(), "api:192.0.2.8", 3))[0][0].callsign == "W1AW"  # counted apart
        assert posted(conn, (fields(), CLIENT, 0))[0][0].report == "Heard"  # 0: no limit, not counted
        assert counts(conn) == {CLIENT: 5, "api:192.0.2.8": 1}


def test_the_check_step_writes_nothing(seeded, frozen):
    with db.connect(seeded, write=True) as conn:
        checked = [report_writer.check_report(conn, given, CLIENT, 3) for given in (fields(), {"name": ""})]
        assert counts(conn) == {}
    assert checked[0].body.callsign == "W1AW" and checked[1].body.code == "missing_name"


def test_posts_that_arrived_together_are_counted_in_one_statement_each_in_arrival_order(seeded, frozen):
    statements = []

    def count(conn, cursor, statement, *_):
        if "rate_limits" in statement and "CONFLICT" in statement:
            statements.append(statement)

    with db.connect(seeded, write=True) as conn:
        posted(conn, *[(fields(f"K{n}AB"), CLIENT, 0) for n in range(2)])  # not counted: no limit
        event.listen(seeded, "before_cursor_execute", count)
        try:
            outcomes = posted(
                conn,
                *[(fields(f"W{n}AW"), client, 3) for n, client in enumerate([CLIENT, "api:b", CLIENT, CLIENT, CLIENT])],
            )
        finally:
            event.remove(seeded, "before_cursor_execute", count)
        assert counts(conn) == {CLIENT: 4, "api:b": 1}
    assert len(statements) == 1
    assert [isinstance(outcome, ApiError) for outcome in outcomes] == [False, False, False, False, True]


def test_the_checked_reports_are_stored_together_each_in_its_slot(seeded):
    at = hours_ago(1).strftime("%Y-%m-%dT%H:%M:%SZ")  # one quarter-hour for all three
    with db.connect(seeded, write=True) as conn:
        stored = posted(conn, *[(fields(call, at), CLIENT, 0) for call in ("W1AW", "K1ABC", "W1AW")])
    assert [accepted.callsign for accepted, _ in stored] == ["W1AW", "K1ABC", "W1AW"]
    (_, one), (_, other), (_, again) = stored
    assert len({one.id, other.id, again.id}) == 3
    # the third is the first's slot again (same satellite, quarter-hour and callsign): it replaces it
    assert (one.replaced_count, other.replaced_count, again.replaced_count) == (0, 0, 1)
