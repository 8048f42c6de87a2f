"""The webhooks' admin page (/admin/webhooks.php and its two forms, status/admin/views.py): login
required, the CSRF token of the other admin pages, a hook added (its secret shown once), refused
with a 400 that says why, disabled, enabled again after the deliverer disabled it, removed; the
delivery log shown."""

from __future__ import annotations

import re

import bcrypt
import pytest

from sathub import db
from sathub.status.admin import views as admin
from sathub.status.store import accounts as account_store
from sathub.status.store import webhooks as store
from tests.status.seed import seed_catalog

SITE = "http://sathub.test"
BROWSER = {"Origin": SITE, "Sec-Fetch-Site": "same-origin"}


@pytest.fixture(autouse=True)
def quick_failures(monkeypatch):
    monkeypatch.setattr(admin, "FAILED_LOGIN_DELAY", 0)


@pytest.fixture
def logged_in(client, engine):
    seed_catalog(engine)
    with db.connect(engine, write=True) as conn:
        account_store.save_user(conn, "admin", bcrypt.hashpw(b"correct horse", bcrypt.gensalt(4)).decode())
    response = client.post("/admin/login.php", data={"username": "admin", "password": "correct horse"})
    assert response.status_code == 200
    return client


def token(client) -> str:
    page = client.get("/admin/webhooks.php").text
    return page.split('name="csrf_token" value="')[1].split('"')[0]


def hooks(engine) -> list[store.Webhook]:
    with db.connect(engine) as conn:
        return store.all_webhooks(conn)


def test_every_webhook_page_refuses_an_anonymous_request(client, engine):
    data = {"url": "https://example.org/hook", "id": "1", "action": "remove"}
    for method, path in [("GET", "webhooks"), ("POST", "add_webhook"), ("POST", "change_webhook")]:
        response = client.request(method, f"/admin/{path}.php", data=data, follow_redirects=False)
        assert response.status_code == 302 and response.headers["location"] == f"{SITE}/admin/index.php"
    assert hooks(engine) == []


def test_a_webhook_is_added_listed_disabled_enabled_and_removed(logged_in, engine):
    client = logged_in
    fields = {"url": "https://example.org/hook", "event_report": "1", "event_status": "1", "names": "ao-91, FO-29"}
    added = client.post("/admin/add_webhook.php", data={**fields, "csrf_token": token(client)}, headers=BROWSER)
    assert added.status_code == 200
    secret = re.search(r"Its secret: ([0-9a-f]{64})", added.text).group(1)
    [hook] = hooks(engine)
    assert (hook.url, hook.secret, hook.events, hook.names) == (
        "https://example.org/hook",
        secret,
        {"report", "status"},
        {"ao-91", "fo-29"},
    )
    page = client.get("/admin/webhooks.php").text
    assert "https://example.org/hook" in page and "No attempts yet." in page and secret not in page

    def change(action: str):
        data = {"id": str(hook.id), "action": action, "csrf_token": token(client)}
        return client.post("/admin/change_webhook.php", data=data, headers=BROWSER)

    assert change("disable").status_code == 200
    assert not hooks(engine)[0].enabled
    assert "Disabled</strong>: disabled by an administrator" in client.get("/admin/webhooks.php").text
    assert change("enable").status_code == 200
    assert hooks(engine)[0].enabled
    assert change("remove").status_code == 200
    assert hooks(engine) == []
    assert change("remove").status_code == 404


def test_the_delivery_log_and_a_disabled_hook_are_shown(logged_in, engine):
    with db.connect(engine, write=True) as conn:
        hook_id = store.add_webhook(conn, "https://example.org/hook", "x" * 20, {"report"}, ())
        held = store.claim(conn, "tester", 1000.0, 2000.0)
        assert [hook.id for hook in held] == [hook_id]
        attempt = store.Attempt("d" * 36, 7, 1_795_000_000.0, 12.3, None, "timed out")
        assert store.record_attempt(
            conn, hook_id, "tester", 1001.0, 2000.0, attempt, delivered=False, disabled_reason="failed"
        )
    page = logged_in.get("/admin/webhooks.php").text
    assert "Disabled</strong>: failed" in page
    assert (
        "<td>7</td>" in page and "timed out" in page and "12 ms" in page and "2026-11-18 11:06:40Z" in page
    )  # date -u -d @1795000000
    assert 'name="action" value="enable"' in page


REFUSED = [
    ({"url": "ftp://example.org/", "event_report": "1"}, "only http:// and https:// URLs"),
    ({"url": "https://user:pw@example.org/", "event_report": "1"}, "no user name or password"),
    ({"url": "https://example.org/", "event_report": "1", "secret": "short"}, "the secret must be 16 to 255"),
    ({"url": "https://example.org/"}, "the events must be one or more of report, status"),
    ({"url": "https://example.org/", "event_report": "1", "names": "AO-91 NO-SUCH"}, "NO-SUCH"),
]


def test_a_webhook_the_rules_refuse_is_a_400_that_says_why(logged_in, engine):
    for fields, why in REFUSED:
        data = {**fields, "csrf_token": token(logged_in)}
        response = logged_in.post("/admin/add_webhook.php", data=data, headers=BROWSER)
        assert response.status_code == 400 and why in response.text, why
    assert hooks(engine) == []


def test_a_form_without_the_sessions_token_changes_nothing(logged_in, engine):
    response = logged_in.post(
        "/admin/add_webhook.php", data={"url": "https://example.org/", "event_report": "1"}, headers=BROWSER
    )
    assert response.status_code == 403
    assert hooks(engine) == []
