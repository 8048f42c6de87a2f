"""HTML and Atom rendering for the pages: one autoescaping Jinja2 environment over templates/,
gzip when the client accepts it, and the package's static files."""

from __future__ import annotations

import gzip
import hashlib
from functools import lru_cache
from importlib import resources

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import Response

environment = Environment(loader=PackageLoader("sathub.status", "templates"), autoescape=True,
                          undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)

_GZIP_MINIMUM = 1024


def render(request: Request, template: str, status: int = 200, headers: dict | None = None,
           media_type: str = "text/html; charset=utf-8", **context) -> Response:
    body = environment.get_template(template).render(**context).encode()
    headers = {"Content-Type": media_type, "Vary": "Accept-Encoding", **(headers or {})}
    if len(body) >= _GZIP_MINIMUM and "gzip" in request.headers.get("accept-encoding", ""):
        body = gzip.compress(body, compresslevel=1)  # big pages: speed over the last 20%
        headers["Content-Encoding"] = "gzip"
    return Response(body, status_code=status, headers=headers)


@lru_cache(maxsize=None)
def static_file(name: str) -> tuple[bytes, str]:
    """A file of static/ and a short hash of it (for cache-busting links and ETags)."""
    data = (resources.files("sathub.status") / "static" / name).read_bytes()
    return data, hashlib.sha256(data).hexdigest()[:12]


def static_response(request: Request, name: str, media_type: str) -> Response:
    data, digest = static_file(name)
    headers = {"ETag": f'"{digest}"', "Cache-Control": "public, max-age=86400"}
    if request.headers.get("if-none-match") == headers["ETag"]:
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=media_type, headers=headers)
