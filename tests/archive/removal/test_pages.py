"""The web doors of removal (archive/removal/pages.py) on the hand-built archive, both backends,
through the app: HyperKitty's three delete paths under each web prefix, who may (administrators;
a list's owners and moderators where Mailman is configured), the 403 that tells nothing, the
CSRF rule of the admin pages, the redirects, the buttons and what caches see, the audit log."""

from __future__ import annotations

from dataclasses import replace

import bcrypt
import pytest
from starlette.testclient import TestClient

from sathub import db
from sathub.app import create_app
from sathub.archive.removal.operations import audit_log
from sathub.status.store import accounts
from tests.archive.api_fixtures import MAIL
from tests.archive.rest_stub import PASSWORD, USER, MailmanRest

SITE = "http://sathub.test"
DEV, OTHER = "dev@example.org", "other@example.org"
WEB = "/archive/"
MESSAGE_B = f"{WEB}list/{DEV}/message/{MAIL['B'].hash}/delete"
THREAD_A = f"{WEB}list/{DEV}/thread/{MAIL['A'].hash}/delete"
LIST_DEV = f"{WEB}list/{DEV}/delete"
PATHS = {"message": MESSAGE_B, "thread": THREAD_A, "list": LIST_DEV}
# A path that names nothing: its 403 must be the same as a real one's.
UNKNOWN = f"{WEB}list/{DEV}/message/{'A' * 32}/delete"
BROWSER = {"Origin": SITE, "Sec-Fetch-Site": "same-origin"}
OWNER = "olga@example.org"


def add_account(engine, name: str) -> None:
    with db.connect(engine, write=True) as conn:
        accounts.save_user(conn, name, bcrypt.hashpw(b"secret words", bcrypt.gensalt(4)).decode())


def log_in(client: TestClient, engine, name: str = "admin") -> None:
    add_account(engine, name)
    response = client.post("/admin/login.php", data={"username": name, "password": "secret words"})
    assert response.status_code == 200 and "Dashboard" in response.text


def token_of(html: str) -> str:
    return html.split('name="csrf_token" value="')[1].split('"')[0]


def remove(client: TestClient, path: str, action: str = "hide", reason: str = "spam", token: str | None = None):
    """GET the confirmation page, then POST its form (as a browser: Origin and Sec-Fetch-Site)."""
    if token is None:
        token = token_of(client.get(path).text)
    return client.post(
        path, data={"csrf_token": token, "action": action, "reason": reason}, headers=BROWSER, follow_redirects=False
    )


def nothing_removed(engine) -> bool:
    return audit_log(engine) == []


@pytest.fixture
def rest():
    with MailmanRest() as server:
        server.add(DEV)
        server.add(OTHER)
        server.rosters[(DEV, "owner")] = [OWNER]
        server.rosters[(DEV, "moderator")] = ["mod@example.org"]
        yield server


@pytest.fixture
def rest_client(engine, settings, rest):
    """The app where Mailman's REST API is configured (the stub's)."""
    configured = replace(settings, mailman_rest_url=rest.url, mailman_rest_user=USER, mailman_rest_password=PASSWORD)
    with TestClient(create_app(configured, engine=engine), base_url=SITE) as test_client:
        yield test_client


# -- who may not: the one 403 ---------------------------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("what", [*PATHS, "unknown"])
def test_anonymous_requests_get_the_same_403_with_a_login_link(client, archive, engine, method, what):
    path = PATHS.get(what, UNKNOWN)
    response = client.request(method, path, data={"action": "delete", "reason": "x"}, follow_redirects=False)
    assert response.status_code == 403
    assert response.headers["cache-control"] == "private, no-store"
    assert f'href="{SITE}/admin/index.php"' in response.text
    known = client.request(method, MESSAGE_B, data={"action": "delete", "reason": "x"})
    assert response.text == known.text  # nothing tells a known hash from an unknown one
    assert nothing_removed(engine)
    assert client.get(f"{WEB}list/{DEV}/message/{MAIL['B'].hash}/").status_code == 200


