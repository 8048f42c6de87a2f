"""GET /api/v2/passes (docs/api-v2.md, docs/orbits.md "Passes"): the passes of the catalog's
satellites over a grid square, with each satellite's current status by the grid's rule.

Three computations are kept in the per-process answer cache (cache.py), each under what moves it:
the sky over a grid square (every satellite with elements; orbits/passes.py) under the elements
revision and the minute; each satellite's current status under the data revision, for every grid
square; and the answer itself under both. A repeated request costs the two revision reads."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

from starlette.requests import Request
from starlette.responses import Response

from sathub.db.engines import Connection
from sathub.status import grid, times
from sathub.status.api.responses import ApiError
from sathub.status.api.v2 import params
from sathub.status.api.v2.answers import Answer, answered, cached, endpoint
from sathub.status.api.v2.names import resolved_names
from sathub.status.cache import answers_of
from sathub.status.orbits.elements import ElementSet, usable_over
from sathub.status.orbits.passes import Sky, grid_place, sky_over
from sathub.status.records import STATUS_OF_STATE
from sathub.status.rules import parse_grid
from sathub.status.store import catalog as catalog_store
from sathub.status.store import elements as elements_store
from sathub.status.store import reports as report_store
from sathub.web import settings_of

PASSES_CACHE = "public, max-age=60"
MINUTE = 60
HOURS = (24, 1, 72)  # default, lowest, highest
MIN_ELEVATION = (0, 0, 90)

Skies = dict[int, tuple[ElementSet, Sky | None]]  # by NORAD number; None: elements too old


def once(request: Request, name: str) -> None:
    """A parameter that is one value (not `name`) given twice is a question asked two ways: 400."""
    given = request.query_params.getlist(name)
    if len(given) > 1:
        raise ApiError(400, "invalid_parameter", f"Parameter '{name}' may be given once.", {name: given})


def read_grid(request: Request) -> str:
    once(request, "grid")
    value = params.text(request, "grid") if "grid" in request.query_params else None
    found = None if value is None else parse_grid(value)
    if found is None:
        message = "Parameter 'grid' is required: a 4- or 6-character Maidenhead locator (FN31, FN31pr)."
        raise ApiError(400, "invalid_grid_square", message, {"grid": value or ""})
    return found


def read_names(request: Request) -> tuple[str, ...]:
    """Every `name`, repeated or comma-separated (`name=AO-91,SO-50`), without repeats."""
    pieces = [piece.strip() for name in params.names(request) for piece in name.split(",")]
    if "" in pieces:
        raise ApiError(400, "invalid_parameter", "Parameter 'name' must not hold a blank name.", {"name": ""})
    return tuple(dict.fromkeys(pieces))


def read_number(request: Request, name: str, rule: tuple[int, int, int]) -> int:
    once(request, name)
    return params.integer(request, name, *rule)


@endpoint
async def passes(request: Request) -> Response:
    grid_square = read_grid(request)
    names = read_names(request)
    hours = read_number(request, "hours", HOURS)
    min_elevation = read_number(request, "min_elevation", MIN_ELEVATION)
    now = times.utc_now().timestamp()
    start = float(now - now % MINUTE)
    answers = answers_of(request)
    revision = answers.revision()
    elements_revision = elements_store.probed_elements_revision(answers.probe)
    window = (grid_square, hours, min_elevation)
    skies = await answers.get(
        ("v2", "passes-sky", *window),
        (elements_revision, start),
        partial(_skies, grid_square, start, hours, min_elevation, settings_of(request).elements_max_age_days),
    )
    exclude = settings_of(request).status_implausible == "exclude"  # as /api/v2/status colours
    statuses = await answers.get(("v2", "passes-status"), revision, partial(_statuses, exclude))
    answer = await cached(
        request,
        ("passes", *window, names),
        (revision, elements_revision, start),
        partial(_answer, window, start, names, skies, statuses),
    )
    return answered(request, answer, PASSES_CACHE)


def _skies(
    grid_square: str, start: float, hours: int, min_elevation: int, max_age_days: int, conn: Connection
) -> Skies:
    place = grid_place(grid_square)
    assert place is not None, "read_grid gave a locator"
    end = start + hours * 3600
    found: Skies = {}
    for norad_id, element_set in elements_store.current_element_sets(conn).items():
        fresh = usable_over(element_set.epoch, start, end, max_age_days)
        sky = sky_over(element_set.satrec(), place, start, end, min_elevation) if fresh else None
        found[norad_id] = (element_set, sky)
    return found


def _statuses(exclude_implausible: bool, conn: Connection) -> dict[str, dict]:
    """Each catalog entry's current status, by API name lower-cased: its newest two-hour cell with
    reports on the status page (six days), in /api/v2/status's words, and its latest report ever."""
    today = times.utc_now().date()
    hourly = report_store.hourly_counts(conn, grid.first_day(today), today, exclude_implausible=exclude_implausible)
    rows = grid.count_grid(today, hourly)
    cells = {name.lower(): next((cell for cell in row if cell is not None), None) for name, row in rows}
    entries, _ = catalog_store.catalog_entries(conn)
    found = {}
    for entry in entries:
        cell = cells.get(entry.api_name.lower())
        found[entry.api_name.lower()] = {
            "name": entry.api_name,
            "display_name": entry.display_name,
            "status": "none" if cell is None else STATUS_OF_STATE[cell.look[0].key],
            "latest_report_time": times.read_form_time(entry.latest_day, entry.latest_hour) if entry.latest_day else "",
        }
    return found


