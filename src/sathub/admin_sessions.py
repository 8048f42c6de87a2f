"""Admin sessions, shared by both interfaces: a signed cookie holding the user name, a random nonce
(the CSRF tokens' binding) and the user's session generation at login (logging out or a new
password moves it on, which ends every session issued before: migration 0005). HttpOnly,
SameSite=Strict, Secure on https deployments, sent to the admin pages and to the archive's pages
(where the removal buttons are), nowhere else.

The accounts are interface A's table, which the archive may not import: the app hands both
interfaces the one check of a session against them (`app.state.session_is_current`, app.py)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request

from sathub.csrf import secret_of
from sathub.web import in_thread, settings_of

COOKIE = "sathub_admin"
# The same session, sent to the archive's pages: a second name, so that the admin pages' cookie
# stays one cookie limited to /admin as before.
ARCHIVE_COOKIE = "sathub_admin_archive"
MAX_AGE = 12 * 3600


@dataclass(frozen=True)
class Session:
    username: str
    nonce: str
    generation: int


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt="sathub-admin-session")


def new_session(username: str, generation: int) -> Session:
    return Session(username, secrets.token_urlsafe(16), generation)


def encode(secret: str, session: Session) -> str:
    return _serializer(secret).dumps({"u": session.username, "n": session.nonce, "g": session.generation})


def decode(secret: str, cookie: str | None) -> Session | None:
    """The session of a cookie, or None when absent, forged or older than MAX_AGE (whether it
    was ended since is the caller's question: it takes the database)."""
    if not cookie:
        return None
    try:
        data = _serializer(secret).loads(cookie, max_age=MAX_AGE)
    except BadSignature:
        return None
    if not isinstance(data, dict):
        return None
    username, nonce, generation = data.get("u"), data.get("n"), data.get("g")
    if not (isinstance(username, str) and isinstance(nonce, str) and type(generation) is int):
        return None
    return Session(username, nonce, generation)


def cookie_options(site: str, path: str) -> dict:
    return {
        "httponly": True,
        "samesite": "strict",
        "secure": site.startswith("https:"),
        "path": path,
        "max_age": MAX_AGE,
    }


async def current_session(request: Request) -> Session | None:
    """The request's session when its cookie is genuine and the session was not ended since
    (its user still exists, has not logged out nor changed password). A request without the
    cookie is answered without asking the database."""
    cookies = request.cookies
    session = decode(secret_of(request), cookies.get(COOKIE) or cookies.get(ARCHIVE_COOKIE))
    if session is None:
        return None
    is_current = request.app.state.session_is_current
    return session if await in_thread(request, is_current, session.username, session.generation) else None


def cookie_paths(request: Request) -> list[tuple[str, str]]:
    """(name, path) of each cookie the session is sent in, under the site prefix: the admin pages'
    and one for each of the archive's web prefixes (`app.state.archive_prefixes`, app.py)."""
    prefix = settings_of(request).prefix
    archive = [(ARCHIVE_COOKIE, prefix + path.rstrip("/")) for path in request.app.state.archive_prefixes]
    return [(COOKIE, f"{prefix}/admin"), *archive]
