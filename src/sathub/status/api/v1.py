"""The /api/v1 JSON endpoints: catalog, reports (GET, POST), summary, statuses, health, openapi, index.

Handlers parse with the pure rules, ask the store for one query's worth of rows, and serialize; a
POST's work in the shared write transaction is report_writer.py's."""

from __future__ import annotations

from datetime import timedelta
from importlib import resources
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from sathub import csrf
from sathub.status import rate_limit, rules, times
from sathub.status.api import php_query, report_input, report_writer
from sathub.status.api.php_json import PrettyFragment, php_pretty_json
from sathub.status.api.responses import API_VERSION, ApiError, endpoint, envelope
from sathub.status.api.summary_answer import SummaryAnswer
from sathub.status.cache import answers_of
from sathub.status.store import catalog as catalog_store
from sathub.status.store import reports as report_store
from sathub.web import client_address, in_thread, in_write_batch, settings_of, site_url

OPENAPI = resources.files("sathub.status.api") / "openapi.json"


def api_base(request: Request) -> str:
    return f"{site_url(request)}/api/v1"


def encode_name(name: str) -> str:
    """PHP rawurlencode: only A-Z a-z 0-9 - _ . ~ stay literal."""
    return quote(name, safe="-_.~")


def reports_link(request: Request, name: str) -> str:
    return f"{api_base(request)}/reports.php?name={encode_name(name)}"


def window_since(hours: int, since_text: str | None = None) -> tuple[str, report_store.Window]:
    now = times.utc_now()
    if since_text is None:
        since = now - timedelta(hours=hours)
    else:
        parsed = times.parse_timestamp(since_text, now)
        if parsed is None:
            raise ApiError(400, "invalid_since", "Parameter 'since' must be a valid timestamp.", None)
        since = parsed
    return times.iso_z(since), times.first_included_hour(since)


def report_read_forms(rows) -> list[dict]:
    """The read form of store.reports.search_reports rows, unpacked in its column order (a Row's attribute
    access costs 3.5 times as much, and an answer holds up to 500 rows)."""
    read_time = times.read_form_time
    return [
        {
            "id": id_,
            "name": name,
            "satellite_display_name": display_name,
            "reported_time": read_time(day, hour),
            "callsign": callsign,
            "report": report,
            "grid_square": grid_square,
            "period": period,
        }
        for id_, name, display_name, day, hour, callsign, report, grid_square, period in rows
    ]


@endpoint("GET")
async def catalog(request: Request) -> Response:
    name = php_query.text(request, "name")
    with_stats = php_query.boolean(request, "include_stats")
    base = api_base(request)

    def render(conn) -> bytes | None:
        rows = catalog_store.catalog(conn, name, with_stats)
        if name is not None and not rows:
            return None
        data = [satellite_item(row, base, with_stats) for row in rows]
        return php_pretty_json({"data": data, "meta": {"count": len(data)}}).encode()

    answers = answers_of(request)
    body = await answers.get(("catalog", name and name.lower(), with_stats, base), answers.revision(), render)
    if body is None:
        raise ApiError(404, "satellite_not_found", "No satellite matched the requested name.")
    return envelope(request, body)


def satellite_item(row, base: str, with_stats: bool) -> dict:
    encoded = encode_name(row.api_name)
    item = {
        "id": row.id,
        "name": row.api_name,
        "display_name": row.display_name,
        "website": row.website,
        "links": {"self": f"{base}/catalog.php?name={encoded}", "reports": f"{base}/reports.php?name={encoded}"},
    }
    if with_stats:
        item["report_count"] = row.report_count or 0
        item["latest_reported_time"] = times.read_form_time(row.latest_day, row.latest_hour) if row.latest_day else None
    return item


@endpoint("GET", "POST")
async def reports_endpoint(request: Request) -> Response:
    if request.method == "POST":
        return await create_report(request)
    return await search_reports(request)


async def search_reports(request: Request) -> Response:
    answers = answers_of(request)
    revision = answers.revision()  # the database comes first in the evaluation order of 4.2
    hours = php_query.integer(request, "hours", 72, 1, 720)
    limit = php_query.integer(request, "limit", 100, 1, 500)
    name = php_query.text(request, "name")
    try:  # checked after the name, whose 404 comes first
        since, window = window_since(hours, php_query.text(request, "since"))
        grid, report = grid_filter(request), status_filter(request)
        invalid = None
    except ApiError as error:
        invalid = error
    names: tuple[str, ...] = ()
    if name is not None:
        matches = await answers.get(
            ("names", name), revision, lambda conn: tuple(row.api_name for row in catalog_store.catalog(conn, name))
        )
        if not matches:
            raise ApiError(404, "satellite_not_found", "No satellite matched the requested name.")
        names = tuple(sorted({name, *matches}))  # the database folds case, as in its indexes
    if invalid is not None:
        raise invalid
    callsign = php_query.text(request, "callsign")
    callsign = rules.ascii_upper(callsign) if callsign else None

    def render(conn) -> tuple[int, PrettyFragment]:
        rows = report_store.search_reports(
            conn, window=window, limit=limit, names=names, callsign=callsign, grid_square=grid, report=report
        )
        return len(rows), PrettyFragment(php_pretty_json(report_read_forms(rows), "    "))

    key = ("reports", window, limit, names, callsign, grid, report)
    count, data = await answers.get(key, revision, render)
    # The body around the cached rows changes with meta.since (to the second): kept per second.
    body = answers.derived(
        (*key, hours),
        (revision, since),
        lambda: php_pretty_json(
            {"data": data, "meta": {"count": count, "limit": limit, "since": since, "hours": hours}}
        ).encode(),
    )
    return envelope(request, body)


