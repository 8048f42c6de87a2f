"""GET /api/v2/stream: reports and status changes pushed as Server-Sent Events.

The handler checks the request (filters, Last-Event-ID, the process's subscriber cap) and
answers errors in the v1 envelope; the stream itself is EventStream, an ASGI answer that sends
what the process's hub (hub.py) gives its subscriber, a heartbeat comment when the
hub's one heartbeat timer says it is due (hub.HEARTBEAT_SECONDS of silence), or, while it waits
with nothing to send, lets the hub write both to the connection itself, and ends: cleanly
when the server shuts down (the connection's hooks, server/http_protocol.py), at once when the
client goes, and by an abort when the client stopped reading (the hub drops it, or one send
outlasts SEND_SECONDS)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from sathub.db.engines import UNREACHABLE
from sathub.server.connection_hooks import CONNECTION_HOOKS
from sathub.status.api.responses import ApiError
from sathub.status.api.v2 import params
from sathub.status.api.v2.answers import API_VERSION, endpoint
from sathub.status.api.v2.names import resolved_names
from sathub.status.cache import answers_of
from sathub.status.stream.hub import EventHub, HubFull, Subscriber
from sathub.status.stream.messages import HEARTBEAT, PREAMBLE, Filter, gap, parse_last_event_id
from sathub.web import engine_of, in_thread, settings_of

SEND_SECONDS = 30.0  # one send that takes longer: the client stopped reading
RETRY_AFTER_SECONDS = 30
HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # nginx: pass each event on at once
    "X-Content-Type-Options": "nosniff",
    "Access-Control-Allow-Origin": "*",
    "X-AMSAT-API-Version": API_VERSION,
}
# A cross-origin EventSource resumes with Last-Event-ID, which needs the preflight's leave.
PREFLIGHT = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Headers": "Last-Event-ID",
    "Access-Control-Allow-Methods": "GET, HEAD",
    "Access-Control-Max-Age": "86400",
    "Allow": "GET, HEAD",
}
log = logging.getLogger("sathub.status.stream")


def hub_of(request: Request) -> EventHub:
    """The process's hub, made at the first stream request (nothing runs until someone listens)."""
    state = request.app.state
    hub = getattr(state, "stream_hub", None)
    if hub is None:
        settings = settings_of(request)
        hub = state.stream_hub = EventHub(
            engine_of(request),
            answers_of(request).probe,
            settings.stream_max_subscribers,
        )
    return hub


def _statuses(request: Request) -> frozenset[str]:
    value = params.status(request)  # as GET /api/v2/reports reads it
    return frozenset() if value is None else frozenset((value,))


async def _names(request: Request) -> frozenset[str]:
    given = params.names(request)
    if not given:
        return frozenset()
    resolved = await in_thread(request, lambda conn: resolved_names(given, conn))
    if isinstance(resolved, ApiError):
        raise resolved
    # events are matched lower-cased, each name as given and the API name it resolves to
    return frozenset(name.lower() for name in resolved.matched)


def _resume_from(request: Request) -> int | None:
    """An empty Last-Event-ID header is no position (for EventSource an empty last event ID is
    none); `last_event_id` is a v2 parameter, read by v2's rule (a blank one: 400)."""
    header = request.headers.get("last-event-id")
    raw = header if header is not None else params.text(request, "last_event_id")
    try:
        return parse_last_event_id(raw)
    except ValueError:
        name = "Last-Event-ID" if header is not None else "last_event_id"
        raise ApiError(400, "invalid_parameter", f"{name} must be an event id (decimal digits).", {name: raw}) from None


async def stream(request: Request) -> Response:
    """v2's method handling and errors (api/v2/answers.endpoint), with a preflight that lets
    Last-Event-ID through."""
    if request.method == "OPTIONS":
        return Response(status_code=204, headers=PREFLIGHT)
    return await _stream(request)