def _answer(
    window: tuple[str, int, int], start: float, given: tuple[str, ...], skies: Skies, statuses: dict, conn: Connection
) -> Answer | ApiError:
    grid_square, hours, min_elevation = window
    numbers = elements_store.norad_ids_by_name(conn)
    if given:
        found = resolved_names(given, conn)
        if isinstance(found, ApiError):  # a name is part of the question here, not a resource
            return ApiError(400, found.code, found.message, found.details)
        asked = found.api_names
    else:
        asked = tuple(sorted(numbers, key=str.lower))
    by_number: dict[int, list[str]] = {}
    left_out = []
    for name in asked:
        number = numbers.get(name)
        if number is None or number not in skies:
            left_out.append({"name": name, "reason": "no_norad_id" if number is None else "no_elements"})
        else:
            by_number.setdefault(number, []).append(name)
    data: list[dict] = []
    always_above: list[dict] = []
    always_below: list[dict] = []
    for number, names in sorted(by_number.items()):
        element_set, sky = skies[number]
        epoch = _iso(element_set.epoch)
        if sky is None or sky.failed:
            reason = "elements_too_old" if sky is None else "propagation_failed"
            left_out += [{"name": name, "reason": reason, "elements_epoch": epoch} for name in names]
            continue
        satellite = {
            "norad_id": number,
            "object_name": element_set.object_name,
            "elements_epoch": epoch,
            "satellites": [statuses.get(name.lower(), _unlisted(name)) for name in names],
        }
        if sky.always is not None:
            where = {**satellite, "elevation": _angle(sky.elevation), "azimuth": _angle(sky.azimuth)}
            (always_above if sky.always == "above" else always_below).append(where)
        data += [{**satellite, **_pass_record(found)} for found in sky.passes]
    data.sort(key=lambda record: (record["rise"], record["norad_id"]))
    place = grid_place(grid_square)
    assert place is not None, "read_grid gave a locator"
    meta = {
        "grid": grid_square,
        "latitude": round(float(place.latitude[0]), 6),
        "longitude": round(float(place.longitude[0]), 6),
        "start": _iso(start),
        "end": _iso(start + hours * 3600),
        "hours": hours,
        "min_elevation": min_elevation,
        "count": len(data),
        "always_above": always_above,
        "always_below": always_below,
        "left_out": sorted(left_out, key=lambda item: item["name"].lower()),
    }
    return Answer.of({"data": data, "meta": meta})


def _unlisted(name: str) -> dict:
    return {"name": name, "display_name": "", "status": "none", "latest_report_time": ""}


def _pass_record(found) -> dict:
    return {
        "rise": _iso(found.rise),
        "rise_azimuth": _angle(found.rise_azimuth),
        "culmination": _iso(found.culmination),
        "culmination_azimuth": _angle(found.culmination_azimuth),
        "max_elevation": _angle(found.max_elevation),
        "set": _iso(found.set),
        "set_azimuth": _angle(found.set_azimuth),
        "in_progress": found.in_progress,
        "set_clipped": found.set_clipped,
    }


def _iso(seconds: float) -> str:
    return times.iso_z(datetime.fromtimestamp(round(seconds), UTC))


def _angle(degrees: float) -> float:
    return round(degrees, 1)
