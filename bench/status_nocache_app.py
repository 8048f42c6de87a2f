"""The real interface A app with its per-process answer cache switched off, for the benchmark.

The app keeps rendered answers while the database's data revision is unchanged, so a read-only
load mostly measures cache hits. Real traffic writes now and then, and every write makes the next
read of each kind a miss; this factory measures that miss path on every request: it still reads
the revision (as a miss does) and then runs the queries and renders the answer.

    SATHUB_DATABASE_URL=sqlite:///bench/out/status.db .venv/bin/uvicorn --app-dir bench \
        --factory status_nocache_app:create --workers 2 --loop uvloop --http httptools
"""

from starlette.concurrency import run_in_threadpool

from sathub.app import app_from_env


def create():
    return switch_off(app_from_env())


def switch_off(app):
    """The app with its answer cache replaced by one that computes every answer."""
    cache = app.state.answers

    async def get(key, revision, compute):
        """AnswerCache.get that keeps nothing: every request computes, as a miss does."""
        return await run_in_threadpool(cache._compute, compute)

    cache.get = get
    return app
