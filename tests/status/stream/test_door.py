"""GET /api/v2/stream's refusals in the v1 envelope (never a 500), OPTIONS and HEAD, the
submit.php door recording its events, and, with the app served in a thread, the heartbeat and
the `gap` a client is told when it resumes from before the oldest event kept."""

from __future__ import annotations

import gc
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa
from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

from sathub import db
from sathub.server.http_protocol import GuardedHttpToolsProtocol
from sathub.status.store import events as store
from sathub.status.stream import hub
from sathub.status.stream.hub import Subscriber
from tests.live_server import app_in_thread
from tests.status.seed import SUBMISSION, hours_ago, seed_catalog, store_report
from tests.status.stream.sse import Listener


@pytest.mark.parametrize(
    ("query", "headers", "status", "code", "details"),
    [
        ("", {"Last-Event-ID": "abc"}, 400, "invalid_parameter", {"Last-Event-ID": "abc"}),
        ("?last_event_id=-3", {}, 400, "invalid_parameter", {"last_event_id": "-3"}),
        ("?status=Loud", {}, 400, "invalid_status", None),
        ("?name=AO-91&name=NO-SUCH-SAT", {}, 404, "satellite_not_found", {"name": "NO-SUCH-SAT"}),
        ("?" + "&".join(["name=AO-91"] * 101), {}, 400, "invalid_parameter", {"name": 101}),
        # a filter given filters (issue 40): blank or with a NUL, a 400 naming it, not every event
        ("?name=", {}, 400, "invalid_parameter", {"name": ""}),
        ("?name=%00", {}, 400, "invalid_parameter", {"name": "\x00"}),
        ("?status=%00", {}, 400, "invalid_parameter", {"status": "\x00"}),
        ("?last_event_id=%00", {}, 400, "invalid_parameter", {"last_event_id": "\x00"}),
        ("?last_event_id=", {}, 400, "invalid_parameter", {"last_event_id": ""}),
        # one past the largest event id (report_events.id is a BIGINT): no server ever gave it
        ("", {"Last-Event-ID": str(2**63)}, 400, "invalid_parameter", {"Last-Event-ID": str(2**63)}),
        (f"?last_event_id={2**63}", {}, 400, "invalid_parameter", {"last_event_id": str(2**63)}),
    ],
)
def test_refusals_are_the_envelope(client, engine, query, headers, status, code, details):
    seed_catalog(engine)
    # HEAD first: a request wrongly accepted would open a stream, and a GET of it never ends
    assert client.head(f"/api/v2/stream{query}", headers=headers).status_code == status
    response = client.get(f"/api/v2/stream{query}", headers=headers)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    error = response.json()["error"]
    assert (error["code"], error["status"], error.get("details")) == (code, status, details)


def test_methods(client, engine):
    seed_catalog(engine)
    refused = client.post("/api/v2/stream")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"
    assert refused.json()["error"]["code"] == "method_not_allowed"
    preflight = client.options("/api/v2/stream")
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-headers"] == "Last-Event-ID"
    head = client.head("/api/v2/stream?name=ao-91&status=Telemetry")  # aliases accepted, as v1 does
    assert head.status_code == 200 and head.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert head.content == b""


@pytest.mark.parametrize("last", ["9223372036854775807", "0", "000000000000000000000042"])
def test_every_event_id_a_bigint_holds_is_a_position(client, engine, last):
    """api-v2.md: Last-Event-ID is an event id, 0 to 2^63 - 1 (the largest a BIGINT id holds)."""
    seed_catalog(engine)
    for headers, query in (({"Last-Event-ID": last}, ""), ({}, f"?last_event_id={last}")):
        assert client.head(f"/api/v2/stream{query}", headers=headers).status_code == 200