def grid_filter(request: Request) -> str | None:
    if (text := php_query.text(request, "grid_square")) is None:
        return None
    if (grid := rules.parse_grid(text)) is None:
        raise ApiError(400, "invalid_grid_square", "Parameter 'grid_square' must be a Maidenhead locator.")
    return grid


def status_filter(request: Request) -> str | None:
    if (text := php_query.text(request, "status")) is None:
        return None
    if (report := rules.normalize_report(text)) is None:
        raise ApiError(400, "invalid_status", "Parameter 'status' must be a supported report value.")
    return report


async def create_report(request: Request) -> Response:
    # A web page of another site may not file reports from its visitors' browsers: submit.php's rule
    # (csrf.py), without its token, which only submit.php's confirmation page hands out. Apps and
    # scripts send none of the headers a browser marks a request's origin with.
    if csrf.from_another_site(request):
        raise ApiError(403, "cross_site_request", "Reports cannot be sent by a web page of another site.")
    answers_of(request).check_database()  # the database comes before the body (2.3 step 4): 503 when away
    client = rate_limit.client_key("api", client_address(request))  # apart from submit.php's count
    limit = settings_of(request).api_rate_per_minute
    try:
        fields: dict | ApiError = await report_input.request_fields(request)
    except ApiError as refusal:  # invalid_json: refused in the write transaction, once counted
        if limit <= 0:
            raise
        fields = refusal
    outcome = await in_write_batch(
        request, report_writer.check_report, fields, client, limit, store=report_writer.store_reports
    )
    if isinstance(outcome, ApiError):
        raise outcome
    accepted, stored = outcome
    link = reports_link(request, accepted.name)
    body = {
        "data": {
            "id": stored.id,
            "name": accepted.name,
            "reported_time": times.iso_z(accepted.instant),
            "callsign": accepted.callsign,
            "report": accepted.report,
            "grid_square": accepted.grid_square,
            "replaced_count": stored.replaced_count,
        },
        "links": {"satellite_reports": link},
    }
    return envelope(request, body, status=201, headers={"Location": link})


@endpoint("GET")
async def summary(request: Request) -> Response:
    answers = answers_of(request)
    hours = php_query.integer(request, "hours", 24, 1, 720)
    _, window = window_since(hours)

    def changes(probe, previous: SummaryAnswer) -> SummaryAnswer | None:
        return previous.updated(report_store.summary_changes(probe, window, previous.revision))

    def whole(conn) -> SummaryAnswer:
        return SummaryAnswer.of(report_store.summary(conn, window), hours)

    return envelope(request, (await answers.refreshed(("summary", hours, window), whole, changes)).body)


@endpoint("GET")
async def statuses(request: Request) -> Response:
    data = [{"value": value, "label": rules.STATUS_LABELS[value]} for value in rules.REPORT_VALUES]
    return envelope(request, {"data": data, "meta": {"count": len(data)}})


@endpoint("GET")
async def health(request: Request) -> Response:
    await in_thread(request, ping)
    return envelope(request, {"data": {"status": "ok", "version": API_VERSION, "time": times.iso_z(times.utc_now())}})


def ping(conn) -> None:
    try:
        report_store.ping(conn)
    except Exception as exc:  # connected, but the trivial query failed
        raise ApiError(503, "database_unhealthy", "The database did not answer a health query.") from exc


@endpoint("GET")
async def openapi(request: Request) -> Response:
    try:
        document = OPENAPI.read_text(encoding="utf-8")
    except OSError as exc:
        raise ApiError(503, "openapi_spec_missing", "The OpenAPI document is missing.") from exc
    prefix = settings_of(request).prefix
    # Our servers[0].url carries the deployment prefix, so "try it out" works under /status.
    document = document.replace('"url": "/api/v1"', f'"url": "{prefix}/api/v1"', 1)
    return Response(document, headers={"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"})


async def index(request: Request) -> Response:
    site, base = site_url(request), api_base(request)
    text = f"""AMSAT Satellite Status API v{API_VERSION}

Documentation: {site}/api/
OpenAPI:       {base}/openapi.php

Primary endpoints:
  GET  {base}/catalog.php
  GET  {base}/reports.php?name=AO-91&hours=24
  POST {base}/reports.php
  GET  {base}/summary.php?hours=24
  GET  {base}/statuses.php
  GET  {base}/health.php

Legacy compatibility:
  GET  {base}/satellites.php
  GET  {base}/sat_info.php?name=AO-91&hours=24
"""
    return PlainTextResponse(text, headers={"Content-Type": "text/plain; charset=utf-8"})