@endpoint
async def _stream(request: Request) -> Response:
    wanted = Filter(await _names(request), _statuses(request))
    after = _resume_from(request)
    if request.method == "HEAD":
        return Response(headers=HEADERS)
    hub = hub_of(request)
    try:
        subscriber = await hub.subscribe(wanted, after)
    except HubFull:
        raise ApiError(
            503,
            "too_many_subscribers",
            "This server streams to as many subscribers as it is allowed; try again later.",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        ) from None
    first = PREAMBLE
    position = hub.position
    if after is not None and position is not None and after < position:
        oldest = await hub.oldest_kept()  # none kept at all: every event up to the position is gone
        resumed_at = oldest if oldest is not None else position + 1
        if after + 1 < resumed_at:
            first += gap(after, resumed_at)
    return EventStream(hub, subscriber, first)


_RAW_HEADERS = [(key.lower().encode(), value.encode()) for key, value in HEADERS.items()]


class EventStream(Response):
    """The open-ended answer (chunked: no Content-Length)."""

    def __init__(self, hub: EventHub, subscriber: Subscriber, first: bytes):
        self.status_code, self.background, self.raw_headers = 200, None, list(_RAW_HEADERS)
        self.hub, self.subscriber, self.first = hub, subscriber, first
        self.gone = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        subscriber, hub = self.subscriber, self.hub
        hooks = scope.get("extensions", {}).get(CONNECTION_HOOKS)
        if hooks is not None:
            subscriber.abort = hooks.abort
            hooks.on_shutdown = lambda: _close(subscriber)
        watcher = asyncio.create_task(self._watch(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await self._send(send, self.first)
            direct = hooks.body_writer().write if hooks is not None else None
            await self._stream(send, direct)
            if subscriber.closing and not (self.gone or subscriber.dropped):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            hub.unsubscribe(subscriber)
            watcher.cancel()
            # The hooks and the subscriber refer to each other (on_shutdown, abort): cut, so that
            # both go with the connection, not at the cyclic collector's next full collection.
            subscriber.abort = None
            if hooks is not None:
                hooks.on_shutdown = None

    async def _stream(self, send: Send, direct: Callable[[bytes], bool] | None) -> None:
        """Sends until the stream ends. While it waits with nothing to send, the hub may write
        heartbeats and events to the connection itself (`direct`, hub._deliver); what it cannot
        write so (the connection's writes are paused, the stream is busy) it queues, and wakes
        the stream to send it."""
        subscriber, hub = self.subscriber, self.hub
        while not (self.gone or subscriber.dropped or subscriber.closing):
            if subscriber.queue:
                await self._send(send, subscriber.take())
            elif not subscriber.live and hub.position is not None and subscriber.behind_at < hub.position:
                try:
                    made = await hub.catch_up(subscriber)
                except UNREACHABLE as exc:  # the client reconnects with its Last-Event-ID
                    log.warning("stream: database unavailable while catching up (%s)", exc)
                    subscriber.closing = True
                    return
                if made:
                    await self._send(send, b"".join(message.data for message in made))
            elif subscriber.heartbeat_due:
                await self._send(send, HEARTBEAT)
            else:
                subscriber.direct = direct
                try:
                    await subscriber.wake.wait()
                finally:
                    subscriber.direct = None
                # Cleared before looking again, so that a wake-up after this is seen by the next wait.
                subscriber.wake.clear()

    async def _send(self, send: Send, body: bytes) -> None:
        self.subscriber.sent()
        try:
            async with asyncio.timeout(SEND_SECONDS):
                await send({"type": "http.response.body", "body": body, "more_body": True})
        except TimeoutError:
            self.hub.drop(self.subscriber)

    async def _watch(self, receive: Receive) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.gone = True
                self.subscriber.wake.set()
                return


def _close(subscriber: Subscriber) -> None:
    subscriber.closing = True
    subscriber.wake.set()
