"""Each satellite's page (/satellite/NAME: its 30-day history strip and newest reports) and its
Atom feed (/feeds/NAME.atom), cached like the status page, per data revision and day."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from sathub.status import grid, times
from sathub.status.cache import answers_of
from sathub.status.pages import history, locator_map, report_grid
from sathub.status.store import catalog, report_walk, reports
from sathub.status.templating import CachedPage, feed_url, render, satellite_url
from sathub.web import site_url

RECENT_REPORTS = 100


async def satellite_page(request: Request) -> Response:
    return await _about_a_satellite(request, "satellite", _satellite_html, satellite_url)


async def satellite_feed(request: Request) -> Response:
    return await _about_a_satellite(request, "feed", _satellite_atom, feed_url)


async def _about_a_satellite(request: Request, kind: str, build, url_of) -> Response:
    """A satellite's page or feed. A display name or a retired name redirects to the API name's
    URL; an unknown name is 404."""
    site = site_url(request)
    name = request.path_params["name"]
    today = times.utc_now().date()
    answers = answers_of(request)
    found = await answers.get(
        (kind, site, name), (answers.revision(), today), partial(_find_and_build, name, partial(build, site, today))
    )
    if isinstance(found, CachedPage):
        return found.response(request, {"Cache-Control": "no-cache"})
    if found is not None:
        return RedirectResponse(url_of(site, found), status_code=301)
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
        strip=history.build_strip(today, counts),
        recent=recent,
        latest=report_grid.latest_state(recent),
        legend=grid.LEGEND,
        read_time=times.read_form_time,
        period_label=report_grid.period_label,
    )


def _satellite_atom(site: str, today, conn, api_name: str, entry) -> CachedPage:
    recent = reports.recent_reports(conn, api_name, history.FEED_ENTRIES)
    # Without entries: the start of the day, so that the bytes (and the ETag) only change with
    # the feed's own reports, whichever process renders them and whatever else was written.
    updated = (
        history.entry_time(recent[0].day, recent[0].hour, recent[0].period)
        if recent
        else f"{today.isoformat()}T00:00:00Z"
    )
    return CachedPage.render(
        "feed.atom",
        media_type="application/atom+xml; charset=utf-8",
        site=site,
        name=api_name,
        entry=entry,
        reports=recent,
        updated=updated,
        entry_time=history.entry_time,
        period_label=report_grid.period_label,
    )
