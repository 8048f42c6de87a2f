"""What both interfaces share: settings and engine lookup, absolute links, body limits, JSON text."""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

from starlette.requests import Request
from starlette.routing import Route

from sathub.config import Settings

MAX_BODY_BYTES = 64 * 1024


class BodyTooLarge(Exception):
    """The request body is larger than MAX_BODY_BYTES."""


def settings_of(request: Request) -> Settings:
    return request.app.state.settings


def engine_of(request: Request):
    return request.app.state.engine


def site_url(request: Request) -> str:
    """Scheme, host and prefix of this deployment, without a trailing slash.

    The configured public base URL wins; the request's Host is only a fallback."""
    settings = settings_of(request)
    if settings.base_url:
        return settings.base_url
    scheme = request.url.scheme
    host = request.headers.get("host") or f"{request.url.hostname}:{request.url.port}"
    return f"{scheme}://{host}{settings.prefix}"


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The whole body, refusing early when it exceeds `limit` (declared or actual length)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    body = b"".join(chunks)
    request._body = body  # Starlette's form() and json() read the cached body
    return body


class PrettyFragment(str):
    """JSON text already rendered by php_pretty_json at the indent where it will be placed."""


def php_pretty_json(value, indent: str = "") -> str:
    """PHP json_encode(JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES): 4-space indent, \\uXXXX escapes."""
    parts: list[str] = []
    _pretty(value, indent, parts)
    return "".join(parts)


def _pretty(value, indent: str, out: list[str]) -> None:
    if isinstance(value, PrettyFragment):
        out.append(value)
    elif isinstance(value, str):
        out.append(encode_basestring_ascii(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(json.dumps(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = indent + "    "
        out.append("{\n")
        first = True
        for key, item in value.items():
            if not first:
                out.append(",\n")
            first = False
            out.append(inner)
            out.append(encode_basestring_ascii(key))
            out.append(": ")
            _pretty(item, inner, out)
        out.append("\n" + indent + "}")
    else:
        items = list(value)
        if not items:
            out.append("[]")
            return
        inner = indent + "    "
        out.append("[\n")
        for i, item in enumerate(items):
            if i:
                out.append(",\n")
            out.append(inner)
            _pretty(item, inner, out)
        out.append("\n" + indent + "]")


def php_compact_json(value) -> bytes:
    """PHP json_encode() defaults: no whitespace, \\uXXXX escapes, every '/' written as '\\/'."""
    # '/' never occurs in JSON syntax outside strings, so a global replace only touches strings.
    return json.dumps(value, separators=(",", ":")).replace("/", "\\/").encode()


def route(path: str, endpoint) -> Route:
    """A route that hands every method to its endpoint, which answers OPTIONS and 405 itself."""
    answer = Route(path, endpoint)
    answer.methods = None
    return answer
