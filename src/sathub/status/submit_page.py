"""/submit.php, the legacy form handler: the confirmation page, the one-shot store that apps
send, and its refusals (status-api.md section 8; clients.md items 1, 7-11).

Every refusal prints upstream's message with an honest status: 422 for invalid input, 403 for
a foreign browser request without a token, 429 over the rate limit (section 14, row 13)."""

from __future__ import annotations

import time

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from sathub.db import connect
from sathub.status import csrf, form, page_store, rate_limit, store, times
from sathub.status.submission import FORM_TYPES
from sathub.status.templating import render
from sathub.web import BodyTooLarge, engine_of, read_body, settings_of, site_url

REPORT_CHOICES = form.FORM_REPORT_LABELS
FOREIGN = ("This report was sent from another web site. Please submit it from the status page "
           "and confirm it there: the confirmation adds the security token this request lacks.")


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def secret_of(request: Request) -> str:
    """The key the CSRF tokens are signed with."""
    return csrf.signing_secret(settings_of(request).secret_key)


def own_origins(request: Request) -> set[str]:
    """This deployment's public origin and the origin the request was addressed to."""
    return {csrf.origin_of(site_url(request)), f"{request.url.scheme}://{request.url.netloc}".lower()}


async def _post_fields(request: Request) -> dict[str, str]:
    """The body's form fields (url-encoded or multipart); none for other bodies."""
    await read_body(request)
    if not request.headers.get("content-type", "").lower().startswith(FORM_TYPES):
        return {}
    try:
        body_form = await request.form()
    except Exception:  # a malformed body has no usable fields, as in PHP
        return {}
    return {key: value for key, value in body_form.items() if isinstance(value, str)}


def _refusal(request: Request, message: str, status: int, go_back: bool = False,
             headers: dict | None = None) -> Response:
    return render(request, "submit_message.html", status=status, headers=headers, site=site_url(request),
                  message=message, go_back=go_back)


async def submit(request: Request) -> Response:
    response = await _answer(request)
    response.headers.update(csrf.NOT_FRAMED)
    return response


async def _answer(request: Request) -> Response:
    try:
        post = await _post_fields(request)
    except BodyTooLarge:
        return _refusal(request, "The submission is too large.", 413)
    fields = form.read_fields(post, request.query_params)
    if not form.is_submitted(fields):
        return HTMLResponse("<html>\n<body>\n</body>\n</html>\n")
    address = client_address(request)
    storing = fields["Confirm"] == "yes"
    # Only a store needs the token: the confirmation page changes nothing, and its Yes link
    # carries one, so the status page itself stays the same for everyone (and cacheable).
    if storing and csrf.is_foreign(request.headers, own_origins(request)):
        token = post.get(csrf.TOKEN_FIELD) or request.query_params.get(csrf.TOKEN_FIELD, "")
        if not csrf.token_is_valid(secret_of(request), address, token):
            return _refusal(request, FOREIGN, 403)
    # In a worker thread: waiting for the write lock must not stall this process's other requests.
    return await run_in_threadpool(_check_and_store, request, fields, address, storing)


def _check_and_store(request: Request, fields: dict, address: str, storing: bool) -> Response:
    """The confirmation page, or (storing) the rate limit, the insert-or-replace and the thanks."""
    settings = settings_of(request)
    with connect(engine_of(request), write=storing) as conn:
        if storing:
            now = time.time()
            start = rate_limit.window_start(now)
            hits = page_store.count_hit(conn, rate_limit.client_key("submit", address), start)
            verdict = rate_limit.judge(hits, settings.submit_rate_per_minute, start, now)
            if not verdict.allowed:
                return _refusal(request, f"Too many reports from your address. Please try again in "
                                         f"{verdict.retry_after} seconds.", 429,
                                headers={"Retry-After": str(verdict.retry_after)})
        checked = form.check(fields, times.utc_now())
        if isinstance(checked, form.Rejected):
            return _refusal(request, checked.message, 422, checked.go_back)
        api_name = store.resolve_api_name(conn, checked.name, display_names=False)
        if api_name is None:
            return _refusal(request, form.UNKNOWN_SATELLITE, 422)
        if not storing:
            return render(request, "submit_confirm.html", site=site_url(request), entry=checked,
                          csrf_field=csrf.TOKEN_FIELD, csrf_token=csrf.make_token(secret_of(request), address))
        stored = store.insert_or_replace_report(
            conn, name=api_name, day=checked.heard_on, hour=checked.hour_number, period=checked.period_number,
            callsign=checked.callsign, report=checked.report, grid_square=checked.grid_square)
    return render(request, "submit_thanks.html", site=site_url(request), replaced=stored.replaced_count)
