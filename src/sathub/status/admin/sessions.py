"""Admin sessions: a signed cookie holding the user name, a random nonce (the CSRF tokens'
binding) and the user's session generation at login (logging out or a new password moves it on,
which ends every session issued before: migration 0005). HttpOnly, SameSite=Strict, Secure on
https deployments, scoped to the admin pages."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE = "sathub_admin"
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
