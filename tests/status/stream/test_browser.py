"""The stream in a real browser: Chromium's EventSource receives a report POSTed to the server,
follows the stream's clean end when the server stops, reconnects by itself when it is back, and
gets the report stored meanwhile through Last-Event-ID: nothing missed, nothing twice."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import httpx
import pytest

from tests.live_server import free_port, sathub_server
from tests.status.seed import store_report

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LISTEN = """url => {
    window.got = []; window.opens = 0; window.errors = 0;
    const source = new EventSource(url);
    source.onopen = () => { window.opens += 1; };
    source.onerror = () => { window.errors += 1; };
    for (const kind of ["report", "status", "gap"]) {
        source.addEventListener(kind, e => window.got.push({kind, id: e.lastEventId, data: JSON.parse(e.data)}));
    }
    window.source = source;
}"""


def test_eventsource_receives_and_resumes_across_a_restart(browser, engine, database_url):
    port = free_port()
    root = f"http://127.0.0.1:{port}"
    server = {"SATHUB_PORT": str(port), "SATHUB_API_RATE_PER_MINUTE": "0"}
    page = browser.new_page()
    try:
        with sathub_server(database_url, base_url=root, env=server):
            page.goto(f"{root}/api/v1/statuses.php")
            page.evaluate(LISTEN, "/api/v2/stream?name=AO-91")
            page.wait_for_function("window.opens === 1")
            when = datetime.now(UTC)
            now = when.strftime("%Y-%m-%dT%H:%M:%SZ")
            fields = {
                "name": "AO-91",
                "report": "Heard",
                "callsign": "W5API",
                "grid_square": "EM25",
                "reported_at": now,
            }
            posted = httpx.post(f"{root}/api/v1/reports.php", json=fields, timeout=10).json()["data"]
            page.wait_for_function("window.got.length === 2", timeout=10_000)
        # The server stopped: the stream ended, the browser keeps trying. A report arrives meanwhile.
        missed = store_report(engine, "AO-91", when, callsign="K1ABC", report="Not Heard")
        time.sleep(0.5)
        with sathub_server(database_url, base_url=root, env=server):
            page.wait_for_function("window.opens === 2", timeout=20_000)
            page.wait_for_function("window.got.length === 4", timeout=10_000)
            time.sleep(0.5)
            got = page.evaluate("window.got")
            page.evaluate("window.source.close()")
    finally:
        page.close()
    assert [event["kind"] for event in got] == ["report", "status", "report", "status"]
    assert got[0]["data"]["report"]["id"] == posted["id"]
    assert got[2]["data"]["report"]["id"] == missed.id and got[2]["data"]["report"]["callsign"] == "K1ABC"
    assert got[3]["data"]["cell"]["status"] == "conflicting"  # one Heard, one Not Heard in one block
    ids = [int(event["id"]) for event in got]
    assert ids == sorted(set(ids)) and ids[0] + 1 == ids[1] and ids[2] == ids[1] + 1
