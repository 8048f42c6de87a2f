"""How one archive API request becomes a response: format, methods, errors, trailing slashes.

A View only says what its GET answers (a payload built from a Call); the Endpoint around it
gives every view the same behaviour: HEAD, OPTIONS, 405, `?format=`, and JSON errors."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

from sqlalchemy.engine import Connection, Engine
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import get_route_path
from starlette.types import Receive, Scope, Send

from sathub import db
from sathub.archive.api import paging, render
from sathub.archive.api.links import Links, quote_path
from sathub.db.engines import DatabaseUnavailable
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

    @contextlib.contextmanager
    def connect(self) -> Iterator[Connection]:
        """All statements of one answer read one snapshot (SQLite's reads are one transaction
        already): a list made private meanwhile cannot leak between its check and the rows."""
        with db.connect(self.engine) as conn:
            if conn.dialect.name == "postgresql":
                conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    @cached_property
    def page(self) -> paging.Page | None:
        return paging.requested_page(self.request.query_params)

    def listing(self, results: list, count: int | None, self_link: str):
        """`results` as a bare array, or in the envelope when `?limit=` asked for one."""
        if self.page is None:
            return results
        return paging.envelope(count, results, self.page, self.links.without_format(self_link),
                               self.request.query_params.multi_items())


@dataclass(frozen=True)
class View:
    name: str  # as HyperKitty's OPTIONS and page title say it
    description: str
    get: Callable[[Call], object]


class Endpoint:
    """ASGI app serving `view` under one API prefix; accepts every method to answer 405 itself."""

    def __init__(self, view: View, prefix: str) -> None:
        self.view, self.prefix = view, prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await run_in_threadpool(self.respond, Request(scope, receive))
        await response(scope, receive, send)

    def respond(self, request: Request) -> Response:
        head = request.method == "HEAD"
        format_value = request.query_params.get("format") or None
        if format_value is not None and format_value not in FORMATS:
            return render.json_error(404, render.NOT_FOUND, head)
        links = Links(site_url(request), self.prefix, format_value)
        html_page = format_value == "api" or (
            format_value is None and render.wants_html(request.headers.get("accept", "")))
        status = 200
        try:
            if request.method in ("GET", "HEAD"):
                payload = self.view.get(Call(request, links, engine_of(request)))
            elif request.method == "OPTIONS":
                payload = {"name": self.view.name, "description": self.view.description,
                           "renders": render.RENDERS, "parses": render.PARSES}
            else:
                raise render.ApiError(405, f'Method "{request.method}" not allowed.')
        except render.ApiError as error:
            status, payload = error.status, {"detail": error.detail}
        except DatabaseUnavailable:
            status, payload = 503, {"detail": render.UNAVAILABLE}
        return render.answer(payload, status=status, html_page=html_page, head=head, title=self.view.name,
                             request=request, index_link=links.index())


class AddSlash:
    """ASGI app answering 301 to the same path with `/` appended, query kept, for every method.

    The Location is absolute, from the public base URL (HyperKitty's is relative)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = scope.get("query_string", b"").decode("latin-1")
        location = (f"{site_url(Request(scope))}{quote_path(get_route_path(scope))}/"
                    + (f"?{query}" if query else ""))
        await Response(status_code=301, headers={"Location": location})(scope, receive, send)


class NotFound:
    """ASGI app for any other path under an API prefix: HyperKitty has no route there; JSON 404."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = render.json_error(404, render.NOT_FOUND, scope["method"] == "HEAD")
        await response(scope, receive, send)
