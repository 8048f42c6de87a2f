"""The /api/v2 endpoints: the status grid, the catalog, the report walk, the reported locators and
the OpenAPI document (api-v2.md). Handlers read their parameters (params.py), ask the store for one
query's worth of rows in a cached computation (answers.cached), and shape them (documents.py).

Every answer is cached under the data revision (and the day, where the time moves it), so a
repeated GET or a conditional one is answered from memory after one read of the revision."""

from __future__ import annotations

import dataclasses
import functools
import json
from datetime import timedelta
from functools import partial
from importlib import resources
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from sathub.db.engines import Connection
from sathub.status import grid, rules, times
from sathub.status.api.responses import ApiError
from sathub.status.api.v2 import params
from sathub.status.api.v2.answers import GEOJSON, Answer, answered, cached, endpoint
from sathub.status.api.v2.documents import grid_square_document, satellites_document, status_document
from sathub.status.api.v2.names import Names, resolved_names
from sathub.status.cache import answers_of
from sathub.status.records import report_records
from sathub.status.store import catalog as catalog_store
from sathub.status.store import report_walk
from sathub.status.store import reports as report_store
from sathub.web import settings_of, site_url

OPENAPI = resources.files("sathub.status.api.v2") / "openapi.json"

# How long an answer may be reused without asking again (api-v2.md, "Cheap polling").
STATUS_CACHE = "public, max-age=30"
SLOW_CACHE = "public, max-age=60"
REPORTS_CACHE = "public, no-cache"
DOCUMENT_CACHE = "public, max-age=3600"


def api_base(request: Request) -> str:
    return f"{site_url(request)}/api/v2"


@endpoint
async def status(request: Request) -> Response:
    days = params.integer(request, "days", grid.DAYS, 1, 30)
    today = times.utc_now().date()
    revision = answers_of(request).revision()
    exclude = settings_of(request).status_implausible == "exclude"
    label = (revision, today.toordinal())
    answer = await cached(request, ("status", days), label, partial(_status, today, days, exclude))
    return answered(request, answer, STATUS_CACHE)


def _status(today, days: int, exclude_implausible: bool, conn: Connection) -> Answer:
    first = grid.first_day(today, days)
    hourly = report_store.hourly_counts(conn, first, today, exclude_implausible=exclude_implausible)
    rows = grid.count_grid(today, hourly, days)
    display_names = {row.api_name.lower(): row.display_name for row in catalog_store.catalog(conn)}
    return Answer.of(status_document(today, days, rows, display_names))


@endpoint
async def satellites(request: Request) -> Response:
    revision = answers_of(request).revision()
    answer = await cached(
        request,
        "satellites",
        (revision,),
        lambda conn: Answer.of(satellites_document(*catalog_store.catalog_entries(conn))),
    )
    return answered(request, answer, SLOW_CACHE)


async def _names(request: Request, revision: int) -> Names:
    given = params.names(request)
    if not given:
        return Names()
    found = await answers_of(request).get(("v2", "names", given), revision, partial(resolved_names, given))
    if isinstance(found, ApiError):
        raise found
    return found


@endpoint
async def reports(request: Request) -> Response:
    now = times.utc_now()
    limit = params.integer(request, "limit", 100, 1, 1000)
    ascending = params.order(request)
    since, until = params.instant(request, "since", now), params.instant(request, "until", now)
    callsign = params.text(request, "callsign")
    where = report_walk.ReportFilter(
        callsign=None if callsign is None else rules.ascii_upper(callsign),
        grid_square=params.grid_square(request),
        report=params.status(request),
        visible=params.visible(request),
        first=None if since is None else times.first_included_hour(since),
        last=None if until is None else params.last_included_hour(until),
    )
    revision = answers_of(request).revision()
    where = dataclasses.replace(where, names=(await _names(request, revision)).matched)
    search = params.fingerprint(where, ascending)
    cursor = params.text(request, "cursor")
    after = None if cursor is None else params.read_cursor(cursor, search)
    base = api_base(request)
    key = ("reports", base, where, ascending, after, limit, request.url.query)
    answer = await cached(
        request, key, (revision,), partial(_report_page, request, base, where, ascending, after, limit, search)
    )
    return answered(request, answer, REPORTS_CACHE)


def _report_page(request: Request, base, where, ascending: bool, after, limit: int, search: str, conn) -> Answer:
    rows = report_walk.report_page(conn, where, ascending=ascending, after=after, limit=limit + 1)
    page, more = rows[:limit], len(rows) > limit
    query = [(name, value) for name, value in request.query_params.multi_items() if name != "cursor"]
    links = {"self": f"{base}/reports" + (f"?{request.url.query}" if request.url.query else ""), "next": None}
    if more:
        last = page[-1]
        next_key = (last.day, last.hour, last.period, last.name_key, last.callsign_key)
        links["next"] = f"{base}/reports?" + urlencode([*query, ("cursor", params.cursor_text(search, next_key))])
    meta = {"count": len(page), "limit": limit, "order": "asc" if ascending else "desc"}
    return Answer.of({"data": report_records(page), "links": links, "meta": meta})


@endpoint
async def grid_squares(request: Request) -> Response:
    hours = params.integer(request, "hours", 72, 1, 720)
    now = times.utc_now()
    first = times.first_included_hour(now - timedelta(hours=hours))
    revision = answers_of(request).revision()
    names = await _names(request, revision)
    # The window as the first included hour (its read-form time), not the second it was asked
    # at: kept per hour of the same data, a poller gets the same answer and tag all hour long.
    meta = {"hours": hours, "since": times.read_form_time(*first), "names": list(names.api_names)}
    answer = await cached(
        request,
        ("grid-squares", hours, names.matched),
        (revision, first[0].toordinal(), first[1]),
        lambda conn: Answer.of(grid_square_document(report_walk.located_hours(conn, first, names.matched), meta)),
    )
    return answered(request, answer, SLOW_CACHE, GEOJSON)


@endpoint
async def openapi(request: Request) -> Response:
    return answered(request, _document(settings_of(request).prefix), DOCUMENT_CACHE)


@functools.cache
def _document(prefix: str) -> Answer:
    """Read once per process and prefix: the document changes only with a new version of sathub,
    and answering it needs no database."""
    document = json.loads(OPENAPI.read_text(encoding="utf-8"))
    # servers[0].url carries the deployment prefix, so "try it out" works under /status.
    document["servers"][0]["url"] = f"{prefix}/api/v2"
    return Answer.of(document)
