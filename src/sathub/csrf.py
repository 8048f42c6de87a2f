"""Cross-site request forgery rules for the legacy form, the admin pages and the archive's removal
pages (docs/pages.md), shared by both interfaces.

A browser marks every request with where it comes from (Sec-Fetch-Site, Origin, Referer); apps
and scripts send none of these. So:
- a request with no such signal is an app's or a script's and is never refused here (the apps'
  one-shot submissions cannot carry a token);
- a request whose signals name this site (or a sibling host of it) is the site's own;
- any other request is foreign, and must carry a token that only our own pages hand out.
Tokens are HMACs under the deployment's secret key, bound to what a forging site cannot share
with its victim: the client's address (public form) or the admin session's nonce."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from starlette.requests import Request

from sathub.web import settings_of, site_url

TOKEN_FIELD = "csrf_token"
# For the pages that confirm or make a change (submit.php, /admin/, the archive's delete pages):
# another site must not show them in a frame, where a disguised click on their button would be the
# user's own (clickjacking).
NOT_FRAMED = {"X-Frame-Options": "SAMEORIGIN", "Content-Security-Policy": "frame-ancestors 'self'"}
TOKEN_LIFETIME = 6 * 3600
_ISSUED = re.compile(r"[0-9]{1,12}")
# Used only when no secret key is configured (a single-process development server).
_PROCESS_SECRET = secrets.token_hex(32)


def secret_of(request: Request) -> str:
    """The key this deployment signs its tokens with."""
    return settings_of(request).secret_key or _PROCESS_SECRET


def own_origins(request: Request) -> set[str]:
    """This deployment's public origin and the origin the request was addressed to."""
    return {origin_of(site_url(request)), f"{request.url.scheme}://{request.url.netloc}".lower()}


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else ""


def has_browser_signal(headers: Mapping[str, str]) -> bool:
    return any(headers.get(name) for name in ("sec-fetch-site", "origin", "referer"))


def from_another_site(request: Request) -> bool:
    """Whether a browser says another site started this request: what submit.php (unless its
    token says otherwise), the admin login and the API's POST refuse."""
    return is_foreign(request.headers, lambda: own_origins(request))


def is_foreign(headers: Mapping[str, str], own_origins: Callable[[], set[str]]) -> bool:
    """True when a browser says the request was started by another site. `own_origins()` is asked
    only when an Origin or a Referer is to be compared: an API client sends neither, and working
    them out (the request's URL parsed) was 4 % of a report POST's samples in the worker (py-spy)."""
    fetch_site = headers.get("sec-fetch-site", "").lower()
    if fetch_site:
        # "same-site" covers sibling hosts such as amsat.org and www.amsat.org; "none" is the user
        # typing the address or following a bookmark.
        return fetch_site == "cross-site"
    origin = headers.get("origin", "")
    if origin:
        return origin.lower() not in own_origins()  # includes the opaque origin "null"
    referer = headers.get("referer", "")
    return bool(referer) and origin_of(referer) not in own_origins()


def make_token(secret: str, binding: str, now: float | None = None) -> str:
    issued = int(time.time() if now is None else now)
    return f"{issued}.{_mac(secret, binding, issued)}"


def token_is_valid(secret: str, binding: str, token: str, now: float | None = None) -> bool:
    issued_text, _, mac = token.partition(".")
    if not _ISSUED.fullmatch(issued_text):  # ASCII digits, as make_token writes them (not "²", not 5,000 of them)
        return False
    issued = int(issued_text)
    age = (time.time() if now is None else now) - issued
    return 0 <= age <= TOKEN_LIFETIME and hmac.compare_digest(mac, _mac(secret, binding, issued))


def _mac(secret: str, binding: str, issued: int) -> str:
    return hmac.new(secret.encode(), f"csrf|{binding}|{issued}".encode(), hashlib.sha256).hexdigest()[:32]
