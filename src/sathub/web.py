"""What both interfaces share: settings and engine lookup, absolute links, the client's address,
conditional GETs (the one reader of If-None-Match and If-Modified-Since), the request body within
its limit, form fields, and database work off the event loop."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from sathub.config import Settings
from sathub.db.engines import connect

MAX_BODY_BYTES = 64 * 1024
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

T = TypeVar("T")


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
    # The scope's scheme, as request.url would give it, without parsing a whole URL (3 % of a
    # report submission's time went there).
    scheme = request.scope.get("scheme", "http")
    host = request.headers.get("host") or f"{request.url.hostname}:{request.url.port}"
    return f"{scheme}://{host}{settings.prefix}"


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def etag_matches(header: str | None, etag: str) -> bool:
    """RFC 9110 13.1.2: an If-None-Match of `*`, or a list of tags one of which is `etag`, compared
    weakly (a `W/` prefix on either side is ignored)."""
    if header is None:
        return False
    bare = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") in (bare, "*") for tag in header.split(","))


def not_modified(request: Request, etag: str, last_modified: datetime | None = None) -> bool:
    """The client's copy of a GET or HEAD answer is current (RFC 9110 13.2.2): If-None-Match
    decides when present; else If-Modified-Since, when the answer has a date (naive, in UTC)."""
    if request.method not in ("GET", "HEAD"):
        return False
    header = request.headers.get("if-none-match")
    if header is not None or last_modified is None:
        return etag_matches(header, etag)
    since = request.headers.get("if-modified-since")
    if since is None:
        return False
    try:
        when = parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False  # an unreadable date is ignored (RFC 9110 13.1.3)
    if when.tzinfo is not None:  # `GMT` (as HTTP writes dates) gives an aware date; `-0000` a naive one
        when = when.astimezone(UTC).replace(tzinfo=None)
    return last_modified <= when


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The whole body, refusing early when it exceeds `limit` (declared or actual length).

    A client gone before its body is in (or cut off by SATHUB_BODY_TIMEOUT) raises Starlette's
    ClientDisconnect: no handler answers it, and server/http_protocol.py logs it as one info line."""
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


async def form_fields(request: Request, *, with_files: bool = False) -> dict:
    """The body's form fields (url-encoded or multipart), read within the body limit; none for
    other bodies or a malformed one, as PHP sees it. File parts are left out unless `with_files`
    (then they are Starlette UploadFiles)."""
    await read_body(request)
    if not request.headers.get("content-type", "").lower().startswith(FORM_TYPES):
        return {}
    try:
        body_form = await request.form()
    except Exception:  # malformed multipart or urlencoded body: no usable fields
        return {}
    return {key: value for key, value in body_form.items() if with_files or isinstance(value, str)}


async def in_write_batch(request: Request, work: Callable[..., T], *args, store: Callable | None = None):
    """`work(conn, *args)` in this process's next shared write transaction (group_commit.py),
    once that transaction has committed; with `store`, `work` only checks and `store` writes what
    the writes of the transaction checked, at once (GroupCommit.run_checked)."""
    return await request.app.state.writes.run_checked(work, store, *args)


async def in_thread(request: Request, work: Callable[..., T], *args, write: bool = False) -> T:
    """`work(conn, *args)` on a pooled connection (in a transaction when `write`), in a worker
    thread: a database call, or waiting for SQLite's write lock, never stalls the event loop."""
    return await run_in_threadpool(_run, engine_of(request), write, work, args)


def _run(engine, write: bool, work: Callable[..., T], args: tuple) -> T:
    with connect(engine, write=write) as conn:
        return work(conn, *args)
