"""The legacy bare-array endpoints that existing apps still call: satellites.php and sat_info.php.

They answer 200 with an array for any name or hours value; only 405/503 use the envelope."""

from __future__ import annotations

from datetime import timedelta

from starlette.requests import Request
from starlette.responses import Response

from sathub.status import rules, times
from sathub.status.api import php_query
from sathub.status.api.php_json import php_compact_json
from sathub.status.api.responses import endpoint, legacy_array
from sathub.status.cache import answers_of
from sathub.status.store import catalog, reports


@endpoint("GET")
async def satellites(request: Request) -> Response:
    def render(conn) -> bytes:
        return php_compact_json(
            [
                {"id": row.id, "name": row.display_name, "html_element_name": row.api_name, "website": row.website}
                for row in catalog.catalog(conn)
            ]
        )

    answers = answers_of(request)
    return legacy_array(await answers.get(("satellites",), answers.revision(), render))


def sat_info_hours(raw: php_query.PhpValue | None) -> int:
    """Default 72; a numeric value is truncated and clamped to 1..96; anything else is 72."""
    value = rules.php_int(raw) if isinstance(raw, str) else None
    return 72 if value is None else rules.clamp(value, 1, 96)


@endpoint("GET")
async def sat_info(request: Request) -> Response:
    name = php_query.text(request, "name")
    if name is None:
        return legacy_array([])  # no database needed, so this works while it is down
    hours = sat_info_hours(php_query.raw(request, "hours"))
    window = times.first_included_hour(times.utc_now() - timedelta(hours=hours))

    def render(conn) -> bytes:
        # Old rows may hold a NULL grid; clients need a string (clients.md, item 3).
        return php_compact_json(
            [
                {
                    "name": row.name,
                    "reported_time": times.read_form_time(row.day, row.hour),
                    "callsign": row.callsign,
                    "report": row.report,
                    "grid_square": row.grid_square or "",
                }
                for row in reports.sat_info(conn, name, window)
            ]
        )

    answers = answers_of(request)
    return legacy_array(await answers.get(("sat_info", name.lower(), window), answers.revision(), render))
