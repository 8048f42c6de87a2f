"""The /api/v2 endpoints: the status grid, the catalog, the report walk, the reported locators and
the OpenAPI document (api-v2.md). Handlers read their parameters (v2_params), ask the store for one
query's worth of rows in a cached computation (v2_answers.cached), and shape them (v2_documents).

Every answer is cached under the data revision (and the day, where the time moves it), so a
repeated GET or a conditional one is answered from memory after one read of the revision."""

from __future__ import annotations

import dataclasses
import functools
import json
from datetime import timedelta
from functools import partial
from importlib import resources
from typing import NamedTuple
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from sathub.db.engines import Connection
from sathub.status import rules, times
from sathub.status.api import v2_params as params
from sathub.status.api.responses import ApiError
from sathub.status.api.v2_answers import GEOJSON, Answer, answered, cached, endpoint
from sathub.status.api.v2_documents import (
    grid_square_document,
    report_records,
    satellites_document,
    status_document,
)
from sathub.status.cache import answers_of
from sathub.status.pages import grid
from sathub.status.store import catalog as catalog_store
from sathub.status.store import reports as report_store
from sathub.status.store import v2_reads
from sathub.web import settings_of, site_url

OPENAPI = resources.files("sathub.status.api") / "openapi_v2.json"

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
    answer = await cached(request, ("status", days), (revision, today.toordinal()), partial(_status, today, days))
    return answered(request, answer, STATUS_CACHE)


def _status(today, days: int, conn: Connection) -> Answer:
    rows = grid.count_grid(today, v2_reads.hourly_counts(conn, grid.first_day(today, days), today), days)
    display_names = {row.api_name.lower(): row.display_name for row in catalog_store.catalog(conn)}
    return Answer.of(status_document(today, days, rows, display_names))


@endpoint
async def satellites(request: Request) -> Response:
    revision = answers_of(request).revision()
    answer = await cached(
        request, "satellites", (revision,), lambda conn: Answer.of(satellites_document(*v2_reads.catalog_entries(conn)))
    )
    return answered(request, answer, SLOW_CACHE)


class Names(NamedTuple):
    """The satellites a request names: what the reports are filtered by (each name as given and
    the API name it resolves to, so reports stored under another spelling still match) and the
    API names alone (what an answer says it counted)."""

    matched: tuple[str, ...] = ()
    api_names: tuple[str, ...] = ()


def _resolved_names(given: tuple[str, ...], conn: Connection) -> Names | ApiError:
    """Each given name resolved to an API name (an API, display or retired name, else a name
    reports are stored under although it left the catalog); a 404 for the first that is none."""
    matched: set[str] = set()
    api_names: set[str] = set()
    for name in given:
        found = catalog_store.resolve_api_name(conn, name) or report_store.stored_name(conn, name)
        if found is None:
            return ApiError(
                404, "satellite_not_found", f"No satellite matched the requested name '{name}'.", {"name": name}
            )
        matched.update((name, found))
        api_names.add(found)
    return Names(tuple(sorted(matched)), tuple(sorted(api_names)))


async def _names(request: Request, revision: int) -> Names:
    given = params.names(request)
    if not given:
        return Names()
    found = await answers_of(request).get(("v2", "names", given), revision, partial(_resolved_names, given))
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
    where = v2_reads.ReportFilter(
        callsign=None if callsign is None else rules.ascii_upper(callsign),
        grid_square=params.grid_square(request),
        report=params.status(request),
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
    rows = v2_reads.report_page(conn, where, ascending=ascending, after=after, limit=limit + 1)
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
        lambda conn: Answer.of(grid_square_document(v2_reads.located_hours(conn, first, names.matched), meta)),
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
