"""How the archive API answers: compact UTF-8 JSON or the browsable HTML page, its headers, errors.

Errors are raised once as ApiError and rendered here like any payload, so they carry the same
headers (Allow, Vary) and honour `?format=api` as HyperKitty's Django REST framework does."""

from __future__ import annotations

import html
import json
import re
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlencode

import jinja2
import orjson
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

ALLOW = "GET, HEAD, OPTIONS"
NOT_FOUND = "Not found."
FORBIDDEN = "You do not have permission to perform this action."
UNAVAILABLE = "Service temporarily unavailable, try again later."
RENDERS = ["application/json", "text/html"]
PARSES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]

_templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True)
# A JSON string holding an absolute URL, after HTML escaping (`&` and `'` arrive escaped).
_QUOTED_URL = re.compile(r"&quot;(https?://(?:[^&\s]|&amp;|&#x27;)*?)&quot;")


class ApiError(Exception):
    """An answer other than 200: a status and DRF's `{"detail": …}` text."""

    def __init__(self, status: int, detail: str = NOT_FOUND):
        super().__init__(detail)
        self.status, self.detail = status, detail


def wants_html(accept: str) -> bool:
    """Content negotiation without `?format=`: HTML only when text/html is preferred over JSON."""
    best_quality, best_is_html = 0.0, False
    for item in accept.split(","):
        media, *params = item.strip().lower().split(";")
        quality = 1.0
        for param in params:
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        is_html = media.strip() in ("text/html", "text/*")
        if quality > best_quality and (is_html or media.strip() in ("application/json", "application/*", "*/*")):
            best_quality, best_is_html = quality, is_html
    return best_is_html


def answer(payload, *, status: int = 200, html_page: bool, head: bool, title: str,
           request: Request, index_link: str) -> Response:
    """`payload` as JSON or as the browsable page; a HEAD answer keeps the headers, drops the body."""
    api_headers = {"Allow": ALLOW, "Vary": "Accept"}
    if html_page:
        body = _page(payload, status, title, request, index_link).encode()
        return bodiless(body, status, {**api_headers, "Content-Type": "text/html; charset=utf-8"}, head)
    return bodiless(orjson.dumps(payload), status, {**api_headers, "Content-Type": "application/json"}, head)


def json_error(status: int, detail: str, head: bool, headers: dict[str, str] | None = None) -> Response:
    """A JSON error whatever was negotiated (unknown `format` values, download errors)."""
    return bodiless(orjson.dumps({"detail": detail}), status,
                    {"Allow": ALLOW, "Vary": "Accept", "Content-Type": "application/json", **(headers or {})},
                    head)


def bodiless(body: bytes, status: int, headers: dict[str, str], head: bool) -> Response:
    """`body` with exactly `headers` (Content-Type included); HEAD keeps the GET length, drops the body."""
    if head:
        headers = {**headers, "Content-Length": str(len(body))}
        body = b""
    return Response(body, status_code=status, headers=headers)


def _page(payload, status: int, title: str, request: Request, index_link: str) -> str:
    pretty = html.escape(json.dumps(payload, indent=4, ensure_ascii=False))
    linked = _QUOTED_URL.sub(lambda m: f'&quot;<a href="{m[1]}" rel="nofollow">{m[1]}</a>&quot;', pretty)
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "format"]
    return _templates.get_template("browsable.html").render(
        title=title,
        method=request.method,
        path=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
        status=f"{status} {HTTPStatus(status).phrase}",
        headers=[("Allow", ALLOW), ("Content-Type", "application/json"), ("Vary", "Accept")],
        body=Markup(linked),
        index_link=index_link,
        json_link="?" + urlencode(query + [("format", "json")]),
    )
