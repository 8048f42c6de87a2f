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
    """PHP json_encode(JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES): 4-space indent, \\uXXXX escapes.
    Each container is joined in one pass (an answer holds up to 500 rows of 8 fields)."""
    if isinstance(value, str):
        return value if isinstance(value, PrettyFragment) else encode_basestring_ascii(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    if isinstance(value, (int, float)):
        return json.dumps(value)
    inner = indent + "    "
    if isinstance(value, dict):
        if not value:
            return "{}"
        members = [f"{encode_basestring_ascii(key)}: {php_pretty_json(item, inner)}" for key, item in value.items()]
    else:
        members = [php_pretty_json(item, inner) for item in value]
        if not members:
            return "[]"
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return f"{opening}\n{inner}" + f",\n{inner}".join(members) + f"\n{indent}{closing}"


def php_compact_json(value) -> bytes:
    """PHP json_encode() defaults: no whitespace, \\uXXXX escapes, every '/' written as '\\/'."""
    # '/' never occurs in JSON syntax outside strings, so a global replace only touches strings.
    return json.dumps(value, separators=(",", ":")).replace("/", "\\/").encode()


def route(path: str, endpoint) -> Route:
    """A route that hands every method to its endpoint, which answers OPTIONS and 405 itself."""
    answer = Route(path, endpoint)
    answer.methods = None
    return answer
