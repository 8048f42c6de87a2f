"""HTML and Atom rendering for every page of interface A (status, satellite, submit.php, admin,
docs): one autoescaping Jinja2 environment over templates/ with the links its templates share,
gzip when the client accepts it, and the package's static files."""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.requests import Request
from starlette.responses import Response

from sathub.status.rules import PERIOD_LABELS, is_web_url
from sathub.web import not_modified

DONATE_URL = "https://www.amsat.org/donations/amsat-general-fund-donations/"

_GZIP_MINIMUM = 1024
HTML = "text/html; charset=utf-8"


def render(
    request: Request, template: str, status: int = 200, headers: dict | None = None, media_type: str = HTML, **context
) -> Response:
    body = environment.get_template(template).render(**context).encode()
    compressed = _compress(body) if _accepts_gzip(request) else None
    return _response(body, compressed, status, headers, media_type)


@dataclass(frozen=True)
class CachedPage:
    """A page rendered once and served to many: its bytes, their gzip form and a validator."""

    body: bytes
    gzipped: bytes | None
    etag: str
    media_type: str = HTML

    @classmethod
    def render(cls, template: str, media_type: str = HTML, **context) -> CachedPage:
        return cls.of(environment.get_template(template).render(**context).encode(), media_type)

    @classmethod
    def of(cls, body: bytes, media_type: str = HTML) -> CachedPage:
        gzipped = _compress(body)
        # Of the gzip form (deterministic, and a fraction of the body to hash). Weak: both forms
        # share it, which only a weak validator may do.
        digest = hashlib.blake2b(body if gzipped is None else gzipped, digest_size=12).hexdigest()
        return cls(body, gzipped, f'W/"{digest}"', media_type)

    def response(self, request: Request, headers: dict, status: int = 200) -> Response:
        headers = {"ETag": self.etag, **headers}
        if status == 200 and not_modified(request, self.etag):
            return Response(status_code=304, headers={"Vary": "Accept-Encoding", **headers})
        return _response(self.body, self.gzipped if _accepts_gzip(request) else None, status, headers, self.media_type)


def _accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "")


def _compress(body: bytes) -> bytes | None:
    if len(body) < _GZIP_MINIMUM:
        return None
    return gzip.compress(body, compresslevel=1, mtime=0)  # big pages: speed over the last 20%


def _response(body: bytes, compressed: bytes | None, status: int, headers: dict | None, media_type: str) -> Response:
    headers = {"Content-Type": media_type, "Vary": "Accept-Encoding", **(headers or {})}
    if compressed is not None:
        body = compressed
        headers["Content-Encoding"] = "gzip"
    return Response(body, status_code=status, headers=headers)


def satellite_url(site: str, name: str) -> str:
    return f"{site}/satellite/{quote(name, safe='')}"


def feed_url(site: str, name: str) -> str:
    return f"{site}/feeds/{quote(name, safe='')}.atom"


def asset_url(site: str, name: str) -> str:
    return f"{site}/assets/{name}?v={static_file(name)[1]}"


@cache
def static_file(name: str) -> tuple[bytes, str]:
    """A file of static/ and a short hash of it (for cache-busting links and ETags)."""
    data = (resources.files("sathub.status") / "static" / name).read_bytes()
    return data, hashlib.sha256(data).hexdigest()[:12]


environment = Environment(
    loader=PackageLoader("sathub.status", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
environment.globals.update(
    satellite_url=satellite_url,
    feed_url=feed_url,
    asset_url=asset_url,
    donate_url=DONATE_URL,
    period_labels=PERIOD_LABELS,
)
environment.tests["web_url"] = is_web_url  # rows stored before websites were checked may hold other URLs


def static_response(request: Request, name: str, media_type: str) -> Response:
    data, digest = static_file(name)
    headers = {"ETag": f'"{digest}"', "Cache-Control": "public, max-age=86400"}
    if not_modified(request, headers["ETag"]):
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=media_type, headers=headers)
