"""How /api/v2 answers: compact JSON with an ETag, 304 to a matching If-None-Match, and version
1's error envelope (api/responses.ApiError, rendered here with v2's headers).

An answer is kept in the per-process answer cache (cache.py) with its ETag, under the data
revision it was read at (and the day, where the answer depends on it): a poll reads the revision
(one cheap statement, shared by the requests of one pass of the event loop) and, when nothing
changed, answers 304 or the kept bytes without reading any report."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from sathub.db.engines import Connection
from sathub.status.api import responses
from sathub.status.api.responses import ApiError
from sathub.status.cache import answers_of
from sathub.web import not_modified

API_VERSION = "2.0.0"
JSON = "application/json; charset=utf-8"
GEOJSON = "application/geo+json; charset=utf-8"

Handler = Callable[[Request], Awaitable[Response]]

_COMMON = {
    "X-Content-Type-Options": "nosniff",
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "ETag",
    "X-AMSAT-API-Version": API_VERSION,
}

_NO_STORE = {**_COMMON, "Content-Type": JSON, "Cache-Control": "no-store"}


@dataclass(frozen=True)
class Answer:
    """A rendered answer and its entity tag (a hash of the bytes: an answer read again after a
    write that did not change it keeps its tag, so pollers keep getting 304)."""

    body: bytes
    etag: str

    @classmethod
    def of(cls, document: object) -> Answer:
        body = json_bytes(document)
        return cls(body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')


def json_bytes(document: object) -> bytes:
    """Compact JSON, UTF-8, `/` written as is (clients.md item 13)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def answered(request: Request, answer: Answer, cache_control: str, media_type: str = JSON) -> Response:
    headers = {**_COMMON, "ETag": answer.etag, "Cache-Control": cache_control}
    if not_modified(request, answer.etag):
        return Response(status_code=304, headers=headers)
    return Response(answer.body, headers={**headers, "Content-Type": media_type})


async def cached(
    request: Request, key: Hashable, label: tuple, compute: Callable[[Connection], Answer | ApiError]
) -> Answer:
    """The answer kept for `key` at `label` (a tuple starting with the data revision the caller
    read), else computed once on a pooled connection. `compute` may return an ApiError (a 404 is
    an answer of the data too): it is kept like an answer and raised here."""
    found = await answers_of(request).get(("v2", *key) if isinstance(key, tuple) else ("v2", key), label, compute)
    if isinstance(found, ApiError):
        raise found
    return found


def error_response(error: ApiError, headers: dict | None = None) -> Response:
    inner: dict = {"code": error.code, "message": error.message, "status": error.status}
    if error.details is not None:
        inner["details"] = error.details
    return Response(
        json_bytes({"error": inner}),
        status_code=error.status,
        headers={
            **_COMMON,
            "Content-Type": JSON,
            "Cache-Control": "no-store",
            **(error.headers or {}),
            **(headers or {}),
        },
    )


def _error_answer(request: Request, error: ApiError, headers: dict | None) -> Response:
    return error_response(error, headers)


# GET and HEAD, a preflight that lets a conditional GET through, and v2's error answers.
endpoint = responses.endpoint("GET", "HEAD", preflight_headers="If-None-Match", render=_error_answer)
