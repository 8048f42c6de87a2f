"""How one archive API request becomes a response: format, methods, errors, trailing slashes.

A View only says what its GET answers (a payload built from a Call); the Endpoint around it
(an ArchiveEndpoint, edge.py) gives every view the same behaviour: HEAD, OPTIONS, 405,
`?format=`, errors in the negotiated format, and caching.py's validators (a list's revision for
the paths of a list, the whole archive's for the others): a copy that is current is a 304 before
the view reads anything."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import get_route_path
from starlette.types import Receive, Scope, Send

from sathub import db
from sathub.archive.api import paging, render
from sathub.archive.caching import Kind, Validators, of_archive, of_list
from sathub.archive.edge import ArchiveEndpoint, ArchiveError, json_error
from sathub.archive.links import Links, quote_path
from sathub.db.engines import Connection, Engine
from sathub.web import engine_of, site_url

FORMATS = ("json", "api")


@dataclass
class Call:
    """One GET of a view: its path parameters, query, links and database."""

    request: Request
    links: Links
    engine: Engine

    @property
    def params(self) -> dict[str, str]:
        return self.request.path_params

    def connect(self) -> contextlib.AbstractContextManager[Connection]:
        """All statements of one answer read one snapshot: a list made private meanwhile cannot
        leak between its check and the rows."""
        return db.connect(self.engine, snapshot=True)

    @cached_property
    def page(self) -> paging.Page | None:
        return paging.requested_page(self.request.query_params)

    def listing(self, results: list, count: int | None, self_link: str):
        """`results` as a bare array, or in the envelope when `?limit=` asked for one."""
        if self.page is None:
            return results
        assert count is not None, "a paged listing counts its rows"
        return paging.envelope(
            count, results, self.page, self.links.without_format(self_link), self.request.query_params.multi_items()
        )


@dataclass(frozen=True)
class View:
    name: str  # as HyperKitty's OPTIONS and page title say it
    description: str
    get: Callable[[Call], object]
    kind: Kind = Kind.LISTING  # its Cache-Control (caching.py)


class Endpoint(ArchiveEndpoint):
    """The API's door: `view` under one API prefix, its answers and errors in the negotiated format."""

    methods = ("GET", "HEAD", "OPTIONS")

    def __init__(self, view: View, prefix: str) -> None:
        self.view, self.prefix = view, prefix

    def refuse_early(self, request: Request) -> None:
        if _format(request) not in (None, *FORMATS):
            raise ArchiveError(404)  # before the method, as DRF negotiates before it dispatches

    async def respond(self, request: Request) -> Response:
        return await run_in_threadpool(self._respond, request)

    def _respond(self, request: Request) -> Response:
        payload: object
        if request.method == "OPTIONS":
            payload = {
                "name": self.view.name,
                "description": self.view.description,
                "renders": render.RENDERS,
                "parses": render.PARSES,
            }
            return self._answer(request, payload, 200)
        call = Call(request, self._links(request), engine_of(request))
        fresh = self._validators(call)
        if fresh is not None and fresh.current(request):
            response = fresh.not_modified()
            response.headers["Vary"] = "Accept"
            return response
        response = self._answer(request, self.view.get(call), 200)
        response.headers.update(fresh.headers if fresh else {})
        return response

    def _validators(self, call: Call) -> Validators | None:
        """Read before the view's rows; the page and the JSON of one URL are two answers."""
        request = call.request
        variant = self._html_page(request)
        with db.connect(call.engine) as conn:
            if "address" in call.params:
                return of_list(conn, request, self.view.kind, call.params["address"], variant)
            within = request.query_params.get("mlist") or None if self.view.kind is Kind.SEARCH else None
            return of_archive(conn, request, self.view.kind, variant, within=within)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        return self._answer(request, {"detail": error.detail}, error.status)

    def _links(self, request: Request) -> Links:
        return Links(site_url(request), self.prefix, _format(request))

    def _answer(self, request: Request, payload, status: int) -> Response:
        return render.answer(
            payload,
            status=status,
            html_page=self._html_page(request),
            title=self.view.name,
            request=request,
            index_link=self._links(request).index(),
        )

    def _html_page(self, request: Request) -> bool:
        """The browsable page rather than JSON: `?format=api`, or a browser's Accept."""
        format_value = _format(request)
        return format_value == "api" or (format_value is None and render.wants_html(request.headers.get("accept", "")))


def _format(request: Request) -> str | None:
    return request.query_params.get("format") or None


class AddSlash:
    """ASGI app answering 301 to the same path with `/` appended, query kept, for every method.

    The Location is absolute, from the public base URL (HyperKitty's is relative)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = scope.get("query_string", b"").decode("latin-1")
        location = f"{site_url(Request(scope))}{quote_path(get_route_path(scope))}/" + (f"?{query}" if query else "")
        await Response(status_code=301, headers={"Location": location})(scope, receive, send)


class NotFound(ArchiveEndpoint):
    """Any other path under an API prefix: HyperKitty has no route there; a JSON 404 for every method."""

    def refuse_early(self, request: Request) -> None:
        raise ArchiveError(404)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        return json_error(error.status, error.detail, render.ALLOW)