def test_a_submit_php_report_is_an_event(client, engine):
    seed_catalog(engine)
    with db.connect(engine) as conn:
        start = store.watermark(conn)
    now = datetime.now(UTC) - timedelta(minutes=1)
    fields = {
        **SUBMISSION,
        "Confirm": "yes",
        "SatYear": str(now.year),
        "SatMonth": f"{now.month:02d}",
        "SatDay": f"{now.day:02d}",
        "SatHour": f"{now.hour:02d}",
        "SatPeriod": str(now.minute // 15),
    }
    assert client.get("/submit.php?" + urlencode(fields)).status_code == 200
    with db.connect(engine) as conn:
        rows = store.events_between(conn, start, store.watermark(conn))
    assert [(row.kind, row.action, row.name, row.callsign, row.grid_square) for row in rows[:1]] == [
        ("report", "created", "AO-91", "W1AW", "FN42")
    ]
    assert [row.kind for row in rows] == ["report", "cell"]


# uvicorn's own protocol: the stream sends each heartbeat; sathub's: the hub writes them to the
# connection itself (server/http_protocol.py BodyWriter).
@pytest.mark.parametrize("http", ["httptools", GuardedHttpToolsProtocol])
def test_heartbeat_and_gap(tmp_path, monkeypatch, http):
    monkeypatch.setattr(hub, "HEARTBEAT_SECONDS", 0.3)
    with app_in_thread(tmp_path / "sathub.db", http=http) as (site, engine):
        seed_catalog(engine)
        for n in range(3):
            store_report(engine, "AO-91", hours_ago(n), callsign=f"W{n}AB")
        with db.connect(engine) as conn:
            first, last = 1, store.watermark(conn)
        with db.connect(engine, write=True) as conn:  # the first two events are past the retention
            conn.execute(sa.text("UPDATE report_events SET stored_at = 0 WHERE id <= 2"))
            store.prune(conn, int(time.time()) - 48 * 3600)
        with Listener(f"{site}/api/v2/stream", {"Last-Event-ID": str(first - 1)}) as resumed:
            resumed.wait_for(lambda listener: int(listener.events[-1].id or 0) == last if listener.events else False)
            gap = resumed.events[0]
            assert gap.event == "gap" and gap.id is None
            assert (gap.body["after"], gap.body["resumed_at"]) == (0, 3)
            assert resumed.events[1].id == "3"
            resumed.wait_for(lambda listener: listener.comments.count("heartbeat") >= 2, timeout=5)
        with Listener(f"{site}/api/v2/stream", {"Last-Event-ID": "2"}) as exact:  # nothing missed
            exact.wait_for(lambda listener: "heartbeat" in listener.comments, timeout=5)
            assert exact.events[0].event != "gap" and exact.events[0].id == "3"


def _alive(kind: type) -> int:
    return sum(isinstance(thing, kind) for thing in gc.get_objects())


def test_a_stream_and_its_connection_go_when_the_client_does(tmp_path):
    """With the cyclic collector off, reference counting alone frees a stream's subscriber and
    its connection's response cycle once the client is gone: no reference cycle keeps them for
    the collector (5,000 streams that had come and gone left ~140,000 objects behind, until a
    full collection that a big heap makes rare)."""
    with app_in_thread(tmp_path / "sathub.db", http=GuardedHttpToolsProtocol) as (site, engine):
        seed_catalog(engine)
        with Listener(f"{site}/api/v2/stream?name=AO-91") as listener:  # a hub and its timers made
            listener.wait_for(lambda listener: "sathub stream" in listener.comments)
        gc.collect()
        gc.disable()
        try:
            with Listener(f"{site}/api/v2/stream?name=AO-91") as listener:
                listener.wait_for(lambda listener: "sathub stream" in listener.comments)
                assert _alive(Subscriber) == 1 and _alive(RequestResponseCycle) == 1
            deadline = time.monotonic() + 5
            while _alive(Subscriber) or _alive(RequestResponseCycle):
                assert time.monotonic() < deadline, "left for the cyclic collector"
                time.sleep(0.05)
        finally:
            gc.enable()