def test_a_forged_or_ended_session_is_anonymous(client, archive, engine):
    log_in(client, engine)
    token = token_of(client.get(MESSAGE_B).text)
    client.post("/admin/logout.php", data={"csrf_token": token}, headers=BROWSER)
    client.cookies.clear()
    add_account(engine, "admin")  # a new password ends every earlier session
    assert remove(client, MESSAGE_B, token=token).status_code == 403
    assert nothing_removed(engine)


@pytest.mark.parametrize("what", PATHS)
@pytest.mark.parametrize("token", ["", "forged", "stale"])
def test_a_browser_post_without_the_sessions_token_is_refused(client, archive, engine, what, token):
    log_in(client, engine)
    if token == "stale":  # a token of another session of the same user
        token = token_of(client.get(PATHS[what]).text)
        client.cookies.clear()
        log_in(client, engine)
    response = remove(client, PATHS[what], token=token)
    assert response.status_code == 403 and "Log in" in response.text
    assert nothing_removed(engine)


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("what", [*PATHS, "unknown"])
def test_a_logged_in_account_mailman_does_not_name_is_refused(rest_client, archive, engine, method, what):
    log_in(rest_client, engine, "mallory@example.org")
    path = PATHS.get(what, UNKNOWN)
    token = token_of(rest_client.get("/admin/dashboard.php").text)
    response = rest_client.request(method, path, data={"csrf_token": token, "action": "delete", "reason": "x"})
    assert response.status_code == 403 and f'href="{SITE}/admin/index.php"' in response.text
    assert nothing_removed(engine)


# -- administrators -------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/archive/", "/archives/", "/hyperkitty/"])
def test_an_administrator_sees_what_would_go_on_every_web_prefix(client, archive, engine, prefix):
    log_in(client, engine)
    message = client.get(MESSAGE_B.replace(WEB, prefix))
    assert message.status_code == 200 and message.headers["cache-control"] == "private, no-store"
    assert message.headers["x-frame-options"] == "DENY"
    assert "default-src 'none'" in message.headers["content-security-policy"]
    assert "Re: [dev] Welcome" in message.text and "2021-01-02 09:00 UTC" in message.text
    assert 'name="reason"' in message.text and "cannot be undone" in message.text
    thread = client.get(THREAD_A.replace(WEB, prefix) + "/")
    assert thread.status_code == 200 and "[dev] Welcome" in thread.text and "4 messages" in thread.text
    whole = client.get(LIST_DEV.replace(WEB, prefix))
    assert whole.status_code == 200 and "8 messages" in whole.text
    assert client.get(UNKNOWN.replace(WEB, prefix)).status_code == 404


@pytest.mark.parametrize("action", ["hide", "delete"])
def test_a_message_removed_redirects_to_its_thread_and_answers_404(client, archive, engine, action):
    log_in(client, engine)
    response = remove(client, MESSAGE_B, action, "leaked password")
    assert response.status_code == 302
    assert response.headers["location"] == f"{SITE}{WEB}list/{DEV}/thread/{MAIL['A'].hash}/"
    assert client.get(f"{WEB}list/{DEV}/message/{MAIL['B'].hash}/").status_code == 404
    [row] = audit_log(engine)
    assert (row.action, row.actor, row.reason, row.messages) == (action, "admin", "leaked password", 1)


def test_a_thread_removed_redirects_to_the_list(client, archive, engine):
    log_in(client, engine)
    response = remove(client, THREAD_A, "delete")
    assert response.headers["location"] == f"{SITE}{WEB}list/{DEV}/"
    assert client.get(f"{WEB}list/{DEV}/thread/{MAIL['A'].hash}/").status_code == 404
    assert client.get(f"{WEB}list/{DEV}/message/{MAIL['D'].hash}/").status_code == 404


