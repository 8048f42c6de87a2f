"""Catalog administration under /admin/ (status-api.md section 9): login, dashboard, add, list,
edit and delete satellites, at upstream's paths and with upstream's messages.

Beyond upstream: bcrypt-checked logins answered slowly on failure and rate-limited per client,
signed HttpOnly SameSite=Strict session cookies, a CSRF token in every form and link that changes
something (sathub/csrf.py), duplicate or empty names refused, a confirmation before deleting a
satellite that has reports (its reports stay), and a logout."""

from __future__ import annotations

import asyncio
import functools
import re
import secrets
import time

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from sathub import admin_sessions as sessions
from sathub import csrf
from sathub.csrf import secret_of
from sathub.status import rate_limit, rules
from sathub.status.admin.passwords import verify_password
from sathub.status.notify.webhook_rules import EVENTS, registration_refusal, utc_text
from sathub.status.store import accounts, catalog, elements, reports, webhooks
from sathub.status.templating import render, static_response
from sathub.web import BodyTooLarge, client_address, form_fields, in_thread, site_url

# Every failed login is answered this long (seconds) after its password check began, whatever
# the check cost: an unknown user (checked against a dummy hash) and a user whose imported hash
# has a lower bcrypt cost fail in the same time, and guessing is slow.
FAILED_LOGIN_DELAY = 1.0
LOGIN_ATTEMPTS_PER_MINUTE = 10
WEBHOOK_ATTEMPTS_SHOWN = 10  # per webhook, newest first
WEBSITE_REFUSED = "The website must be an http:// or https:// address."
NORAD_REFUSED = "The NORAD number must be a whole number such as 7530, or nothing."
TOO_LONG = f"The Satellite Name, HTML Name and website must be at most {rules.CATALOG_TEXT_LIMIT} characters each."
_INTEGER = re.compile(r"\s*([+-]?)0*([0-9]+)\s*")


# Checked against when the user does not exist, so that the check is not skipped: the bcrypt
# hash (cost 12) of random bytes nobody kept.
DUMMY_HASH = "$2b$12$0uMIlPh6AbYIlHuaIZwFeeapg1xcRu9HU0djg3Wi82S8JR3wUxb0."


def _integer(text: str | None) -> int | None:
    """An id as a page is given it, None when it is no integer ("Error"). Any integer is one, as
    upstream's SQL compared any: an id no entry has is "0 results" however large (the store finds
    none beyond the column's range); one of more than 19 digits is read as 10**19."""
    match = _INTEGER.fullmatch(text) if text is not None else None
    if match is None:
        return None
    sign, digits = match.groups()
    value = int(digits) if len(digits) <= 19 else 10**19
    return -value if sign == "-" else value


def _page(
    request: Request,
    template: str,
    session: sessions.Session | None = None,
    status: int = 200,
    headers: dict | None = None,
    **context,
) -> Response:
    token = csrf.make_token(secret_of(request), session.nonce) if session else ""
    return render(
        request,
        template,
        status=status,
        site=site_url(request),
        session=session,
        csrf_field=csrf.TOKEN_FIELD,
        csrf_token=token,
        headers={"Cache-Control": "no-store", **csrf.NOT_FRAMED, **(headers or {})},
        **context,
    )


def _message(
    request: Request,
    session,
    message: str,
    link: str | None = None,
    link_text: str = "",
    status: int = 200,
    headers: dict | None = None,
) -> Response:
    return _page(
        request,
        "admin_message.html",
        session,
        status=status,
        headers=headers,
        message=message,
        link=link,
        link_text=link_text,
    )


def admin_only(changes: bool = False):
    """Anonymous requests go to the login page; requests that change the catalog must carry the
    session's CSRF token unless they show no browser signal at all (a script)."""

    def decorate(handler):
        @functools.wraps(handler)
        async def run(request: Request) -> Response:
            session = await sessions.current_session(request)
            if session is None:
                return RedirectResponse(f"{site_url(request)}/admin/index.php", status_code=302)
            try:
                fields = await form_fields(request)
            except BodyTooLarge:
                return _message(request, session, "The request is too large.", status=413)
            if changes and csrf.has_browser_signal(request.headers):
                token = fields.get(csrf.TOKEN_FIELD) or request.query_params.get(csrf.TOKEN_FIELD, "")
                if not csrf.token_is_valid(secret_of(request), session.nonce, token):
                    return _message(
                        request,
                        session,
                        "This page has expired or came from another site. "
                        "Please go back, reload the page and try again.",
                        f"{site_url(request)}/admin/dashboard.php",
                        "Return to Dashboard",
                        403,
                    )
            return await handler(request, session, fields)

        return run

    return decorate


def _count_attempt(conn, address: str, start: int, username: str):
    """This client's login attempts in the window, this one included, and the user's account."""
    hits = accounts.count_hit(conn, rate_limit.client_key("login", address), start)
    return hits, accounts.admin_user(conn, username)


