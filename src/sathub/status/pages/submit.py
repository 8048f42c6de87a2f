"""/submit.php, the legacy form handler: the confirmation page, the one-shot store that apps
send, and its refusals (status-api.md section 8; clients.md items 1, 7-11).

Every refusal prints upstream's message with an honest status: 422 for invalid input, 403 for
a foreign browser request without a token, 429 over the rate limit (section 14, row 13)."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from sathub.status import csrf, rate_limit, times
from sathub.status.pages import submit_rules
from sathub.status.store import accounts, catalog, reports
from sathub.status.templating import render
from sathub.web import BodyTooLarge, client_address, form_fields, in_thread, in_write_batch, settings_of, site_url

FOREIGN = ("This report was sent from another web site. Please submit it from the status page "
           "and confirm it there: the confirmation adds the security token this request lacks.")


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
        post = await form_fields(request)
    except BodyTooLarge:
        return _refusal(request, "The submission is too large.", 413)
    fields = submit_rules.read_fields(post, request.query_params)
    if not submit_rules.is_submitted(fields):
        return HTMLResponse("<html>\n<body>\n</body>\n</html>\n")
    address = client_address(request)
    storing = fields["Confirm"] == "yes"
    # Only a store needs the token: the confirmation page changes nothing, and its Yes link
    # carries one, so the status page itself stays the same for everyone (and cacheable).
    if storing and csrf.is_foreign(request.headers, csrf.own_origins(request)):
        token = post.get(csrf.TOKEN_FIELD) or request.query_params.get(csrf.TOKEN_FIELD, "")
        if not csrf.token_is_valid(csrf.secret_of(request), address, token):
            return _refusal(request, FOREIGN, 403)
    if storing:
        return await in_write_batch(request, _check_and_store, request, fields, address, storing)
    return await in_thread(request, _check_and_store, request, fields, address, storing)


def _check_and_store(conn, request: Request, fields: dict, address: str, storing: bool) -> Response:
    """The confirmation page, or (storing) the rate limit, the insert-or-replace and the thanks."""
    if storing:
        now = time.time()
        start = rate_limit.window_start(now)
        hits = accounts.count_hit(conn, rate_limit.client_key("submit", address), start)
        verdict = rate_limit.judge(hits, settings_of(request).submit_rate_per_minute, start, now)
        if not verdict.allowed:
            return _refusal(request, f"Too many reports from your address. Please try again in "
                                     f"{verdict.retry_after} seconds.", 429,
                            headers={"Retry-After": str(verdict.retry_after)})
    checked = submit_rules.check(fields, times.utc_now())
    if isinstance(checked, submit_rules.Rejected):
        return _refusal(request, checked.message, 422, checked.go_back)
    api_name = catalog.resolve_api_name(conn, checked.name, display_names=False)
    if api_name is None:
        return _refusal(request, submit_rules.UNKNOWN_SATELLITE, 422)
    if not storing:
        return render(request, "submit_confirm.html", site=site_url(request), entry=checked,
                      csrf_field=csrf.TOKEN_FIELD, csrf_token=csrf.make_token(csrf.secret_of(request), address))
    stored = reports.insert_or_replace_report(
        conn, name=api_name, day=checked.heard_on, hour=checked.hour_number, period=checked.period_number,
        callsign=checked.callsign, report=checked.report, grid_square=checked.grid_square)
    return render(request, "submit_thanks.html", site=site_url(request), replaced=stored.replaced_count)