def test_the_last_message_of_a_thread_redirects_to_the_list(client, archive, engine):
    log_in(client, engine)
    response = remove(client, f"{WEB}list/{DEV}/message/{MAIL['H'].hash}/delete")
    assert response.headers["location"] == f"{SITE}{WEB}list/{DEV}/"


def test_a_list_removed_redirects_to_the_index(client, archive, engine):
    log_in(client, engine)
    response = remove(client, LIST_DEV, "hide")
    assert response.headers["location"] == f"{SITE}{WEB}"
    assert client.get(f"{WEB}list/{DEV}/").status_code == 404
    assert client.get(LIST_DEV).status_code == 404  # hidden whole: unhide is the command line's


@pytest.mark.parametrize("fields", [{"action": "hide", "reason": "  "}, {"action": "erase", "reason": "spam"}])
def test_a_post_without_a_reason_or_a_choice_changes_nothing(client, archive, engine, fields):
    log_in(client, engine)
    token = token_of(client.get(MESSAGE_B).text)
    response = client.post(MESSAGE_B, data={"csrf_token": token, **fields}, headers=BROWSER)
    assert response.status_code == 400 and "Give a reason" in response.text
    assert nothing_removed(engine)


# -- a list's owners and moderators ---------------------------------------------------------------


@pytest.mark.parametrize("name", [OWNER, "mod@example.org"])
def test_a_lists_owner_or_moderator_removes_mail_of_that_list_only(rest_client, archive, engine, rest, name):
    log_in(rest_client, engine, name)
    assert rest_client.get(MESSAGE_B).status_code == 200
    assert remove(rest_client, MESSAGE_B).status_code == 302
    assert audit_log(engine)[0].actor == name
    assert rest_client.get(f"{WEB}list/{OTHER}/message/{MAIL['X'].hash}/delete").status_code == 403
    assert rest_client.get(LIST_DEV).status_code == 403  # a whole list is the administrators'
    assert rest_client.get(f"{WEB}removals/").status_code == 403
    assert f"/3.1/lists/{DEV}/roster/owner" in rest.calls


def test_an_administrator_named_otherwise_needs_no_roster(rest_client, archive, engine, rest):
    log_in(rest_client, engine)
    assert remove(rest_client, LIST_DEV).status_code == 302
    assert not [call for call in rest.calls if "roster" in call]


# -- the buttons, and what caches see -------------------------------------------------------------


@pytest.mark.parametrize("page", ["thread", "message"])
def test_the_button_is_shown_only_to_those_allowed_and_never_cached(client, archive, engine, page):
    path = f"{WEB}list/{DEV}/{page}/{MAIL['A'].hash}/"
    public = client.get(path)
    assert "Delete / Hide" not in public.text and public.headers["cache-control"].startswith("public")
    log_in(client, engine)
    own = client.get(path)
    assert f'href="{SITE}{WEB}list/{DEV}/message/{MAIL["A"].hash}/delete/"' in own.text
    assert own.headers["cache-control"] == "private, no-store"
    assert own.headers["etag"] != public.headers["etag"]
    assert client.get(path, headers={"If-None-Match": public.headers["etag"]}).status_code == 200
    client.cookies.clear()
    assert client.get(path).headers["etag"] == public.headers["etag"]


# -- the audit log --------------------------------------------------------------------------------


def test_the_audit_log_page_lists_removals_newest_first_for_administrators(client, archive, engine):
    assert client.get(f"{WEB}removals/").status_code == 403
    log_in(client, engine)
    assert "Nothing has been removed" in client.get(f"{WEB}removals/").text
    remove(client, MESSAGE_B, "hide", "first reason")
    remove(client, f"{WEB}list/{DEV}/message/{MAIL['H'].hash}/delete", "delete", "second reason")
    page = client.get(f"{WEB}removals/")
    assert page.status_code == 200 and page.headers["cache-control"] == "private, no-store"
    assert page.text.index("second reason") < page.text.index("first reason")
    assert f'href="{SITE}/archive/removals/"' in client.get("/admin/dashboard.php").text
