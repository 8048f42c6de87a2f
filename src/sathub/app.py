"""Builds the ASGI app: interface A, its pages and admin, and interface B, under the site prefix."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Mount

from sathub.archive.api.routes import routes as archive_routes
from sathub.config import Settings
from sathub.db import create_engine
from sathub.status.cache import AnswerCache
from sathub.status.routes import routes as status_routes


def create_app(settings: Settings | None = None, engine=None) -> Starlette:
    settings = settings or Settings.from_env()
    routes = [*status_routes(), *archive_routes()]
    if settings.prefix:
        routes = [Mount(settings.prefix, routes=routes)]
    app = Starlette(routes=routes)
    app.state.settings = settings
    app.state.engine = engine if engine is not None else create_engine(settings.database_url)
    app.state.answers = AnswerCache(app.state.engine)
    return app


def app_from_env() -> Starlette:
    """Factory for uvicorn workers: settings travel through SATHUB_* variables."""
    return create_app(Settings.from_env())
