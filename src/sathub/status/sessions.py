"""Admin sessions: a signed cookie holding the user name and a random nonce (the CSRF tokens'
binding). HttpOnly, SameSite=Strict, Secure on https deployments, scoped to the admin pages."""

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


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt="sathub-admin-session")


def new_session(username: str) -> Session:
    return Session(username, secrets.token_urlsafe(16))


def encode(secret: str, session: Session) -> str:
    return _serializer(secret).dumps({"u": session.username, "n": session.nonce})


def decode(secret: str, cookie: str | None) -> Session | None:
    """The session of a cookie, or None when absent, forged or older than MAX_AGE."""
    if not cookie:
        return None
    try:
        data = _serializer(secret).loads(cookie, max_age=MAX_AGE)
    except BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), str) or not isinstance(data.get("n"), str):
        return None
    return Session(data["u"], data["n"])


def cookie_options(site: str, path: str) -> dict:
    return {"httponly": True, "samesite": "strict", "secure": site.startswith("https:"), "path": path,
            "max_age": MAX_AGE}
