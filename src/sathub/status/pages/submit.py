"""/submit.php, the legacy form handler: the confirmation page, the one-shot store that apps
send, and its refusals (status-api.md section 8; clients.md items 1, 7-11).

Every refusal prints upstream's message with an honest status: 422 for invalid input, 403 for
a foreign browser request without a token, 429 over the rate limit (section 14, row 13)."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from sathub import csrf
from sathub.status import rate_limit, times
from sathub.status.pages import submit_rules
from sathub.status.store import accounts, catalog, writes
from sathub.status.templating import render
from sathub.web import BodyTooLarge, client_address, form_fields, in_thread, in_write_batch, settings_of, site_url

FOREIGN = (
    "This report was sent from another web site. Please submit it from the status page "
    "and confirm it there: the confirmation adds the security token this request lacks."
)


def _refusal(
    request: Request, message: str, status: int, go_back: bool = False, headers: dict | None = None
) -> Response:
    return render(
        request,
        "submit_message.html",
        status=status,
        headers=headers,
        site=site_url(request),
        message=message,
        go_back=go_back,
    )


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
    if fields["Confirm"] != "yes":
        return _page(request, await in_thread(request, _confirmation, fields), address)
    # Only a store needs the token: the confirmation page changes nothing, and its Yes link
    # carries one, so the status page itself stays the same for everyone (and cacheable).
    if csrf.from_another_site(request):
        token = post.get(csrf.TOKEN_FIELD) or request.query_params.get(csrf.TOKEN_FIELD, "")
        if not csrf.token_is_valid(csrf.secret_of(request), address, token):
            return _refusal(request, FOREIGN, 403)
    limit = settings_of(request).submit_rate_per_minute
    stored = await in_write_batch(request, _store, fields, rate_limit.client_key("submit", address), limit)
    return _page(request, stored, address)


def _page(request: Request, outcome, address: str) -> Response:
    """The page of a confirmation or a store, rendered once its transaction is over: rendering
    does not hold up the writer (nor the other writes of its transaction)."""
    if isinstance(outcome, rate_limit.Verdict):
        return _refusal(
            request,
            f"Too many reports from your address. Please try again in {outcome.retry_after} seconds.",
            429,
            headers={"Retry-After": str(outcome.retry_after)},
        )
    if isinstance(outcome, submit_rules.Rejected):
        return _refusal(request, outcome.message, 422, outcome.go_back)
    if isinstance(outcome, submit_rules.Checked):
        return render(
            request,
            "submit_confirm.html",
            site=site_url(request),
            entry=outcome,
            csrf_field=csrf.TOKEN_FIELD,
            csrf_token=csrf.make_token(csrf.secret_of(request), address),
        )
    return render(request, "submit_thanks.html", site=site_url(request), replaced=outcome.replaced_count)


def _confirmation(conn, fields: dict) -> submit_rules.Checked | submit_rules.Rejected:
    """What the confirmation page shows: the submission as checked, or its refusal."""
    checked = _checked(conn, fields)
    return checked if isinstance(checked, submit_rules.Rejected) else checked[0]


def _store(conn, fields: dict, client: str, limit: int) -> rate_limit.Verdict | submit_rules.Rejected | writes.Stored:
    """In the shared write transaction: count the client's hit (kept even when the submission is
    refused), check, and store in its slot. Only plain values: the page comes after the commit."""
    verdict = accounts.count_and_judge(conn, client, limit, time.time())
    if not verdict.allowed:
        return verdict
    checked = _checked(conn, fields)
    if isinstance(checked, submit_rules.Rejected):
        return checked
    entry, api_name = checked
    return writes.store_submitted(
        conn,
        [
            dict(
                name=api_name,
                day=entry.heard_on,
                hour=entry.hour_number,
                period=entry.period_number,
                callsign=entry.callsign,
                report=entry.report,
                grid_square=entry.grid_square,
            )
        ],
    )[0]


def _checked(conn, fields: dict) -> tuple[submit_rules.Checked, str] | submit_rules.Rejected:
    """Section 8.3 in order: the pure rules, then the catalog (API names and aliases only); the
    submission and the API name it is stored under."""
    checked = submit_rules.check(fields, times.utc_now())
    if isinstance(checked, submit_rules.Rejected):
        return checked
    api_name = catalog.resolve_api_name(conn, checked.name, display_names=False)
    if api_name is None:
        return submit_rules.Rejected(submit_rules.UNKNOWN_SATELLITE, go_back=False)
    return checked, api_name
