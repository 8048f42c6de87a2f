"""What protects POST /api/v1/reports.php as submit.php is protected (issue 23, point 6): a browser
request started by another site is refused with the rule of the form (csrf.from_another_site), and
each client address may POST api_rate_per_minute reports a minute (default 60), counted in the
database inside the write transaction (so across processes), refused ones included; beyond, 429
with Retry-After. Apps and scripts, which send no browser headers, are not affected."""

from __future__ import annotations

import asyncio
import time
import types
from collections import Counter
from dataclasses import replace
from urllib.parse import urlencode

import httpx
import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from sathub import csrf, db
from sathub.app import create_app
from sathub.status import rate_limit
from sathub.status.api import report_writer
from sathub.status.pages import submit as submit_page
from sathub.status.tables import reports
from tests.status.api.envelope import error_code
from tests.status.seed import hours_ago

SITE = "http://sathub.test"
ENVELOPE_HEADERS = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "access-control-allow-origin": "*",
    "access-control-allow-headers": "Content-Type",
    "x-amsat-api-version": "1.0.0",
    "x-content-type-options": "nosniff",
}


def submit_php_fields(now, call: str) -> dict:
    """A submit.php one-shot GET of a report heard `now` by `call`, as the loggers send it."""
    return {
        "SatSubmit": "yes",
        "Confirm": "yes",
        "SatName": "AO-91",
        "SatYear": f"{now:%Y}",
        "SatMonth": f"{now:%m}",
        "SatDay": f"{now:%d}",
        "SatHour": f"{now:%H}",
        "SatPeriod": "0",
        "SatCall": call,
        "SatReport": "Heard",
    }


def report(n: int = 0) -> dict:
    """A valid report, in a slot of its own for each n (a callsign each)."""
    return {
        "name": "AO-91",
        "report": "Heard",
        "callsign": f"K{n % 10}A{chr(65 + n // 10 % 26)}{chr(65 + n // 260)}",
        "reported_at": hours_ago(1).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def stored_count(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(reports)).scalar_one()


@pytest.fixture
def frozen_minute(monkeypatch):
    """Every count of the test in one window, 30 s before it ends, even if the clock crosses a
    minute meanwhile: Retry-After is then 30."""
    frozen = rate_limit.window_start(time.time()) + 30.0
    clock = types.SimpleNamespace(time=lambda: frozen)
    monkeypatch.setattr(report_writer, "time", clock)  # the API's count (in the write transaction)
    monkeypatch.setattr(submit_page, "time", clock)
    return frozen


def burst(apps, bodies, address: str = "192.0.2.7", **request) -> list[httpx.Response]:
    """All the POSTs at once, from one client address, spread over `apps` (each a process of
    its own: its own writer and transactions, the database shared)."""

    async def run():
        clients = [
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 4321)), base_url=SITE)
            for app in apps
        ]
        try:
            return await asyncio.gather(
                *(
                    clients[n % len(clients)].post("/api/v1/reports.php", json=body, **request)
                    for n, body in enumerate(bodies)
                )
            )
        finally:
            for http in clients:
                await http.aclose()

    return asyncio.run(run())


# --- the rate limit ---


def test_100_posts_at_once_from_one_address_get_60_stored_then_429(seeded, settings, frozen_minute):
    app = create_app(settings, engine=seeded)
    assert settings.api_rate_per_minute == 60  # the default
    started = time.monotonic()
    answers = burst([app], [report(n) for n in range(100)])
    assert time.monotonic() - started < 5
    assert Counter(a.status_code for a in answers) == {201: 60, 429: 40}
    assert stored_count(seeded) == 60
    refused = next(a for a in answers if a.status_code == 429)
    assert refused.json() == {
        "error": {
            "code": "rate_limited",
            "message": ("Too many reports from this address: try again in 30 seconds."),
            "status": 429,
        }
    }
    assert refused.headers["retry-after"] == "30"
    assert {key: refused.headers[key] for key in ENVELOPE_HEADERS} == ENVELOPE_HEADERS
    # another address has a count of its own
    assert [a.status_code for a in burst([app], [report(100)], address="198.51.100.9")] == [201]


def test_the_limit_holds_across_processes(seeded, settings, database_url, frozen_minute):
    other_engine = db.create_engine(database_url)
    try:
        apps = [create_app(settings, engine=seeded), create_app(settings, engine=other_engine)]
        answers = burst(apps, [report(n) for n in range(100)])
    finally:
        other_engine.dispose()
    assert Counter(a.status_code for a in answers) == {201: 60, 429: 40}
    assert stored_count(seeded) == 60


