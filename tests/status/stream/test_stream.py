"""GET /api/v2/stream through whole `sathub serve` processes, on SQLite and PostgreSQL: a report
POSTed to one process reaches subscribers of another (LISTEN/NOTIFY; SQLite's shared revision),
filters, resume with Last-Event-ID from the database, a client that stops reading is dropped
without holding the others back, the per-process cap, and a clean end when the server stops."""

from __future__ import annotations

import contextlib
import socket
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from sathub import db
from sathub.status.store import writes
from tests.conftest import POSTGRES_URL
from tests.live_server import sathub_server
from tests.status.stream.sse import Listener

pytestmark = pytest.mark.slow
UNLIMITED = {"SATHUB_API_RATE_PER_MINUTE": "0"}


def post(root: str, name: str, report: str, callsign: str, minutes_ago: int = 0) -> dict:
    when = datetime.now(UTC) - timedelta(minutes=minutes_ago)
    fields = {"name": name, "report": report, "callsign": callsign, "reported_at": when.strftime("%Y-%m-%dT%H:%M:%SZ")}
    answer = httpx.post(f"{root}/api/v1/reports.php", json=fields, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]


def ids(events) -> list[int]:
    return [int(event.id) for event in events]


def test_delivery_across_processes_filters_and_resume(engine, database_url):
    with sathub_server(database_url, env=UNLIMITED) as a, sathub_server(database_url, env=UNLIMITED) as b:
        everything = Listener(f"{a}/api/v2/stream")
        fo29 = Listener(f"{b}/api/v2/stream?name=fo-29")  # any case, as the catalog matches names
        not_heard = Listener(f"{a}/api/v2/stream?status=Not%20Heard")
        assert everything.status == 200
        assert everything.response_headers["content-type"] == "text/event-stream; charset=utf-8"
        assert everything.response_headers["cache-control"] == "no-store"
        assert everything.response_headers["x-accel-buffering"] == "no"
        assert everything.response_headers["x-amsat-api-version"] == "2.0.0"

        sent = time.monotonic()
        first = post(b, "AO-91", "Heard", "W5API")  # into the other process
        everything.wait_for(lambda listener: len(listener.of("status")) == 1)
        report, status = everything.events
        assert report.event == "report" and report.received_at - sent < 5
        assert report.body["report"]["id"] == first["id"]
        assert (report.body["action"], report.body["replaced_report"]) == ("created", "")
        assert status.body["name"] == "AO-91" and status.body["cell"]["status"] == "heard"
        assert int(status.id) == int(report.id) + 1

        post(a, "FO-29", "Telemetry", "K1ABC")
        replaced = post(b, "AO-91", "Not Heard", "W5API")  # the same slot: replaces the first
        everything.wait_for(lambda listener: len(listener.of("report")) == 3)
        everything.wait_for(lambda listener: len(listener.of("status")) == 3)
        third = everything.of("report")[2].body
        assert (third["action"], third["replaced_report"], third["report"]["id"]) == (
            "replaced",
            "Heard",
            replaced["id"],
        )
        assert everything.of("status")[2].body["previous"]["status"] == "heard"
        assert everything.of("status")[2].body["cell"]["status"] == "not_heard"
        live = ids(everything.events)
        assert live == sorted(live) and len(set(live)) == len(live)

        fo29.wait_for(lambda listener: len(listener.events) == 2)
        assert {event.body.get("name") or event.body["report"]["name"] for event in fo29.events} == {"FO-29"}
        assert fo29.of("report")[0].body["report"]["report"] == "Telemetry Only"
        not_heard.wait_for(lambda listener: len(listener.events) == 2)
        assert [event.event for event in not_heard.events] == ["report", "status"]
        assert not_heard.events[0].body["report"]["id"] == replaced["id"]

        # Resume from the first event, on the other process: everything after it, once, in order.
        with Listener(f"{b}/api/v2/stream", {"Last-Event-ID": report.id}) as resumed:
            resumed.wait_for(lambda listener: len(listener.events) == len(live) - 1)
            time.sleep(0.3)
            assert [(e.id, e.event, e.data) for e in resumed.events] == [
                (e.id, e.event, e.data) for e in everything.events[1:]
            ]
            post(a, "ISS-FM", "Crew Active", "NA1SS")  # then live, without a seam
            resumed.wait_for(lambda listener: len(listener.of("report")) == 3)
            assert ids(resumed.events) == sorted(set(ids(resumed.events)))
        for listener in (everything, fo29, not_heard):
            listener.close()


