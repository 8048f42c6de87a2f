"""Answers replayed before the framework (api/replay.py): only while the data revision and the
second they were made in stand, only for the same path, query, scheme and host, only 200s of GETs."""

from datetime import UTC, datetime, timedelta

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.config import Settings
from sathub.status import times
from sathub.status.api import replay
from tests.status.seed import hours_ago, store_report


class Counted:
    """The app behind the replay, counting the requests that reached it."""

    def __init__(self, app):
        self.app, self.calls = app, 0

    async def __call__(self, scope, receive, send):
        self.calls += 1
        await self.app(scope, receive, send)


@pytest.fixture
def clock(monkeypatch):
    now = [datetime.now(UTC).replace(minute=20, second=5, microsecond=0)]
    monkeypatch.setattr(times, "utc_now", lambda: now[0])
    return now


def replaying(client, prefix: str = "") -> tuple[replay.ReplayedAnswers, Counted]:
    client.get(f"{prefix}/api/v1/statuses.php")  # builds the middleware stack
    layer = client.app.middleware_stack
    while not isinstance(layer, replay.ReplayedAnswers):
        layer = layer.app
    layer.app = inner = Counted(layer.app)
    return layer, inner


def test_an_identical_request_in_the_same_second_and_revision_is_replayed_byte_for_byte(client, seeded, clock):
    store_report(seeded, "AO-91", hours_ago(2))
    _, inner = replaying(client)
    path = "/api/v1/sat_info.php?name=AO-91&hours=24"
    first, second = client.get(path), client.get(path)
    assert inner.calls == 1
    assert second.content == first.content and second.headers == first.headers
    assert [row["callsign"] for row in second.json()] == ["W1AW"]


def test_a_write_by_anyone_ends_the_replay(client, seeded, clock):
    _, inner = replaying(client)
    path = "/api/v1/reports.php?hours=24"
    assert client.get(path).json()["meta"]["count"] == 0
    store_report(seeded, "AO-91", hours_ago(2))  # its own connection: another process, for the app
    assert client.get(path).json()["meta"]["count"] == 1
    assert inner.calls == 2


def test_the_next_second_is_answered_anew(client, seeded, clock):
    _, inner = replaying(client)
    path = "/api/v1/reports.php?hours=24"
    first = client.get(path).json()["meta"]["since"]
    clock[0] += timedelta(seconds=1)
    assert client.get(path).json()["meta"]["since"] != first
    assert inner.calls == 2


def test_an_answer_made_across_a_second_boundary_is_not_kept(client, seeded, monkeypatch):
    """The handler may have read the later second: replaying it in the earlier one would be wrong."""
    ticks = iter(datetime(2026, 11, 24, 12, 0, s, tzinfo=UTC) for s in range(60))
    monkeypatch.setattr(times, "utc_now", lambda: next(ticks))
    layer, _inner = replaying(client)
    client.get("/api/v1/summary.php?hours=24")
    assert layer._kept == {}


def test_hosts_schemes_and_queries_are_answered_apart(engine, database_url, seeded, clock):
    """Without a base URL the links are built from the request's scheme and Host."""
    app = create_app(Settings(database_url=database_url, secret_key="test-secret"), engine=engine)
    with TestClient(app, base_url="http://one.test") as client:
        _, inner = replaying(client)
        links = {
            base: client.get(f"{base}/api/v1/catalog.php?name=AO-91").json()["data"][0]["links"]["self"]
            for base in ("http://one.test", "http://two.test", "https://one.test")
        }
        assert links == {base: f"{base}/api/v1/catalog.php?name=AO-91" for base in links}
        client.get("/api/v1/catalog.php?name=FO-29")
        assert inner.calls == 4


def test_only_whole_200_answers_of_get_are_replayed(client, seeded, clock):
    _, inner = replaying(client)
    for _ in range(2):
        assert client.get("/api/v1/catalog.php?name=nothing").status_code == 404
        assert client.head("/api/v1/statuses.php").status_code == 200
        assert client.get("/api/v1/health.php").status_code == 200  # not replayable: it asks the database
    assert inner.calls == 6
    report = {"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": "2026-01-02T03:04:05Z"}
    assert [client.post("/api/v1/reports.php", json=report).status_code for _ in range(2)] == [201, 201]
    assert inner.calls == 8


def test_kept_answers_are_bounded(client, seeded, clock):
    layer, _ = replaying(client)
    for hours in range(1, replay.KEPT + 11):
        client.get(f"/api/v1/summary.php?hours={hours}")
    assert len(layer._kept) == replay.KEPT


def test_under_a_path_prefix(engine, database_url, seeded, clock):
    settings = Settings(database_url=database_url, base_url="http://sathub.test/status")
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as client:
        _, inner = replaying(client, "/status")
        first, second = client.get("/status/api/v1/satellites.php"), client.get("/status/api/v1/satellites.php")
        assert second.content == first.content and b"AO-91" in first.content
        assert inner.calls == 1


def test_a_host_the_host_check_refuses_is_refused_every_time(engine, database_url, seeded, clock):
    """Hits are replayed before the Host check: only answers that passed it are ever kept."""
    settings = Settings(database_url=database_url, secret_key="s", allowed_hosts="sathub.test")
    with TestClient(create_app(settings, engine=engine), base_url="http://sathub.test") as client:
        layer, _inner = replaying(client)
        for base in ("http://sathub.test", "http://evil.test", "http://evil.test"):
            client.get(f"{base}/api/v1/statuses.php")
        refused = [client.get("http://evil.test/api/v1/statuses.php") for _ in range(2)]
        assert [answer.status_code for answer in refused] == [400, 400]
        assert [key[3] for key in layer._kept] == [b"sathub.test"]
