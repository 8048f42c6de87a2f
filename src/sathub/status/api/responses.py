"""How interface A answers: the error envelope, the two JSON styles, headers and method handling.

Errors are raised once as ApiError and rendered in one place (`endpoint`)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from sathub.db.engines import UNREACHABLE, DatabaseError
from sathub.server.request_log import note_failure
from sathub.status.api.php_json import php_compact_json, php_pretty_json
from sathub.web import BodyTooLarge, settings_of

API_VERSION = "1.0.0"

Handler = Callable[[Request], Awaitable[Response]]


class ApiError(Exception):
    def __init__(
        self, status: int, code: str, message: str, details: dict | None = None, headers: dict[str, str] | None = None
    ):
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details
        self.headers = headers  # beside the envelope's own, e.g. a 429's Retry-After


def invalid_parameter(name: str, raw) -> ApiError:
    return ApiError(400, "invalid_parameter", f"Parameter '{name}' must be an integer.", {name: raw})


@functools.lru_cache(maxsize=8)
def _envelope_headers(commit: str, deployed_at: str) -> dict[str, str]:
    """The headers of 2.2 for an envelope answer, with the deploy facts when configured, and
    nosniff: a browser never reads the JSON as anything else (a page, a script)."""
    return {
        "Content-Type": "application/json; charset=utf-8",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Headers": "Content-Type",
        "X-AMSAT-API-Version": API_VERSION,
        **({"X-AMSAT-API-Commit": commit[:7]} if commit else {}),
        **({"X-AMSAT-API-Deployed-At": deployed_at} if deployed_at else {}),
    }


@functools.lru_cache(maxsize=8)
def _envelope_raw_headers(commit: str, deployed_at: str) -> tuple[tuple[bytes, bytes], ...]:
    return tuple(
        (key.lower().encode("latin-1"), value.encode("latin-1"))
        for key, value in _envelope_headers(commit, deployed_at).items()
    )


def _prepared(body: bytes, raw_headers) -> Response:
    """The Response Starlette would build for these bytes and headers (content-length last),
    without its per-request header parsing: cached answers are sent as they are."""
    response = Response.__new__(Response)
    response.status_code, response.background, response.body = 200, None, body
    response.raw_headers = [*raw_headers, (b"content-length", str(len(body)).encode())]
    return response


def envelope(request: Request, body: dict | str | bytes, status: int = 200, headers: dict | None = None) -> Response:
    """Pretty (PHP JSON_PRETTY_PRINT) body, or one rendered already (text or UTF-8 bytes), with
    the headers of 2.2."""
    settings = settings_of(request)
    if status == 200 and headers is None and body:
        if not isinstance(body, bytes):
            body = (body if isinstance(body, str) else php_pretty_json(body)).encode()
        return _prepared(body, _envelope_raw_headers(settings.commit, settings.deployed_at))
    text = body if isinstance(body, (str, bytes)) else php_pretty_json(body)
    return Response(
        text,
        status_code=status,
        headers={**_envelope_headers(settings.commit, settings.deployed_at), **(headers or {})},
    )


def legacy_array(items: list[dict] | bytes) -> Response:
    """Compact PHP json_encode() body, or one rendered already, with the exact legacy Content-Type
    and, of upstream's headers, no other (no version header either); nosniff is ours."""
    body = items if isinstance(items, bytes) else php_compact_json(items)
    return _prepared(body, _LEGACY_HEADERS)


_LEGACY_HEADERS = ((b"content-type", b"application/json"), (b"x-content-type-options", b"nosniff"))


def error_response(request: Request, error: ApiError, headers: dict | None = None) -> Response:
    inner = {"code": error.code, "message": error.message, "status": error.status}
    if error.details is not None:
        inner["details"] = error.details
    return envelope(
        request, {"error": inner}, status=error.status, headers={**(error.headers or {}), **(headers or {})}
    )


ErrorRenderer = Callable[[Request, ApiError, "dict | None"], Response]


def endpoint(
    *methods: str, preflight_headers: str = "Content-Type", render: ErrorRenderer | None = None
) -> Callable[[Handler], Handler]:
    """OPTIONS (204, before anything else, letting `preflight_headers` through), 405 for other
    methods, HEAD as GET without a body, and every failure as the documented envelope (`render`
    draws it: v1's by default), never a stack trace."""
    allowed = ", ".join(methods)
    answer_error = render or error_response

    def decorate(handler: Handler) -> Handler:
        @functools.wraps(handler)
        async def run(request: Request) -> Response:
            method = request.method
            if method == "OPTIONS":
                return Response(
                    status_code=204,
                    headers={
                        "Access-Control-Allow-Origin": "*",
                        "Access-Control-Allow-Headers": preflight_headers,
                        "Access-Control-Allow-Methods": allowed,
                        "Allow": allowed,
                    },
                )
            if method not in methods and not (method == "HEAD" and "GET" in methods):
                error = ApiError(405, "method_not_allowed", f"This endpoint accepts only {allowed}.")
                return answer_error(request, error, {"Allow": allowed})
            try:
                response = await handler(request)
            except ApiError as error:
                if error.status >= 500:
                    note_failure(request, error)
                response = answer_error(request, error, None)
            except BodyTooLarge:
                too_large = ApiError(413, "payload_too_large", "The request body is larger than 64 KiB.")
                response = answer_error(request, too_large, None)
            except UNREACHABLE as exc:
                note_failure(request, exc)
                away = ApiError(503, "database_unavailable", "The database is unavailable.")
                response = answer_error(request, away, {"Retry-After": "5"})
            except DatabaseError as exc:
                note_failure(request, exc)  # logged with its traceback (a 500)
                code = "write_failed" if method == "POST" else "query_failed"
                response = answer_error(request, ApiError(500, code, "The database query failed."), None)
            if method == "HEAD":
                return _without_body(response)
            return response

        return run

    return decorate


def _without_body(response: Response) -> Response:
    headers = dict(response.headers)
    bodiless = Response(b"", status_code=response.status_code, headers=headers)
    bodiless.headers["content-length"] = headers.get("content-length", "0")
    return bodiless
