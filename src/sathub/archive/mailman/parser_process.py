"""The archive call's parsing, in a helper process of the serving process.

Parsing a message is Python work that holds the interpreter's lock: 41 ms for a message of 10,000
tiny parts (its first 1,000 split out), 12 ms for a one-part 0.9 MB message. In a thread of the
serving process it took the lock from the event loop and from the writer thread in slices of the
switch interval, so that a report POST sent every 20 ms beside such archive calls back to back
waited p99 66.4 ms instead of 9.3 ms alone (bench/archive_many_parts.py, SQLite). Here the serving
process only hands over the bytes and takes the parsed email back, pickled.

One helper per serving process, started at the first archive call ("spawn": a fork of a process
running threads may copy a lock held by one of them). Should the helper die, the pool is made
anew for the next call and this call is parsed in a thread, as before: Mailman's message is never
refused for it."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from starlette.concurrency import run_in_threadpool

from sathub.archive.mail.message import ParsedEmail
from sathub.archive.mailman.live_ingest import parse

log = logging.getLogger("sathub.archive.mailman")

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


async def parsed(data: bytes, max_parts: int) -> ParsedEmail:
    """live_ingest.parse(data, max_parts), run in the helper process (its UnreadableMessage too)."""
    pool = _helper()
    try:
        return await asyncio.get_running_loop().run_in_executor(pool, parse, data, max_parts)
    except BrokenProcessPool:
        _forget(pool)
        log.warning("the archive call's parsing process died: this message is parsed in the serving process")
        return await run_in_threadpool(parse, data, max_parts)


def _helper() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return _pool


def _forget(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False)


def helper_pid() -> int | None:
    """The helper process's id while it runs (for the tests)."""
    with _pool_lock:
        processes = getattr(_pool, "_processes", None) or {}
    return next(iter(processes), None)
