"""/api/v2's Atom feeds of a satellite (api-v2.md, "Feeds"): its newest reports
(`/api/v2/satellites/NAME/reports.atom`) and its status changes (`…/status.atom`).

A name resolves as every v2 door resolves it (api/v2/names.py: an API, display or retired name,
any case; a name reports are stored under); the feed is the API name's (its links and ids name
it), and the status feed holds the status events the stream sends with `?name=NAME`. An unknown
name is v2's 404 envelope. A feed is rendered once per data
revision and day (the answer cache, cache.py) and answered with its ETag (304 to a matching
If-None-Match) and a short Cache-Control, from the satellite page's rendering (notify/atom.py)."""

from __future__ import annotations

from functools import partial
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from sathub.db.engines import Connection
from sathub.status import times
from sathub.status.api.responses import ApiError
from sathub.status.api.v2.answers import API_VERSION, endpoint
from sathub.status.api.v2.names import resolved_names
from sathub.status.cache import answers_of
from sathub.status.notify import atom
from sathub.status.notify.changes import status_change
from sathub.status.store import catalog, events, reports
from sathub.status.templating import CachedPage
from sathub.web import site_url

# A feed reader asks every few minutes at most; a minute's reuse spares the server a burst of
# them without making a change wait long.
HEADERS = {
    "Cache-Control": "public, max-age=60",
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "ETag",
    "X-Content-Type-Options": "nosniff",
    "X-AMSAT-API-Version": API_VERSION,
}
# The status feed's entries are found among a satellite's newest changes of its current cell:
# most only move its counts (a busy cell takes a change per report), few change the status.
CELL_EVENTS_READ = 2000


def feed_url(site: str, name: str, feed: str) -> str:
    return f"{site}/api/v2/satellites/{quote(name, safe='')}/{feed}.atom"


@endpoint
async def reports_feed(request: Request) -> Response:
    return await _feed(request, "reports", _reports)


@endpoint
async def status_feed(request: Request) -> Response:
    return await _feed(request, "status", _status_changes)


async def _feed(request: Request, feed: str, build) -> Response:
    site = site_url(request)
    name = request.path_params["name"]
    today = times.utc_now().date()
    answers = answers_of(request)
    found = await answers.get(
        ("v2-feed", feed, site, name),
        (answers.revision(), today.toordinal()),
        partial(_built, build, site, today, name),
    )
    if isinstance(found, ApiError):
        raise found
    return found.response(request, HEADERS)


def _built(build, site: str, today, name: str, conn: Connection) -> CachedPage | ApiError:
    names = resolved_names((name,), conn)
    if isinstance(names, ApiError):
        return names
    (api_name,) = names.api_names
    return build(site, today, api_name, names.matched, conn)


def _reports(site: str, today, api_name: str, _matched, conn: Connection) -> CachedPage:
    recent = reports.recent_reports(conn, api_name, atom.FEED_ENTRIES)
    entry = catalog.entry_named(conn, api_name)
    return atom.reports_feed(site, today, api_name, entry, recent, feed_url(site, api_name, "reports"))


def _status_changes(site: str, today, api_name: str, matched, conn: Connection) -> CachedPage:
    # matched as the stream matches a `name` filter: each name as given and its API name
    rows = events.newest_cell_events(conn, [name.lower() for name in matched], CELL_EVENTS_READ)
    changes = [change for row in rows if (change := status_change(row)) is not None][: atom.FEED_ENTRIES]
    entry = catalog.entry_named(conn, api_name)
    display_name = entry.display_name if entry else api_name
    return atom.status_feed(site, today, api_name, display_name, changes, feed_url(site, api_name, "status"))
