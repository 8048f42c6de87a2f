"""Which Host headers sathub answers. Without a configured base URL, links are built from the
request's Host, so a Host that is not a host name (or IP address) with an optional port is
refused before any handler could echo it; `SATHUB_ALLOWED_HOSTS` narrows it further, as
Django's ALLOWED_HOSTS does (`example.org`, `.example.org` for it and its subdomains)."""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Receive, Scope, Send

_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST = re.compile(rf"(?P<name>(?:{_LABEL}\.)*{_LABEL}\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{{1,5}})?")
REFUSED = b"Invalid Host header: give a host name or address, with an optional port."


def host_is_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    match = _HOST.fullmatch(host)
    if match is None:
        return False
    if not allowed:
        return True
    name = match["name"].lower().rstrip(".")
    return any(
        name == entry or (entry.startswith(".") and (name == entry[1:] or name.endswith(entry))) for entry in allowed
    )


def host_header(scope: Scope) -> bytes | None:
    """The request's Host header as sent (the first, if several)."""
    return next((value for key, value in scope["headers"] if key == b"host"), None)


def parse_allowed(setting: str) -> tuple[str, ...]:
    return tuple(entry.strip().lower() for entry in setting.split(",") if entry.strip() and entry.strip() != "*")


class HostCheck:
    """Answers 400 to a request whose Host header is malformed or not allowed."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...] = ()) -> None:
        self.app, self.allowed = app, allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = host_header(scope)
            if host is not None and not host_is_allowed(host.decode("latin-1"), self.allowed):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 400,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(REFUSED)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": REFUSED})
                return
        await self.app(scope, receive, send)