def test_refused_posts_count_as_submit_php_counts_its_refusals(seeded, settings, frozen_minute):
    limited = TestClient(create_app(replace(settings, api_rate_per_minute=4), engine=seeded), base_url=SITE)
    refusals = [
        limited.post("/api/v1/reports.php", json={**report(), "callsign": "BAD!"}),
        limited.post("/api/v1/reports.php", json={**report(), "name": "NO-SUCH-SAT"}),
        limited.post("/api/v1/reports.php", content=b"{not json", headers={"content-type": "application/json"}),
    ]
    assert [a.status_code for a in refusals] == [422, 422, 400]
    # refused before they are read, as submit.php refuses them: not counted
    assert (
        limited.post("/api/v1/reports.php", json=report(), headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    )
    assert limited.post("/api/v1/reports.php", content=b"x" * 70000).status_code == 413
    assert limited.post("/api/v1/reports.php", json=report(1)).status_code == 201  # the fourth
    over = [
        limited.post("/api/v1/reports.php", json=report(2)),
        limited.post("/api/v1/reports.php", json={}),
        limited.post("/api/v1/reports.php", content=b"[", headers={"content-type": "application/json"}),
    ]
    assert [(a.status_code, error_code(a)) for a in over] == [(429, "rate_limited")] * 3
    assert stored_count(seeded) == 1


def test_the_form_and_the_api_count_apart(seeded, settings, frozen_minute):
    limited = TestClient(
        create_app(replace(settings, api_rate_per_minute=2, submit_rate_per_minute=2), engine=seeded), base_url=SITE
    )
    now = hours_ago(0)

    def form(call: str) -> int:
        return limited.get("/submit.php?" + urlencode(submit_php_fields(now, call))).status_code

    assert [form(call) for call in ("W1AW", "K1ABC", "DL1ABC")] == [200, 200, 429]
    assert [limited.post("/api/v1/reports.php", json=report(n)).status_code for n in range(3)] == [201, 201, 429]
    assert form("G4ABC") == 429


def test_a_limit_of_0_turns_it_off(seeded, settings, frozen_minute):
    app = create_app(replace(settings, api_rate_per_minute=0), engine=seeded)
    answers = burst([app], [report(n) for n in range(100)])
    assert Counter(a.status_code for a in answers) == {201: 100}
    with seeded.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM rate_limits").scalar_one() == 0  # nothing counted


# --- cross-site browser requests ---

FOREIGN = [
    {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
    {"Referer": "https://evil.example/page.html"},
]
OWN_OR_NONE = [
    {},
    {"User-Agent": "CardSat-Cardputer/1.0", "Connection": "close"},
    {"Sec-Fetch-Site": "none"},
    {"Sec-Fetch-Site": "same-origin", "Origin": SITE},
    {"Sec-Fetch-Site": "same-site", "Origin": "https://www.sathub.test"},
    {"Origin": SITE},
    {"Referer": f"{SITE}/api/v1/docs.php"},
]


@pytest.mark.parametrize("headers", FOREIGN)
@pytest.mark.parametrize("body", ["form", "json"])
def test_a_browser_post_started_by_another_site_is_refused(client, seeded, headers, body):
    sent = {"data": report()} if body == "form" else {"json": report()}
    response = client.post("/api/v1/reports.php", headers=headers, **sent)
    assert response.status_code == 403
    assert response.json() == {
        "error": {
            "code": "cross_site_request",
            "message": ("Reports cannot be sent by a web page of another site."),
            "status": 403,
        }
    }
    assert {key: response.headers[key] for key in ENVELOPE_HEADERS} == ENVELOPE_HEADERS
    assert "location" not in response.headers
    assert stored_count(seeded) == 0


@pytest.mark.parametrize("headers", OWN_OR_NONE)
def test_apps_scripts_and_the_sites_own_pages_post_as_before(client, seeded, headers):
    response = client.post("/api/v1/reports.php", headers=headers, data=report())
    assert response.status_code == 201, response.text
    assert stored_count(seeded) == 1


def test_options_and_cors_answer_as_before_whoever_asks(client):
    response = client.options(
        "/api/v1/reports.php",
        headers={
            "Origin": "https://evil.example",
            "Sec-Fetch-Site": "cross-site",
            "Access-Control-Request-Method": "POST",
        },
    )
    assert response.status_code == 204 and response.content == b""
    assert {
        key: response.headers[key]
        for key in (
            "access-control-allow-origin",
            "access-control-allow-headers",
            "access-control-allow-methods",
            "allow",
        )
    } == {
        "access-control-allow-origin": "*",
        "access-control-allow-headers": "Content-Type",
        "access-control-allow-methods": "GET, POST",
        "allow": "GET, POST",
    }
    # reads stay open to every site
    assert (
        client.get(
            "/api/v1/statuses.php", headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
        ).status_code
        == 200
    )


def test_the_api_and_the_form_refuse_by_one_rule(client, seeded, monkeypatch):
    """Both ask csrf.from_another_site: a change of the rule changes both."""
    monkeypatch.setattr(csrf, "is_foreign", lambda headers, own: headers.get("x-test-foreign") == "1")
    foreign = {"X-Test-Foreign": "1"}
    assert client.post("/api/v1/reports.php", json=report(), headers=foreign).status_code == 403
    now = hours_ago(0)
    assert client.get("/submit.php?" + urlencode(submit_php_fields(now, "W1AW")), headers=foreign).status_code == 403
    assert (
        client.post("/api/v1/reports.php", json=report(), headers={"Sec-Fetch-Site": "cross-site"}).status_code == 201
    )