async def login_form(request: Request) -> Response:
    token = csrf.make_token(secret_of(request), client_address(request))
    return _page(request, "admin_login.html", login_token=token, failed=False)


async def login(request: Request) -> Response:
    site = site_url(request)
    address = client_address(request)
    try:
        fields = await form_fields(request)
    except BodyTooLarge:
        return _message(request, None, "The request is too large.", f"{site}/admin/index.php", "Log in", 413)
    token = fields.get(csrf.TOKEN_FIELD, "")
    if csrf.from_another_site(request) and not csrf.token_is_valid(secret_of(request), address, token):
        return _message(request, None, "This login came from another site.", f"{site}/admin/index.php", "Log in", 403)
    username, password = fields.get("username", ""), fields.get("password", "")
    now = time.time()
    start = rate_limit.window_start(now)
    hits, user = await in_thread(request, _count_attempt, address, start, username, write=True)
    stored_hash = user.password if user else None
    verdict = rate_limit.judge(hits, LOGIN_ATTEMPTS_PER_MINUTE, start, now)
    if not verdict.allowed:
        return _message(
            request,
            None,
            f"Too many login attempts. Please try again in {verdict.retry_after} seconds.",
            status=429,
            headers={"Retry-After": str(verdict.retry_after)},
        )
    checking = time.monotonic()
    matches = await run_in_threadpool(verify_password, password, stored_hash or DUMMY_HASH)
    if not (matches and stored_hash):
        await asyncio.sleep(max(0.0, checking + FAILED_LOGIN_DELAY - time.monotonic()))
        token = csrf.make_token(secret_of(request), address)
        return _page(request, "admin_login.html", login_token=token, failed=True)
    response = RedirectResponse(f"{site}/admin/dashboard.php", status_code=302)
    cookie = sessions.encode(secret_of(request), sessions.new_session(username, user.session_generation))
    for name, path in sessions.cookie_paths(request):
        response.set_cookie(name, cookie, **sessions.cookie_options(site, path))
    return response


@admin_only(changes=True)
async def logout(request: Request, session, fields) -> Response:
    site = site_url(request)
    await in_thread(request, accounts.end_sessions, session.username, write=True)  # copies of the cookie end too
    response = RedirectResponse(f"{site}/admin/index.php", status_code=302)
    for name, path in sessions.cookie_paths(request):
        response.delete_cookie(name, path=path)
    return response


@admin_only()
async def dashboard(request: Request, session, fields) -> Response:
    return _page(request, "admin_dashboard.html", session)


@admin_only()
async def add_satellite(request: Request, session, fields) -> Response:
    return _page(request, "admin_add.html", session)


def _names(fields: dict[str, str]) -> tuple[str, str, str]:
    """Display name, API name and website, as the add and edit forms send them."""
    return (
        rules.php_trim(fields.get("satellite_name", "")),
        rules.php_trim(fields.get("html_satellite_name", "")),
        rules.php_trim(fields.get("website", "")),
    )


async def _save(request: Request, fields: dict[str, str], satellite_id: int | None) -> str | None:
    """The add and edit forms' checks, in order, then the entry saved (a new one when
    `satellite_id` is None): the refusal to show, or None once saved."""
    display_name, api_name, website = _names(fields)
    if not display_name or not api_name:
        return "You must enter the Satellite Name & HTML Name;"
    if max(len(display_name), len(api_name), len(website)) > rules.CATALOG_TEXT_LIMIT:
        return TOO_LONG
    if website and not rules.is_web_url(website):
        return WEBSITE_REFUSED
    norad_id = fields.get("norad_id")  # None: a form without the field leaves the number as it is
    if norad_id and catalog.norad_number(norad_id) is None:
        return NORAD_REFUSED
    entry = (display_name, api_name, website, norad_id)
    if not await in_thread(request, _store_entry, satellite_id, *entry, write=True):
        return f"A satellite with the HTML Name {api_name} already exists."
    return None


@admin_only(changes=True)
async def create_satellite(request: Request, session, fields) -> Response:
    back = f"{site_url(request)}/admin/dashboard.php", "Return to Dashboard"
    refusal = await _save(request, fields, satellite_id=None)
    return _message(request, session, refusal or "New record created successfully", *back)


@admin_only()
async def manage_satellites(request: Request, session, fields) -> Response:
    return _page(request, "admin_manage.html", session, entries=await in_thread(request, catalog.catalog))


@admin_only()
async def edit_satellite(request: Request, session, fields) -> Response:
    satellite_id = _integer(request.query_params.get("id"))
    if satellite_id is None:
        return _message(request, session, "Error")
    entry = await in_thread(request, catalog.entry, satellite_id)
    if entry is None:
        return _message(request, session, "0 results")
    return _page(request, "admin_edit.html", session, entry=entry)


