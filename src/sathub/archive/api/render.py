"""How the archive API answers: compact UTF-8 JSON or the browsable HTML page, its headers, errors.

Errors are raised once as ArchiveError (edge.py) and rendered here like any payload, so they carry the same
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

from sathub.archive.edge import NOSNIFF

ALLOW = "GET, HEAD, OPTIONS"
RENDERS = ["application/json", "text/html"]
PARSES = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]

_templates = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True)
# A JSON string holding an absolute URL, after HTML escaping (`&` and `'` arrive escaped).
_QUOTED_URL = re.compile(r"&quot;(https?://(?:[^&\s]|&amp;|&#x27;)*?)&quot;")


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


def answer(payload, *, status: int = 200, html_page: bool, title: str, request: Request, index_link: str) -> Response:
    """`payload` as JSON or as the browsable page."""
    api_headers = {"Allow": ALLOW, "Vary": "Accept", **NOSNIFF}
    if html_page:
        body = _page(payload, status, title, request, index_link).encode()
        return Response(body, status, {**api_headers, "Content-Type": "text/html; charset=utf-8"})
    return Response(orjson.dumps(payload), status, {**api_headers, "Content-Type": "application/json"})


def _page(payload, status: int, title: str, request: Request, index_link: str) -> str:
    pretty = html.escape(json.dumps(payload, indent=4, ensure_ascii=False))
    linked = _QUOTED_URL.sub(lambda m: f'&quot;<a href="{m[1]}" rel="nofollow">{m[1]}</a>&quot;', pretty)
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "format"]
    return _templates.get_template("browsable.html").render(
        title=title,
        method=request.method,
        path=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
        status=f"{status} {HTTPStatus(status).phrase}",
        headers=[("Allow", ALLOW), ("Content-Type", "application/json"), ("Vary", "Accept"), *NOSNIFF.items()],
        body=Markup(linked),
        index_link=index_link,
        json_link="?" + urlencode([*query, ("format", "json")]),
    )
