"""Status changes in GET /api/v2/stream, through a whole `sathub serve` on SQLite and PostgreSQL:
each change of a satellite's status (the status page's rule) is a `status` event with the report
that changed it, and a client that resumes with Last-Event-ID from any event id, the report that
caused a change included, gets each later change exactly once, byte for byte as it was sent live."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.live_server import sathub_server
from tests.status.seed import seed_catalog
from tests.status.stream.sse import Listener

pytestmark = pytest.mark.slow
UNLIMITED = {"SATHUB_API_RATE_PER_MINUTE": "0"}


def post(root: str, name: str, report: str, callsign: str, hours_ago: int = 0) -> None:
    when = datetime.now(UTC) - timedelta(hours=hours_ago)
    fields = {"name": name, "report": report, "callsign": callsign, "reported_at": when.strftime("%Y-%m-%dT%H:%M:%SZ")}
    answer = httpx.post(f"{root}/api/v1/reports.php", json=fields, timeout=10)
    assert answer.status_code == 201, answer.text


def test_resuming_anywhere_gives_each_change_once(engine, database_url):
    seed_catalog(engine)
    with sathub_server(database_url, env=UNLIMITED) as root, Listener(f"{root}/api/v2/stream") as live:
        for name, report, callsign, hours_ago in (
            ("AO-91", "Not Heard", "W1AW", 4),
            ("AO-91", "Heard", "W5API", 0),  # a newer cell: heard again
            ("AO-91", "Heard", "K1ABC", 0),  # the counts only: no status event
            ("FO-29", "Telemetry", "G4XYZ", 0),
            ("AO-91", "Not Heard", "N0CALL", 0),
            ("AO-91", "Not Heard", "G4XYZ", 0),  # 2 beside 2: conflicting
        ):
            post(root, name, report, callsign, hours_ago)
        live.wait_for(lambda listener: len(listener.of("report")) == 6)
        live.wait_for(lambda listener: len(listener.of("status")) == 4)
        changes = live.of("status")
        told = [
            (event.body["name"], event.body["cell"]["status"], event.body["report"]["callsign"]) for event in changes
        ]
        assert told == [
            ("AO-91", "not_heard", "W1AW"),
            ("AO-91", "heard", "W5API"),
            ("FO-29", "telemetry", "G4XYZ"),
            ("AO-91", "conflicting", "G4XYZ"),
        ]
        # each change's report is the report event just before it (one write, SQLite's or PostgreSQL's)
        reports = {event.body["report"]["id"]: int(event.id) for event in live.of("report")}
        assert [reports[event.body["report"]["id"]] for event in changes] == [int(event.id) - 1 for event in changes]

        # from before the first event (ids go on from earlier tests' events), from each change's
        # report (the change's own id next), and from a change itself
        first, last = int(live.events[0].id), live.events[-1].id
        for after in sorted({first - 1, *(int(event.id) - 1 for event in changes), int(changes[1].id)}):
            with Listener(f"{root}/api/v2/stream", {"Last-Event-ID": str(after)}) as resumed:
                resumed.wait_for(lambda listener: bool(listener.events) and listener.events[-1].id == last)
                assert not resumed.of("gap")
                expected = [(event.id, event.data) for event in changes if int(event.id) > after]
                assert [(event.id, event.data) for event in resumed.of("status")] == expected, after