@admin_only(changes=True)
async def update_satellite(request: Request, session, fields) -> Response:
    back = f"{site_url(request)}/admin/manage_satellites.php", "Return to Manage Satellite"
    satellite_id = _integer(fields.get("sat_id"))
    if satellite_id is None:
        return _message(request, session, "Error.", *back)
    refusal = await _save(request, fields, satellite_id)
    return _message(request, session, refusal or f"{_names(fields)[0]} updated successfully", *back)


@admin_only(changes=True)
async def delete_satellite(request: Request, session, fields) -> Response:
    manage_link = f"{site_url(request)}/admin/manage_satellites.php"
    satellite_id = _integer(fields.get("id") or request.query_params.get("id"))
    if satellite_id is None:
        return _message(request, session, "Error.", manage_link, "Return to Manage Satellite")
    confirmed = (fields.get("confirm") or request.query_params.get("confirm")) == "yes"
    entry, count = await in_thread(request, _delete, satellite_id, confirmed, write=True)
    if count and not confirmed:
        return _page(request, "admin_delete.html", session, entry=entry, reports=count)
    return _message(request, session, "Satellite deleted successfully", manage_link, "Return to Manage Satellite")


@admin_only()
async def list_webhooks(request: Request, session, fields) -> Response:
    hooks, log = await in_thread(request, _webhooks_and_log)
    return _page(request, "admin_webhooks.html", session, hooks=hooks, log=log, events=EVENTS, when=utc_text)


def _webhooks_and_log(conn):
    hooks = webhooks.all_webhooks(conn)
    return hooks, webhooks.recent_attempts(conn, [hook.id for hook in hooks], WEBHOOK_ATTEMPTS_SHOWN)


@admin_only(changes=True)
async def add_webhook(request: Request, session, fields) -> Response:
    back = f"{site_url(request)}/admin/webhooks.php", "Return to Webhooks"
    url, secret = fields.get("url", "").strip(), fields.get("secret", "").strip() or secrets.token_hex(32)
    wanted = {event for event in EVENTS if fields.get(f"event_{event}")}
    names = [name for name in re.split(r"[\s,]+", fields.get("names", "")) if name]
    refusal = registration_refusal(url, secret, wanted)
    if refusal is None:
        hook_id = await in_thread(request, _add_webhook, url, secret, wanted, names, write=True)
        if isinstance(hook_id, int):
            return _message(request, session, f"Webhook {hook_id} added. Its secret: {secret}", *back)
        refusal = hook_id
    return _message(request, session, f"The webhook was not added: {refusal}.", *back, status=400)


def _add_webhook(conn, url: str, secret: str, wanted: set[str], names: list[str]) -> int | str:
    unknown = webhooks.unknown_names(conn, names)
    if unknown:
        return f"no satellite has the HTML Name {', '.join(unknown)}"
    return webhooks.add_webhook(conn, url, secret, wanted, names)


@admin_only(changes=True)
async def change_webhook(request: Request, session, fields) -> Response:
    """Enable (its run of failures forgotten), disable or remove a webhook."""
    back = f"{site_url(request)}/admin/webhooks.php", "Return to Webhooks"
    hook_id, action = _integer(fields.get("id")), fields.get("action")
    if hook_id is None or action not in ("enable", "disable", "remove"):
        return _message(request, session, "Error.", *back, status=400)
    if not await in_thread(request, _change_webhook, hook_id, action, write=True):
        return _message(request, session, f"No webhook {hook_id}.", *back, status=404)
    return _message(request, session, f"Webhook {hook_id}: {action}d.", *back)


def _change_webhook(conn, hook_id: int, action: str) -> bool:
    if action == "remove":
        return webhooks.remove_webhook(conn, hook_id)
    return webhooks.set_enabled(conn, hook_id, action == "enable")


async def stylesheet(request: Request) -> Response:
    return static_response(request, "global.css", "text/css; charset=utf-8")


def _store_entry(
    conn, satellite_id: int | None, display_name: str, api_name: str, website: str, norad_id: str | None
) -> bool:
    """Add the entry (`satellite_id` None) or change it, unless its API name is another entry's;
    whether it was saved. Its NORAD number is set when the form sent one (empty: none)."""
    if catalog.api_name_taken(conn, api_name, except_id=satellite_id):
        return False
    if satellite_id is None:
        catalog.create(conn, display_name, api_name, website)
    else:
        catalog.update(conn, satellite_id, display_name, api_name, website)
    if norad_id is not None:
        elements.set_norad_id(conn, api_name, catalog.norad_number(norad_id))
    return True


def _delete(conn, satellite_id: int, confirmed: bool):
    """The entry and its number of reports; the entry is deleted unless it has reports and the
    deletion was not confirmed."""
    entry = catalog.entry(conn, satellite_id)
    count = reports.report_count(conn, entry.api_name) if entry else 0
    if confirmed or not count:
        catalog.delete(conn, satellite_id)
    return entry, count
