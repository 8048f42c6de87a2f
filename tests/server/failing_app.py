"""An ASGI app whose startup fails (its lifespan raises): what tests/server/test_workers.py serves
to see the supervisor stop with uvicorn's STARTUP_FAILURE."""

from contextlib import asynccontextmanager

from starlette.applications import Starlette


@asynccontextmanager
async def _failing(app):
    raise RuntimeError("this app never starts")
    yield


app = Starlette(lifespan=_failing)
