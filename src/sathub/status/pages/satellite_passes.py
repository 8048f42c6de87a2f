"""The next passes on each satellite's page (docs/pages.md, "Satellite pages and feeds"): over a
grid square the reader enters in a GET form (`?grid=FN31pr`), remembered in a cookie, no
JavaScript. The computation is /api/v2/passes' (orbits/passes.py), for the page's NORAD number.

The page without a square is the cached page as it was (satellite_pages.py), its pass section the
form alone, between two markers. With a square, that section is rendered for it and put in the
markers' place; the page so made is kept per grid square under what moves either part: the data
revision and the day (the page), the elements revision and the minute (the passes). Every answer
says `Vary: Cookie`, since one URL shows each reader the passes over their own square."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from urllib.parse import urlsplit

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from sathub.db.engines import Connection
from sathub.status import times
from sathub.status.cache import answers_of
from sathub.status.orbits.elements import ElementSet, usable_over
from sathub.status.orbits.passes import Pass, Sky, grid_place, sky_over
from sathub.status.rules import parse_grid
from sathub.status.store import catalog
from sathub.status.store import elements as elements_store
from sathub.status.templating import CachedPage, environment
from sathub.web import settings_of, site_url

COOKIE = "sathub_grid"
COOKIE_SECONDS = 365 * 86400
HOURS = 24
MINUTE = 60
HEADERS = {"Cache-Control": "no-cache", "Vary": "Accept-Encoding, Cookie"}
TYPED_SHOWN = 40  # characters of a bad square shown back in the field and the message
START, END = b"<!--passes-->", b"<!--/passes-->"
COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"]


@dataclass(frozen=True)
class Chosen:
    """The square a request asks passes for: `grid` (as stored everywhere: FN31pr), or an `error`
    about what the reader `typed`, or neither. `cookie`: 'set' to the grid, 'delete', or None."""

    grid: str | None = None
    typed: str = ""
    error: str | None = None
    cookie: str | None = None


def chosen(request: Request) -> Chosen:
    """The query's square (`forget` drops the remembered one), else the cookie's."""
    query, remembered = request.query_params, request.cookies.get(COOKIE)
    if "forget" in query:
        return Chosen(cookie="delete" if remembered is not None else None)
    if "grid" in query:
        typed = query["grid"].strip()[:TYPED_SHOWN]
        grid = parse_grid(typed)
        if grid is None:
            shown = f"“{typed}” is not" if typed else "Enter"
            return Chosen(typed=typed, error=f"{shown} a grid square: 4 or 6 characters, such as FN31 or FN31pr.")
        return Chosen(grid=grid, typed=grid, cookie="set")
    if remembered is None:
        return Chosen()
    grid = parse_grid(remembered)
    return Chosen(grid=grid, typed=grid) if grid else Chosen(cookie="delete")  # a cookie not ours to read


def form_only(site: str, name: str) -> Markup:
    """The section as the cached page holds it: the form, nothing entered."""
    return _section(site, name, Chosen())


async def respond(request: Request, page: CachedPage, label: tuple) -> Response:
    """The satellite's page `page` (kept under `label`: the data revision and the day) with the
    pass section the request asks for, and the cookie set or deleted as it says."""
    choice = chosen(request)
    site = site_url(request)
    if choice.error is not None:
        name = request.path_params["name"]
        response = _spliced(page, _section(site, name, choice)).response(request, HEADERS, status=400)
    elif choice.grid is not None:
        answers = answers_of(request)
        now = times.utc_now().timestamp()
        start = float(now - now % MINUTE)
        elements_revision = elements_store.probed_elements_revision(answers.probe)
        max_age_days = settings_of(request).elements_max_age_days
        built = await answers.get(
            ("satellite-passes", site, request.path_params["name"], choice.grid),
            (*label, elements_revision, start),
            partial(_page_with_passes, page, site, request.path_params["name"], choice.grid, start, max_age_days),
        )
        response = built.response(request, HEADERS)
    else:
        response = page.response(request, HEADERS)
    path = urlsplit(site).path + "/satellite/"
    if choice.cookie == "set":
        secure = site.startswith("https:")
        response.set_cookie(
            COOKIE, choice.grid or "", COOKIE_SECONDS, path=path, secure=secure, httponly=True, samesite="lax"
        )
    elif choice.cookie == "delete":
        response.delete_cookie(COOKIE, path=path)
    return response


def _page_with_passes(
    page: CachedPage, site: str, name: str, grid: str, start: float, max_age_days: int, conn: Connection
) -> CachedPage:
    entry = catalog.entry_named(conn, name)
    api_name = entry.api_name if entry else name  # a name only on old reports has no number
    number = elements_store.norad_ids_by_name(conn).get(api_name)
    element_set = None if number is None else elements_store.current_element_sets(conn, [number]).get(number)
    end = start + HOURS * 3600
    sky = None
    if element_set is not None and usable_over(element_set.epoch, start, end, max_age_days):
        place = grid_place(grid)
        assert place is not None, "chosen() gave a locator"
        sky = sky_over(element_set.satrec(), place, start, end)
    found = _Found(number, element_set, sky, start, max_age_days)
    return _spliced(page, _section(site, api_name, Chosen(grid=grid, typed=grid), found))


@dataclass(frozen=True)
class _Found:
    number: int | None
    element_set: ElementSet | None
    sky: Sky | None  # None: no elements, or too old for the window
    start: float
    max_age_days: int


def _section(site: str, name: str, choice: Chosen, found: _Found | None = None) -> Markup:
    context: dict = {"site": site, "name": name, "choice": choice, "hours": HOURS, "found": found}
    if found is not None:
        place = grid_place(choice.grid or "")
        assert place is not None
        context |= {
            "latitude": float(place.latitude[0]),
            "longitude": float(place.longitude[0]),
            "start": _moment(found.start),
            "epoch": None if found.element_set is None else _moment(found.element_set.epoch),
            "max_age_days": found.max_age_days,
            "rows": [_row(one) for one in found.sky.passes] if found.sky else [],
            "now_direction": None if found.sky is None else _direction(found.sky.elevation, found.sky.azimuth),
        }
    return Markup(environment.get_template("satellite_passes.html").render(**context))


def _spliced(page: CachedPage, section: Markup) -> CachedPage:
    head, rest = page.body.split(START, 1)
    _, tail = rest.split(END, 1)
    return CachedPage.of(head + section.encode() + tail)


def _row(found: Pass) -> dict:
    return {
        "day": _moment(found.rise)["day"],
        "rise": {**_moment(found.rise), "azimuth": _azimuth(found.rise_azimuth)},
        "culmination": {**_moment(found.culmination), "azimuth": _azimuth(found.culmination_azimuth)},
        "set": {**_moment(found.set), "azimuth": _azimuth(found.set_azimuth)},
        "max_elevation": f"{found.max_elevation:.1f}°",
        "in_progress": found.in_progress,
        "set_clipped": found.set_clipped,
    }


def _moment(seconds: float) -> dict:
    instant = datetime.fromtimestamp(round(seconds), UTC)
    return {"iso": times.iso_z(instant), "day": instant.date().isoformat(), "clock": instant.strftime("%H:%M:%S")}


def _azimuth(degrees: float) -> str:
    return f"{degrees:.0f}° {COMPASS[round(degrees / 22.5) % 16]}"


def _direction(elevation: float, azimuth: float) -> str:
    return f"elevation {elevation:.1f}°, azimuth {_azimuth(azimuth)}"