def test_a_client_that_stops_reading_is_dropped_and_holds_no_one_back(engine, database_url):
    with sathub_server(database_url, env=UNLIMITED) as root:
        reader = Listener(f"{root}/api/v2/stream?name=AO-91")
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", int(root.rsplit(":", 1)[1])))
        stalled.sendall(b"GET /api/v2/stream HTTP/1.1\r\nHost: sathub\r\n\r\n")
        time.sleep(0.5)
        start = datetime.now(UTC) - timedelta(days=1)
        rows = [  # ~10 MB of events, more than the socket buffers and the subscriber's queue hold
            dict(
                name="AO-91",
                day=(start + timedelta(hours=n // 800)).date(),
                hour=(start + timedelta(hours=n // 800)).hour,
                period=n % 4,
                callsign=f"N{n}X",
                report="Heard",
                grid_square="FN31",
            )
            for n in range(30_000)
        ]
        with db.connect(engine, write=True) as conn:
            writes.store_imported(conn, rows)
        reader.wait_for(lambda listener: len(listener.of("report")) == 30_000, timeout=60)
        # The stalled client's connection was aborted: what it can still read ends in a reset or
        # EOF within the timeout (a connection left open would raise TimeoutError here).
        stalled.settimeout(45)
        with contextlib.suppress(ConnectionResetError):
            while stalled.recv(1 << 20):
                pass
        stalled.close()
        reader.close()


def test_the_cap_answers_503_with_retry_after(engine, database_url):
    with sathub_server(database_url, env={"SATHUB_STREAM_MAX_SUBSCRIBERS": "2"}) as root:
        one, two = Listener(f"{root}/api/v2/stream"), Listener(f"{root}/api/v2/stream")
        with Listener(f"{root}/api/v2/stream") as third:
            third.wait_until_ended()
            assert third.status == 503
            assert third.response_headers["retry-after"] == "30"
            assert third.response_headers["content-type"] == "application/json; charset=utf-8"
            assert b'"code":"too_many_subscribers"' in third.body
        one.close()
        deadline = time.monotonic() + 5
        while True:  # the server sees the hang-up and frees the place
            with Listener(f"{root}/api/v2/stream") as again:
                if again.status == 200:
                    break
            assert time.monotonic() < deadline
            time.sleep(0.1)
        two.close()


def test_the_stream_ends_cleanly_when_the_server_stops(engine, database_url):
    with sathub_server(database_url, env=UNLIMITED) as root:
        listener = Listener(f"{root}/api/v2/stream")
        post(root, "AO-91", "Heard", "W5API")
        listener.wait_for(lambda listener: len(listener.events) == 2)
        stopped = time.monotonic()
    # sathub_server has sent SIGTERM and waited for the process (it kills it after 10 s)
    assert listener.wait_until_ended(5) == "clean"
    assert time.monotonic() - stopped < 8


@pytest.mark.skipif(not POSTGRES_URL, reason="LISTEN/NOTIFY is PostgreSQL's: needs SATHUB_TEST_POSTGRES_URL")
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_postgresql_listens_on_one_connection_per_process_while_someone_listens(engine, database_url):
    def listening() -> int:
        with engine.connect() as conn:
            return conn.exec_driver_sql(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND starts_with(query, 'LISTEN')"
            ).scalar()

    with sathub_server(database_url) as root:
        listeners = [Listener(f"{root}/api/v2/stream?name=AO-91") for _ in range(5)]
        time.sleep(1)
        assert listening() == 1
        for listener in listeners:
            listener.close()
        # The last subscriber gone, the process stops listening (its LISTEN thread ends within
        # the second it waits for notifications at a time).
        deadline = time.monotonic() + 5
        while listening():
            assert time.monotonic() < deadline
            time.sleep(0.1)
