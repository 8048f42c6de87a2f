"""Builds the ASGI app: interface A, its pages and admin, and interface B, under the site prefix."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.types import ASGIApp

from sathub.archive.crawlers.robots import robots_route
from sathub.archive.links import WEB_PREFIXES
from sathub.archive.nntp.listening import nntp_listening
from sathub.archive.routes import routes as archive_routes
from sathub.archive.turns import Turns
from sathub.config import Settings
from sathub.db.engines import create_engine
from sathub.db.group_commit import GroupCommit
from sathub.server.hosts import HostCheck, parse_allowed
from sathub.server.request_log import RequestLog
from sathub.status.api.replay import ReplayedAnswers
from sathub.status.api.v2.replay import ReplayedV2
from sathub.status.cache import AnswerCache
from sathub.status.notify.webhook_delivery import webhook_delivery
from sathub.status.orbits.refresh import refreshing
from sathub.status.routes import EXCEPTION_HANDLERS as STATUS_EXCEPTION_HANDLERS
from sathub.status.routes import routes as status_routes
from sathub.status.store.accounts import session_is_current
from sathub.status.stream.pruning import pruning

# What upstream's web server answers for a path it does not serve (Apache's page, no signature).
NOT_FOUND_PAGE = """<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
<html><head>
<title>404 Not Found</title>
</head><body>
<h1>Not Found</h1>
<p>The requested URL was not found on this server.</p>
</body></html>
"""


async def not_found(request: Request, exc: Exception) -> Response:
    """An unknown path of interface A is upstream's HTML page, typed `text/html` without a charset
    as upstream's is; the archive keeps Starlette's text."""
    path = request.url.path.removeprefix(request.app.state.settings.prefix)
    if path.startswith(WEB_PREFIXES):
        assert isinstance(exc, HTTPException)
        return PlainTextResponse(exc.detail, status_code=exc.status_code)
    return Response(NOT_FOUND_PAGE, status_code=404, headers={"Content-Type": "text/html"})


class SathubApp(Starlette):
    """Starlette, with the read-only APIs' cache hits replayed before any middleware (/api/v2's,
    status/api/v2/replay.py, then version 1's, status/api/replay.py): a replayed answer was first
    made through the whole stack for the same Host, so it needs neither the Host check again nor
    the error page; skipping them is an eighth more requests per second. Outermost, the request
    log (server/request_log.py) sees every answer, replayed ones included."""

    def build_middleware_stack(self) -> ASGIApp:
        settings = self.state.settings
        stack: ASGIApp = ReplayedAnswers(super().build_middleware_stack(), self.state.answers, settings.prefix)
        stack = ReplayedV2(stack, self.state.answers, settings.prefix)  # /api/v2's, beside v1's
        return RequestLog(stack, access_log=bool(settings.access_log))


@asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """While the app serves: the stream's events past the retention pruned, by every serving
    process, the orbital elements refreshed (by one process at a time), the webhooks delivered
    (each by one process at a time) and the archive's NNTP listener, when it has a port; at its
    end, the revision probe's connections closed."""
    try:
        async with (
            pruning(app),
            refreshing(app),
            webhook_delivery(app),
            nntp_listening(app.state.settings, app.state.engine),
        ):
            yield
    finally:
        app.state.answers.probe.close()


def create_app(settings: Settings | None = None, engine=None) -> Starlette:
    settings = settings or Settings.from_env()
    routes: list[BaseRoute] = [*status_routes(), *archive_routes()]
    if settings.prefix:
        routes = [Mount(settings.prefix, routes=routes)]
    # At the host's root whatever the prefix: crawlers read /robots.txt and nothing else.
    routes = [robots_route(), *routes]
    engine = (
        engine
        if engine is not None
        else create_engine(
            settings.database_url,
            pool_size=settings.db_pool_size,
            max_overflow=settings.db_max_overflow,
            timeout=settings.db_timeout or None,
        )
    )
    answers = AnswerCache(engine)
    app = SathubApp(
        routes=routes,
        exception_handlers={404: not_found, **STATUS_EXCEPTION_HANDLERS},
        middleware=[Middleware(HostCheck, allowed=parse_allowed(settings.allowed_hosts))],
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.answers = answers
    app.state.writes = GroupCommit(engine)
    app.state.archive_turns = Turns(settings.archive_turns)
    # The admin session reaches the archive's pages, where its removal buttons are; the archive
    # checks it against interface A's accounts through this (admin_sessions.py).
    app.state.archive_prefixes = WEB_PREFIXES
    app.state.session_is_current = session_is_current
    return app


def app_from_env() -> Starlette:
    """Factory for uvicorn workers: settings travel through SATHUB_* variables."""
    app = create_app(Settings.from_env())
    # What a worker has built by now (modules, routes, the engine) lives as long as it does. Out
    # of the cyclic collector's sight, a full collection scans a few thousand objects instead of
    # ~90,000: in a write burst those stopped a worker for 35-70 ms about twice a second.
    gc.freeze()
    return app
