"""Events past the retention (SATHUB_STREAM_RETENTION_HOURS) deleted by every serving process,
every PRUNE_EVERY_SECONDS, whether or not anyone listens to its stream.

Why every process and not the hub: the triggers of migration 0009 record events whatever serves
the stream, so a deployment where nobody subscribes (or whose subscribers all reach another
process) must not keep them for ever. Why not at write time: a DELETE in the writers'
transactions would cost every POST; this is one DELETE per process every ten minutes, of the
ten minutes of events that went past the retention meanwhile. Processes pruning at once only
delete the same rows: the second finds them gone."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from sathub.db.engines import UNREACHABLE, Engine, connect
from sathub.status.store import events as store

PRUNE_EVERY_SECONDS = 600.0
# The first prune waits this long (and a random share of it, so that workers started together
# do not all prune at once): a process that starts and stops (a test, a deploy) prunes nothing.
FIRST_PRUNE_SECONDS = 60.0
log = logging.getLogger("sathub.status.stream")


@asynccontextmanager
async def pruning(app: Starlette) -> AsyncIterator[None]:
    """The app's lifespan: prunes while the process serves."""
    settings, engine = app.state.settings, app.state.engine
    task = asyncio.create_task(prune_periodically(engine, settings.stream_retention_hours), name="sathub-prune")
    try:
        yield
    finally:
        task.cancel()


async def prune_periodically(engine: Engine, retention_hours: int) -> None:
    await asyncio.sleep(FIRST_PRUNE_SECONDS * (1 + random.random()))
    while True:
        try:
            before = int(time.time()) - retention_hours * 3600
            pruned = await run_in_threadpool(prune, engine, before)
            if pruned:
                log.info("stream: %d events older than %d hours pruned", pruned, retention_hours)
        except UNREACHABLE as exc:
            log.warning("stream: database unavailable while pruning events (%s)", exc)
        except Exception:
            log.exception("stream: pruning events failed")
        await asyncio.sleep(PRUNE_EVERY_SECONDS)


def prune(engine: Engine, before: int) -> int:
    """Delete the events stored before a Unix time; how many."""
    with connect(engine, write=True) as conn:
        return store.prune(conn, before)
