"""A Server-Sent Events client for the stream's tests and benchmark: reads one stream in a thread,
parsing events as the EventSource specification does (fields up to a blank line; comments kept
apart), so a test can wait for what it expects."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import orjson


@dataclass
class Event:
    id: str | None
    event: str
    data: str
    received_at: float = field(default_factory=time.monotonic)

    @property
    def body(self) -> dict:
        return orjson.loads(self.data)


class Listener:
    """GET `url` as a stream in a thread, on a socket of its own (so that close() can cut a read
    that blocks); `events` and `comments` fill as they arrive. `ended` tells how the stream
    ended: "clean" (the server ended the chunked body), "error" (cut), "closed" (by us),
    "refused" (not a 200: `status`, `response_headers` and `body` tell)."""

    def __init__(self, url: str, headers: dict | None = None):
        self.url, self.headers = url, headers or {}
        self.events: list[Event] = []
        self.comments: list[str] = []
        self.status: int | None = None
        self.response_headers: dict[str, str] = {}
        self.body = b""
        self.ended: str | None = None
        self.opened = threading.Event()
        self.changed = threading.Condition()
        self._closing = False
        parts = urlsplit(url)
        self._sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=10)
        self._sock.settimeout(None)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        extra = "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
        request = f"GET {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n{extra}\r\n"
        self._sock.sendall(request.encode())
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self.opened.wait(10), f"{url} did not answer"

    def _run(self) -> None:
        try:
            stream = self._sock.makefile("rb")
            self.status = int(stream.readline().split()[1])
            while (line := stream.readline().decode("latin-1").strip()) != "":
                name, _, value = line.partition(":")
                self.response_headers[name.strip().lower()] = value.strip()
            self.opened.set()
            if self.status != 200:
                self.body = stream.read(int(self.response_headers.get("content-length", "0")))
                self.ended = "refused"
                return
            self.ended = "clean" if self._read_chunks(stream) else "error"
        except (OSError, ValueError, IndexError):
            self.ended = "closed" if self._closing else "error"
        finally:
            self.opened.set()
            with self.changed:
                self.changed.notify_all()

    def _read_chunks(self, stream) -> bool:
        """Parse the chunked body as events; True when it ended with its last chunk."""
        pending, fields = b"", {}
        while True:
            size_line = stream.readline()
            if not size_line:
                return False
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                return True
            chunk = stream.read(size)
            stream.read(2)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                fields = self._line(raw.decode(), fields)

    def _line(self, line: str, fields: dict) -> dict:
        if line == "":
            if "data" in fields:
                self._add(Event(fields.get("id"), fields.get("event", "message"), fields["data"]))
            return {}
        if line.startswith(":"):
            with self.changed:
                self.comments.append(line[1:].strip())
                self.changed.notify_all()
            return fields
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        fields[name] = fields[name] + "\n" + value if name == "data" and name in fields else value
        return fields

    def _add(self, event: Event) -> None:
        with self.changed:
            self.events.append(event)
            self.changed.notify_all()

    def wait_for(self, check: Callable[[Listener], bool], timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not check(self):
                left = deadline - time.monotonic()
                assert left > 0, f"timed out; events {[(e.id, e.event) for e in self.events]}, ended {self.ended}"
                self.changed.wait(left)

    def wait_until_ended(self, timeout: float = 10) -> str:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the stream did not end"
        assert self.ended is not None
        return self.ended

    def of(self, kind: str) -> list[Event]:
        return [event for event in self.events if event.event == kind]

    def close(self) -> None:
        self._closing = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(5)

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *_) -> None:
        self.close()
