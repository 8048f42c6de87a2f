"""The server of bench/status_load.py's "miss" column: the shipped app, with every request's answer
computed from the database, as the first read of an answer after a write computes it.

Two layers answer a repeated request without computing it, and each is defeated here:
- the replay of whole answers (sathub/status/api/replay.py: an identical path and query, in the same
  second, at the same data revision) stays in place and misses honestly: every request of the load
  carries a query parameter of its own (`miss=<thread>-<n>`, wrk/miss.lua), which the endpoints
  ignore, so no two requests are identical;
- the answer cache (sathub/status/cache.py, per data revision) is replaced by `Forgetful`, which
  reads the revision as the real one does and then computes the answer on a pooled connection in
  the threadpool, as a miss does, for each request: nothing kept, and nothing shared with a
  concurrent request of the same answer (after a write the real cache shares one computation
  among the requests waiting for it; here each request pays its own, which is what the column is
  about).

`check()` proves both on the code being measured before a run: two requests of each endpoint,
two computations.

    SATHUB_DATABASE_URL=sqlite:///bench/out/status.db python -m uvicorn --factory bench.status_miss_app:create
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable

from starlette.concurrency import run_in_threadpool

from bench.clients import asgi_get
from sathub import db
from sathub.app import app_from_env, create_app
from sathub.config import Settings
from sathub.status.cache import AnswerCache


class Forgetful(AnswerCache):
    """An answer cache that keeps nothing: every answer is computed for the request asking."""

    computed = 0

    async def get(self, key: Hashable, revision, compute: Callable):
        return await self._compute_for_this_request(compute)

    async def refreshed(self, key: Hashable, whole: Callable, changes: Callable):
        self.revision()  # as the real one does first
        return await self._compute_for_this_request(whole)

    def derived(self, key: Hashable, version: Hashable, make: Callable[[], bytes]) -> bytes:
        return make()

    async def _compute_for_this_request(self, compute: Callable):
        self.computed += 1
        return await run_in_threadpool(self._on_pooled_connection, compute)

    def _on_pooled_connection(self, compute: Callable):
        with db.connect(self.engine) as conn:
            return compute(conn)


def forgetful(app):
    app.state.answers = Forgetful(app.state.engine)
    return app


def create():
    """uvicorn's factory: the app `sathub serve` builds, with the forgetful cache."""
    return forgetful(app_from_env())


def with_miss(path: str, number: int | str) -> str:
    """`path` with the parameter that makes it a request of its own (as wrk/miss.lua sends)."""
    return f"{path}{'&' if '?' in path else '?'}miss={number}"


def check(database_url: str, paths: list[str]) -> None:
    """Exit unless two requests of each path (each with its own `miss`) compute two answers and
    answer 200: the replay and the answer cache answer none of them."""
    app = forgetful(create_app(Settings.from_env(database_url=database_url)))

    async def both() -> list[str]:
        wrong = []
        for path in paths:
            before = app.state.answers.computed
            statuses = [(await asgi_get(app, with_miss(path, n)))[0] for n in ("check-1", "check-2")]
            if statuses != [200, 200] or app.state.answers.computed - before < 2:
                wrong.append(f"{path}: {statuses}, {app.state.answers.computed - before} computations")
        return wrong

    try:
        wrong = asyncio.run(both())
    finally:
        app.state.engine.dispose()
    if wrong:
        raise SystemExit("the miss server would not miss on this code (bench/status_miss_app.py): " + "; ".join(wrong))
