"""Interface A's URL table: every path it serves and the handler behind it, at upstream's paths
(status-api.md). Most routes hand every method to their handler, which answers OPTIONS, HEAD and
405 itself (api/responses.endpoint) or serves the page for any method, as PHP does."""

from __future__ import annotations

import re

from starlette.routing import Route

from sathub.db.engines import UNREACHABLE
from sathub.status.admin import views as admin
from sathub.status.api import docs_pages, legacy_arrays, v1
from sathub.status.api.v2 import endpoints as v2
from sathub.status.notify import feeds
from sathub.status.orbits import passes_door
from sathub.status.pages import outage, satellite_pages, status_page, submit
from sathub.status.stream import door as stream

# The pages' answer while the database is away (the API endpoints answer their own envelope).
EXCEPTION_HANDLERS = dict.fromkeys(UNREACHABLE, outage.database_unavailable)


def _any_method(path: str, endpoint) -> Route:
    route = Route(path, endpoint)
    route.methods = None
    return route


def _any_name(route: Route) -> Route:
    """A satellite's name in the path matches whatever it holds, a line break included (the `path`
    convertor's `.*` stops at one), so that a name no satellite has is the door's own 404."""
    route.path_regex = re.compile(route.path_regex.pattern, re.DOTALL)
    return route


def _docs_pages() -> list[tuple[str, object]]:
    """Both generations of upstream's docs pages: /api/... (the first) and /api/v1/..."""
    pages = [("/api/", docs_pages.overview_endpoint(docs_pages.FIRST))]
    for generation in (docs_pages.FIRST, docs_pages.LATER):
        folder = generation.folder
        pages += [
            (f"{folder}/docs.php", docs_pages.swagger_endpoint(generation)),
            (f"{folder}/acknowledgements.php", docs_pages.acknowledgements_endpoint(generation)),
            (f"{folder}/{generation.overview_page}", docs_pages.overview_endpoint(generation)),
        ]
    return pages


def routes() -> list[Route]:
    any_method = [
        ("/api/v1/", v1.index),
        ("/api/v1/index.php", v1.index),
        ("/api/v1/catalog.php", v1.catalog),
        ("/api/v1/reports.php", v1.reports_endpoint),
        ("/api/v1/summary.php", v1.summary),
        ("/api/v1/statuses.php", v1.statuses),
        ("/api/v1/health.php", v1.health),
        ("/api/v1/openapi.php", v1.openapi),
        ("/api/v1/openapi.json", v1.openapi),
        ("/api/v1/satellites.php", legacy_arrays.satellites),
        ("/api/v1/sat_info.php", legacy_arrays.sat_info),
        ("/api/v2/stream", stream.stream),
        ("/api/v2/status", v2.status),
        ("/api/v2/satellites", v2.satellites),
        ("/api/v2/reports", v2.reports),
        ("/api/v2/grid-squares", v2.grid_squares),
        ("/api/v2/passes", passes_door.passes),
        ("/api/v2/openapi.json", v2.openapi),
        ("/api/v2/docs", docs_pages.swagger_endpoint(docs_pages.V2)),
        *_docs_pages(),
        ("/", status_page.status_page),
        ("/index.php", status_page.status_page),
        ("/submit.php", submit.submit),
        ("/admin/", admin.login_form),
        ("/admin/index.php", admin.login_form),
        ("/admin/login.php", admin.login),
        ("/admin/logout.php", admin.logout),
        ("/admin/dashboard.php", admin.dashboard),
        ("/admin/add_satellite.php", admin.add_satellite),
        ("/admin/create_satellite.php", admin.create_satellite),
        ("/admin/manage_satellites.php", admin.manage_satellites),
        ("/admin/edit_satellite.php", admin.edit_satellite),
        ("/admin/update_satellite.php", admin.update_satellite),
        ("/admin/delete_satellite.php", admin.delete_satellite),
    ]
    return [
        *(_any_method(path, endpoint) for path, endpoint in any_method),
        _any_name(_any_method("/api/v2/satellites/{name:path}/reports.atom", feeds.reports_feed)),
        _any_name(_any_method("/api/v2/satellites/{name:path}/status.atom", feeds.status_feed)),
        Route("/api/swagger-ui/{name}", docs_pages.swagger_asset, methods=["GET", "HEAD"]),
        Route("/satellite/{name:path}", satellite_pages.satellite_page, methods=["GET"]),
        Route("/feeds/{name:path}.atom", satellite_pages.satellite_feed, methods=["GET"]),
        Route("/assets/{file:str}", status_page.asset, methods=["GET"]),
        Route("/admin/assets/global.css", admin.stylesheet, methods=["GET"]),
        Route("/admin/webhooks.php", admin.list_webhooks, methods=["GET", "HEAD"]),
        Route("/admin/add_webhook.php", admin.add_webhook, methods=["POST"]),
        Route("/admin/change_webhook.php", admin.change_webhook, methods=["POST"]),
    ]
