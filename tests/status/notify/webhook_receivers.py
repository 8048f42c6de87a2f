"""Real HTTP receivers for the webhook tests (the standard library's http.server, in threads), and
a deliverer run in an event loop of its own thread while a test writes reports."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sathub.db.revision_probe import RevisionProbe
from sathub.status.notify.webhook_delivery import Deliveries, Policy


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.time() when the body was read


@dataclass
class Receiver:
    """Answers each POST with `answer(received)`'s status code (200 by default)."""

    answer: Callable[[Received], int] = lambda received: 200
    received: list[Received] = field(default_factory=list)
    url: str = ""
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_for(self, count: int, seconds: float = 10.0) -> list[Received]:
        deadline = time.monotonic() + seconds
        while len(self.received) < count:
            assert time.monotonic() < deadline, f"{len(self.received)} of {count} received"
            time.sleep(0.01)
        return list(self.received)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # socketserver's 5 drops concurrent connections' SYNs: a second's wait each


@contextlib.contextmanager
def receiving(answer: Callable[[Received], int] | None = None, host: str = "127.0.0.1") -> Iterator[Receiver]:
    receiver = Receiver(**({"answer": answer} if answer else {}))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received = Received(self.path, dict(self.headers.items()), body, time.time())
            with receiver.lock:
                receiver.in_flight += 1
                receiver.most_in_flight = max(receiver.most_in_flight, receiver.in_flight)
            try:
                status = receiver.answer(received)
            finally:
                with receiver.lock:
                    receiver.in_flight -= 1
                    receiver.received.append(received)
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args) -> None:
            pass

    server = Server((host, 0), Handler)
    receiver.url = f"http://{host}:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def dead_receiver() -> Iterator[str]:
    """A URL whose server accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/hook"


FAST = Policy(allow_private=True, timeout=2.0, first_retry=0.05, longest_retry=0.2, claim_seconds=0.2)


@contextlib.contextmanager
def delivering(engine, policy: Policy = FAST) -> Iterator[Deliveries]:
    """A deliverer on `engine`, as a serving process runs one, in an event loop of its own thread;
    stopped (its leases given back) on leaving."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    probe = RevisionProbe(engine)

    async def start() -> tuple[Deliveries, asyncio.Task]:
        deliveries = Deliveries(engine, probe, policy)
        return deliveries, asyncio.create_task(deliveries.run())

    deliveries, task = asyncio.run_coroutine_threadsafe(start(), loop).result()

    async def stop() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        yield deliveries
    finally:
        asyncio.run_coroutine_threadsafe(stop(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
        probe.close()
