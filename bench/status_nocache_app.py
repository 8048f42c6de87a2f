"""The real interface A app with its per-process answer cache switched off, for the benchmark.

The app keeps rendered answers while the database's data revision is unchanged, so a read-only
load mostly measures cache hits. Real traffic writes now and then, and every write makes the next
read of each kind a miss; this factory measures that miss path on every request: it still reads
the revision (as a miss does) and then runs the queries and renders the answer.

    SATHUB_DATABASE_URL=sqlite:///bench/out/status.db .venv/bin/uvicorn --app-dir bench \
        --factory status_nocache_app:create --workers 2 --loop uvloop --http httptools
"""

from sathub.app import app_from_env
from sathub.db import connect


class NoCache:
    """Same interface as sathub.status.cache.RevisionCache, never keeps anything."""

    def get_or_compute(self, key, revision, compute):
        return compute()


def create():
    app = app_from_env()
    if hasattr(app.state, "answers"):
        # AnswerCache(engine).get(key, revision, compute(conn)): compute on a pooled connection, keep nothing.
        cache = app.state.answers

        def get(key, revision, compute):
            with connect(cache.engine) as conn:
                return compute(conn)

        cache.get = get
    else:  # the earlier RevisionCache API
        app.state.answer_cache = NoCache()
    return app
