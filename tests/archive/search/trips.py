"""The worker-thread trips of the requests a test makes. Under a crawler every trip waits its turn in
the one thread-pool queue (bench/README.md, "Search in one trip"), so a search door answers in one
trip, rendering included, whatever its outcome."""

from __future__ import annotations

import asyncio

import anyio.to_thread
import pytest


def counted_trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the functions sent to a worker thread from now on (Starlette's run_in_threadpool
    and iterate_in_threadpool, and so sathub.web.in_thread, all go through anyio's run_sync)."""
    trips: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(func, *args, **kwargs):
        trips.append(getattr(getattr(func, "func", func), "__qualname__", repr(func)))
        return await run_sync(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    return trips


def on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
