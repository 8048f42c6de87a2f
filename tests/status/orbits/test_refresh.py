"""The periodic refresh against a local HTTP server: a success stores the sets and schedules the
next in an interval; a 500, garbage or a timeout is one log line, nothing stored, and a retry
after a doubling backoff; two engines racing for the lease fetch once; `sathub serve`'s lifespan
runs it when SATHUB_ELEMENTS_URL is set."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time

import pytest
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.status.orbits import refresh
from sathub.status.store import elements as store
from tests.status.orbits.conftest import stored
from tests.status.orbits.elements_server import ElementsServer

INTERVAL = 21600
T = 1_800_000_000


@pytest.fixture
def server():
    with ElementsServer() as running:
        yield running


def state(engine):
    with db.connect(engine) as conn:
        return store.refresh_state(conn)


def test_a_success_stores_the_sets_and_waits_an_interval(catalogued, server, caplog):
    caplog.set_level(logging.INFO, logger="sathub.status.orbits")
    url = server.url("amateur.tle")
    assert refresh.refresh_once(catalogued, url, INTERVAL, clock=lambda: T) == INTERVAL
    assert len(stored(catalogued)) == 7
    found = state(catalogued)
    assert (found.next_due, found.last_success, found.last_error, found.failures) == (T + INTERVAL, T, None, 0)
    assert [record.getMessage() for record in caplog.records] == [
        f"elements: refreshed from {url}. Read 9 element sets (TLE): 7 matched 8 catalog entries (7 stored, "
        "0 already there); 1 skipped (not in the catalog: 55123); 1 refused (line 26 (NORAD 33334): perturbed "
        "eccentricity is outside the range 0.0 to 1.0)."
    ]
    # not due yet: nobody fetches, and the next look is within LOOK_AGAIN_SECONDS
    assert refresh.refresh_once(catalogued, url, INTERVAL, clock=lambda: T + 60) == refresh.LOOK_AGAIN_SECONDS
    assert server.requests == {"/amateur.tle": 1}


@pytest.mark.parametrize(
    "path, reason",
    [
        ("status/500", "answered 500 Internal Server Error"),
        ("proxy-error.html", "line 1: HTML or XML, not orbital elements"),
        ("slow/amateur.tle", "did not answer in full within 0.3 s"),
    ],
)
def test_a_failure_is_logged_and_retried_after_a_doubling_backoff(catalogued, server, caplog, path, reason):
    server.delay = 5.0
    url = server.url(path)
    delays = []
    now = T
    for _attempt in range(3):
        delays.append(refresh.refresh_once(catalogued, url, INTERVAL, timeout=0.3, clock=lambda now=now: now))
        found = state(catalogued)
        assert found.next_due == now + delays[-1] and reason in found.last_error
        now = found.next_due
    assert delays == [600, 1200, 2400]
    assert (found.failures, found.last_success) == (3, None)
    assert stored(catalogued) == []
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 3 and all("\n" not in record.getMessage() for record in warnings)
    assert warnings[0].getMessage().startswith("elements: refresh failed (1 in a row; next try in 600 s): ")
    # a success afterwards clears the count
    assert refresh.refresh_once(catalogued, server.url("amateur.csv"), INTERVAL, clock=lambda: now) == INTERVAL
    assert (state(catalogued).failures, state(catalogued).last_error) == (0, None)


def test_the_backoff_stops_at_the_interval():
    delays = [refresh.retry_delay(failures, INTERVAL) for failures in (1, 2, 5, 6, 7, 100)]
    assert delays == [600, 1200, 9600, 19200, INTERVAL, INTERVAL]


def test_two_engines_racing_for_the_lease_fetch_once(catalogued, database_url, server):
    """Two engines on one database, as two processes have: each turn at once, while the winner's
    fetch is slow, so that both are in flight together; one request reaches the server."""
    server.delay = 0.5
    other = db.create_engine(database_url)
    results = {}
    start = threading.Barrier(2)

    def turn(name, engine):
        start.wait()
        results[name] = refresh.refresh_once(engine, server.url("slow/amateur.json"), INTERVAL, clock=lambda: T)

    try:
        threads = [threading.Thread(target=turn, args=item) for item in (("a", catalogued), ("b", other))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    finally:
        other.dispose()
    assert server.requests == {"/slow/amateur.json": 1}
    assert sorted(results.values()) == [refresh.LOOK_AGAIN_SECONDS, INTERVAL]
    assert len(stored(catalogued)) == 7


def test_serve_refreshes_in_the_background_when_a_url_is_set(catalogued, settings, server):
    configured = dataclasses.replace(settings, elements_url=server.url("amateur.tle"))
    with TestClient(create_app(configured, engine=catalogued), base_url="http://sathub.test") as client:
        deadline = time.monotonic() + 10
        while (found := state(catalogued)) is None or found.last_success is None:
            assert time.monotonic() < deadline, "no refresh within 10 s"
            time.sleep(0.05)
        assert client.get("/api/v1/health.php").status_code == 200
    assert len(stored(catalogued)) == 7
    assert server.requests == {"/amateur.tle": 1}


def test_serve_starts_no_refresh_without_a_url(client, engine):
    client.get("/api/v1/health.php")
    assert state(engine) is None
