"""The elements refreshed from SATHUB_ELEMENTS_URL every SATHUB_ELEMENTS_REFRESH seconds while
`sathub serve` runs, by one process at a time across processes (docs/orbits.md, "Elements").

Every serving process runs the loop; a turn fetches only when it claims the lease, row 1 of
`orbit_refresh`, by a conditional UPDATE of its next_due (store/elements.py `claim_refresh`): of
processes that try at once, exactly one moves it. The claim's transaction ends before the fetch,
which runs in a worker thread: no database lock is held, and the event loop never waits on the
network. A claim holds for HOLD_SECONDS, so that a process that dies mid-fetch hands the refresh
on. A failure (unreachable, an error status, a file that is not elements) is one log line, and
the next try comes after a backoff that doubles from RETRY_FIRST_SECONDS up to the interval."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from sathub.db.engines import UNREACHABLE, Engine, connect
from sathub.status.orbits.loading import FETCH_TIMEOUT, LoadError, load_source
from sathub.status.store import elements as store

# Longer than a fetch (FETCH_TIMEOUT) and a load can take: the lease is not taken over from a
# process still at work, and is from one that died.
HOLD_SECONDS = 600
# After a failure the next try waits 10 minutes, then 20, 40, ... up to the interval: CelesTrak
# blocks clients that keep asking after errors.
RETRY_FIRST_SECONDS = 600
# A process that did not claim the lease looks again when it falls due, and at least this often
# (so a process that dies holding it is replaced within HOLD_SECONDS plus this).
LOOK_AGAIN_SECONDS = 300.0
log = logging.getLogger("sathub.status.orbits")


@asynccontextmanager
async def refreshing(app: Starlette) -> AsyncIterator[None]:
    """The app's lifespan: the refresh's loop while the process serves, when a URL is set."""
    settings = app.state.settings
    if not settings.elements_url:
        yield
        return
    task = asyncio.create_task(
        refresh_periodically(app.state.engine, settings.elements_url, settings.elements_refresh),
        name="sathub-elements-refresh",
    )
    try:
        yield
    finally:
        task.cancel()


async def refresh_periodically(engine: Engine, url: str, interval: int) -> None:
    while True:
        try:
            wait = await run_in_threadpool(refresh_once, engine, url, interval)
        except UNREACHABLE as exc:
            log.warning("elements: database unavailable for the refresh (%s)", exc)
            wait = LOOK_AGAIN_SECONDS
        except Exception:
            log.exception("elements: the refresh failed")
            wait = LOOK_AGAIN_SECONDS
        # A share of a second at random: processes started together do not all claim at once.
        await asyncio.sleep(wait + random.random())


def retry_delay(failures: int, interval: int) -> int:
    """Seconds before the next try after `failures` failures in a row."""
    return min(interval, RETRY_FIRST_SECONDS * 2 ** min(failures - 1, 20))


def refresh_once(
    engine: Engine,
    url: str,
    interval: int,
    *,
    timeout: float = FETCH_TIMEOUT,
    clock: Callable[[], float] = time.time,
) -> float:
    """One turn: when the refresh is due and this caller claims it, fetch and load. Returns the
    seconds until the next look."""
    now = int(clock())
    with connect(engine, write=True) as conn:
        claimed, until = store.claim_refresh(conn, now, HOLD_SECONDS)
    if not claimed:
        return min(max(until - now, 1.0), LOOK_AGAIN_SECONDS)
    try:
        summary = load_source(engine, url, timeout=timeout)
    except LoadError as exc:
        with connect(engine, write=True) as conn:
            failures = store.refresh_failed(conn, str(exc))
            delay = retry_delay(failures, interval)
            store.set_refresh_due(conn, int(clock()) + delay)
        log.warning("elements: refresh failed (%d in a row; next try in %d s): %s", failures, delay, exc)
        return delay
    finished = int(clock())
    with connect(engine, write=True) as conn:
        store.refresh_succeeded(conn, finished, finished + interval)
    log.info("elements: refreshed from %s. %s", url, summary.describe())
    return interval
