"""The public pages of interface A: the status page (/, /index.php), each satellite's page and
Atom feed, and the stylesheets; /submit.php lives in submit_page.py. Handlers are thin: the
store gives one query's worth of rows, grid/history/feed shape them, templates print them."""

from __future__ import annotations

from functools import partial
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from sathub.status import feed, grid, grid_html, history, page_store, rules, store, submit_page, times
from sathub.status.cache import answers_of
from sathub.status.templating import CachedPage, environment, render, static_file, static_response
from sathub.web import route, settings_of, site_url

RECENT_REPORTS = 100
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
DONATE_URL = "https://www.amsat.org/donations/amsat-general-fund-donations/"


def satellite_url(site: str, name: str) -> str:
    return f"{site}/satellite/{quote(name, safe='')}"


def feed_url(site: str, name: str) -> str:
    return f"{site}/feeds/{quote(name, safe='')}.atom"


def asset_url(site: str, name: str) -> str:
    return f"{site}/assets/{name}?v={static_file(name)[1]}"


environment.globals.update(satellite_url=satellite_url, feed_url=feed_url, asset_url=asset_url,
                           donate_url=DONATE_URL, period_labels=rules.PERIOD_LABELS)


def footer_line(request: Request) -> str | None:
    """'Last updated MM/DD/YYYY HH:MM UTC (commit abcdef0)' when both deploy facts are configured."""
    settings = settings_of(request)
    if not (settings.commit and settings.deployed_at):
        return None
    deployed = times.parse_timestamp(settings.deployed_at, times.utc_now())
    when = f"{deployed:%m/%d/%Y %H:%M} UTC" if deployed else settings.deployed_at
    return f"Last updated {when} (commit {settings.commit[:7]})"


def form_choices(now) -> dict:
    """The form's date and time selects: the current value first, then every value (section 7)."""
    period = rules.period_of_minute(now.minute)
    return {
        "month": (f"{now.month:02d}", MONTHS[now.month - 1]),
        "months": [(f"{n:02d}", MONTHS[n - 1]) for n in range(1, 13)],
        "day": f"{now.day:02d}",
        "days": [f"{n:02d}" for n in range(1, 32)],
        "years": [str(now.year), str(now.year - 1)],
        "hour": f"{now.hour:02d}",
        "hours": [f"{n:02d}" for n in range(24)],
        "period": (str(period), rules.PERIOD_LABELS[period]),
    }


async def status_page(request: Request) -> Response:
    now = times.utc_now()
    site = site_url(request)
    answers = answers_of(request)
    # The same page for everyone until the data changes or, through the form's preselected date
    # and time, the quarter-hour does: rendered and gzipped once, then served as bytes.
    quarter = (now.date(), now.hour, rules.period_of_minute(now.minute))
    page = await answers.get(("status_page", site), (answers.revision(), quarter),
                             partial(_status_page, site, now, footer_line(request)))
    return page.response(request, {"Cache-Control": "no-cache"})


def _status_page(site: str, now, footer: str | None, conn) -> CachedPage:
    today = now.date()
    rows = page_store.grid_window(conn, grid.first_day(today), today)
    status_grid = grid.build_grid(today, map(grid.Report._make, rows))
    return CachedPage.render("status.html", site=site, grid=status_grid, markup=grid_html.render(status_grid, site),
                             day_headers=grid.day_headers(today), legend=grid.LEGEND,
                             catalog=page_store.catalog_names(conn), form=form_choices(now), footer=footer,
                             report_labels=submit_page.REPORT_CHOICES)


def _not_found(request: Request, name: str) -> Response:
    return render(request, "not_found.html", status=404, site=site_url(request), name=name)


async def satellite_page(request: Request) -> Response:
    return await _about_a_satellite(request, "satellite", _satellite_html, satellite_url)


async def satellite_feed(request: Request) -> Response:
    return await _about_a_satellite(request, "feed", _satellite_atom, feed_url)


async def _about_a_satellite(request: Request, kind: str, build, url_of) -> Response:
    """A satellite's page or feed, cached like the status page (per data revision and day). A
    display name or a retired name redirects to the API name's URL; an unknown name is 404."""
    site = site_url(request)
    name = request.path_params["name"]
    today = times.utc_now().date()
    answers = answers_of(request)
    found = await answers.get((kind, site, name), (answers.revision(), today),
                              partial(_find_and_build, name, partial(build, site, today)))
    if isinstance(found, CachedPage):
        return found.response(request, {"Cache-Control": "no-cache"})
    if found is not None:
        return RedirectResponse(url_of(site, found), status_code=301)
    return _not_found(request, name)


def _find_and_build(name: str, build, conn) -> CachedPage | str | None:
    """The built answer about the satellite `name` is the API name of (as stored), else the
    current name to redirect to, else None."""
    entry = page_store.satellite_entry(conn, name)
    api_name = entry.api_name if entry else page_store.stored_name(conn, name)
    if api_name is None:
        return store.resolve_api_name(conn, name)  # a display name or a retired name
    return build(conn, api_name, entry)


def _satellite_html(site: str, today, conn, api_name: str, entry) -> CachedPage:
    counts = page_store.history(conn, api_name, history.first_day(today))
    recent = page_store.recent_reports(conn, api_name, RECENT_REPORTS)
    return CachedPage.render("satellite.html", site=site, name=api_name, entry=entry,
                             strip=history.build_strip(today, counts), recent=recent,
                             latest=grid.latest_state(recent), legend=grid.LEGEND, read_time=times.read_form_time,
                             period_label=grid.period_label)


def _satellite_atom(site: str, today, conn, api_name: str, entry) -> CachedPage:
    recent = page_store.recent_reports(conn, api_name, feed.ENTRIES)
    # Without entries: the start of the day, so that the bytes (and the ETag) only change with
    # the feed's own reports, whichever process renders them and whatever else was written.
    updated = (feed.entry_time(recent[0].day, recent[0].hour, recent[0].period) if recent
               else f"{today.isoformat()}T00:00:00Z")
    return CachedPage.render("feed.atom", media_type="application/atom+xml; charset=utf-8", site=site,
                             name=api_name, entry=entry, reports=recent, updated=updated,
                             entry_time=feed.entry_time, period_label=grid.period_label)


_ASSETS = {"status.css": "text/css; charset=utf-8", "tooltips.js": "text/javascript; charset=utf-8"}


async def asset(request: Request) -> Response:
    name = request.path_params["file"]
    if name not in _ASSETS:
        return Response("Not Found", status_code=404, media_type="text/plain")
    return static_response(request, name, _ASSETS[name])


def routes() -> list[Route]:
    return [
        route("/", status_page),
        route("/index.php", status_page),
        route("/submit.php", submit_page.submit),
        Route("/satellite/{name:path}", satellite_page, methods=["GET"]),
        Route("/feeds/{name:path}.atom", satellite_feed, methods=["GET"]),
        Route("/assets/{file:str}", asset, methods=["GET"]),
    ]
