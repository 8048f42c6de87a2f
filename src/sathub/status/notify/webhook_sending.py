"""One POST to a webhook's URL, with the standard library's http.client in a worker thread.

Why the standard library and not httpx (a test dependency here): the one thing that matters
beyond a plain POST is where the connection goes. The address is checked after the name is
resolved, on the very address the socket then connects to (a name that resolved to a public
address at registration and to 127.0.0.1 later is refused, and a second resolution cannot
differ from the one checked), which http.client lets a subclass do in `connect` in a few lines.
It follows no redirect (a 3xx is a failure, as GitHub counts it), speaks only http and https,
reads at most RESPONSE_CAP bytes of the answer, and each socket operation has the timeout; the
whole attempt's deadline is the caller's, which cancels it by shutting the socket."""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

from sathub.status.notify.webhook_rules import is_public, url_refusal

RESPONSE_CAP = 64 * 1024  # bytes of an answer read before the connection is closed
ERROR_LENGTH = 255  # the log's column


class Refused(Exception):
    """The URL's scheme, or every address its host resolves to, is not allowed."""


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    error: str | None
    duration_ms: float

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


class _Connection(http.client.HTTPConnection):
    """HTTPConnection that connects only to an allowed address of its host, then TLS for https."""

    def __init__(self, host: str, port: int | None, timeout: float, allow_private: bool, tls: bool) -> None:
        self.default_port = 443 if tls else 80  # the Host header names no default port
        super().__init__(host, port, timeout=timeout)
        self.allow_private, self.use_tls = allow_private, tls
        self.cancelled = False  # set from another thread: an attempt past its deadline never sends

    def connect(self) -> None:
        infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
        refused: list[str] = []
        failure: OSError | None = None
        for family, kind, protocol, _, address in infos:
            ip = str(address[0])
            if not self.allow_private and not is_public(ip):
                refused.append(ip)
                continue
            sock = socket.socket(family, kind, protocol)
            sock.settimeout(self.timeout)
            try:
                sock.connect(address)
            except OSError as error:
                sock.close()
                failure = error
                continue
            if self.cancelled:
                sock.close()
                raise TimeoutError
            self.sock = _tls().wrap_socket(sock, server_hostname=self.host) if self.use_tls else sock
            return
        if failure is not None:
            raise failure
        raise Refused(f"{self.host} resolves to {', '.join(refused)}: not a public address")


class Post:
    """One attempt: run() in a worker thread, cancel() from another to end it at its deadline."""

    def __init__(self, url: str, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool) -> None:
        self.url, self.body, self.headers = url, body, headers
        self.timeout, self.allow_private = timeout, allow_private
        self.connection: _Connection | None = None
        self.cancelled = False

    def run(self) -> Outcome:
        started = time.monotonic()
        try:
            status = self._exchange()
            error = None
        except Refused as refusal:
            status, error = None, f"refused: {refusal}"
        except TimeoutError:
            status, error = None, "timed out"
        except (OSError, http.client.HTTPException, ValueError) as failure:
            status = None
            error = "cancelled at the deadline" if self.cancelled else f"{type(failure).__name__}: {failure}"
        finally:
            if self.connection is not None:
                self.connection.close()
        duration = (time.monotonic() - started) * 1000
        return Outcome(status, error[:ERROR_LENGTH] if error else None, round(duration, 1))

    def _exchange(self) -> int:
        refusal = url_refusal(self.url)
        if refusal:
            raise Refused(refusal)
        parts = urlsplit(self.url)
        assert parts.hostname is not None
        self.connection = _Connection(
            parts.hostname, parts.port, self.timeout, self.allow_private, tls=parts.scheme == "https"
        )
        if self.cancelled:
            raise TimeoutError
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {**self.headers, "Content-Length": str(len(self.body)), "Connection": "close"}
        self.connection.request("POST", target, body=self.body, headers=headers)
        response = self.connection.getresponse()
        response.read(RESPONSE_CAP)
        return response.status

    def cancel(self) -> None:
        """From another thread: end the attempt now (its socket shut, its read fails)."""
        self.cancelled = True
        if self.connection is not None:
            self.connection.cancelled = True
        sock = self.connection.sock if self.connection is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
