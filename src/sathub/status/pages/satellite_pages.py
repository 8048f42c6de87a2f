"""Each satellite's page (/satellite/NAME: its 30-day history strip and newest reports) and its
Atom feed (/feeds/NAME.atom), cached like the status page, per data revision and day."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from sathub.status import grid, times
from sathub.status.cache import answers_of
from sathub.status.notify import atom
from sathub.status.pages import history, locator_map, report_grid, satellite_passes
from sathub.status.store import catalog, report_walk, reports
from sathub.status.templating import CachedPage, feed_url, render, satellite_url
from sathub.web import site_url

RECENT_REPORTS = 100


async def satellite_page(request: Request) -> Response:
    return await _about_a_satellite(request, "satellite", _satellite_html, satellite_url, satellite_passes.respond)


async def satellite_feed(request: Request) -> Response:
    return await _about_a_satellite(request, "feed", _satellite_atom, feed_url)


async def _as_kept(request: Request, page: CachedPage, label: tuple) -> Response:
    return page.response(request, {"Cache-Control": "no-cache"})


async def _about_a_satellite(request: Request, kind: str, build, url_of, finish=_as_kept) -> Response:
    """A satellite's page or feed, answered by `finish` from the page kept under `label`. A
    display name or a retired name redirects to the API name's URL, with the query (a page's grid
    square); an unknown name is 404."""
    site = site_url(request)
    name = request.path_params["name"]
    today = times.utc_now().date()
    answers = answers_of(request)
    label = (answers.revision(), today)
    found = await answers.get((kind, site, name), label, partial(_find_and_build, name, partial(build, site, today)))
    if isinstance(found, CachedPage):
        return await finish(request, found, label)
    if found is not None:
        location, query = url_of(site, found), request.url.query
        return RedirectResponse(f"{location}?{query}" if query else location, status_code=301)
    return render(request, "not_found.html", status=404, site=site, name=name)


def _find_and_build(name: str, build, conn) -> CachedPage | str | None:
    """The built answer about the satellite `name` is the API name of (as stored), else the
    current name to redirect to, else None."""
    entry = catalog.entry_named(conn, name)
    api_name = entry.api_name if entry else reports.stored_name(conn, name)
    if api_name is None:
        return catalog.resolve_api_name(conn, name)  # a display name or a retired name
    return build(conn, api_name, entry)


def _satellite_html(site: str, today, conn, api_name: str, entry) -> CachedPage:
    counts = reports.history(conn, api_name, history.first_day(today))
    recent = reports.recent_reports(conn, api_name, RECENT_REPORTS)
    # The map covers the strip's 30 days: where it was heard, beside when.
    located = report_walk.located_hours(conn, (history.first_day(today), 0), (api_name,))
    return CachedPage.render(
        "satellite.html",
        locator_map=locator_map.build(located),
        site=site,
        name=api_name,
        entry=entry,
        passes=satellite_passes.form_only(site, api_name),
        strip=history.build_strip(today, counts),
        recent=recent,
        latest=report_grid.latest_state(recent),
        legend=grid.LEGEND,
        read_time=times.read_form_time,
        period_label=report_grid.period_label,
    )


def _satellite_atom(site: str, today, conn, api_name: str, entry) -> CachedPage:
    recent = reports.recent_reports(conn, api_name, atom.FEED_ENTRIES)
    return atom.reports_feed(site, today, api_name, entry, recent, feed_url(site, api_name))
