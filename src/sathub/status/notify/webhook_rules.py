"""The webhooks' rules: what may be registered, how a body is signed, which addresses a POST may
reach, and when a failed one is tried again. Pure, no I/O (docs/orbits.md, "Webhooks").

Signing is GitHub's (X-Hub-Signature-256): the HMAC-SHA256 of the body's bytes under the hook's
secret, in lower-case hex, after `sha256=`, so a receiver checks it with the code it already has
for GitHub's hooks (compare in constant time: hmac.compare_digest)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import time
from collections.abc import Collection
from urllib.parse import urlsplit

EVENTS = ("report", "status")  # what a hook may subscribe to: the stream's event names
SIGNATURE_HEADER = "X-Sathub-Signature-256"
EVENT_HEADER = "X-Sathub-Event"  # 'report' or 'status'
EVENT_ID_HEADER = "X-Sathub-Event-Id"  # the same at every attempt at one event: a receiver's dedup key
DELIVERY_HEADER = "X-Sathub-Delivery"  # new at each attempt
USER_AGENT = "sathub-webhooks/1"
URL_LENGTH = 2048  # the column's
SECRET_LENGTH = (16, 255)  # GitHub asks for a random string "with high entropy"; the column holds 255


def signature(secret: str, body: bytes) -> str:
    """The value of SIGNATURE_HEADER."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def retry_delay(failures: int, first: float, longest: float) -> float:
    """Seconds before the next attempt after `failures` failures in a row: `first`, doubled at each
    failure, at most `longest`."""
    return min(longest, first * 2 ** min(failures - 1, 64))


def utc_text(seconds: float) -> str:
    """A Unix time as the log and the disabling reason show it: 2026-11-28 21:30:05Z."""
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(seconds))


def url_refusal(url: str) -> str | None:
    """Why a URL cannot be a webhook's (None: it can): only http:// and https:// URLs with a host,
    without credentials (they would be kept and shown in clear), at most URL_LENGTH characters."""
    if len(url) > URL_LENGTH:
        return f"the URL must be at most {URL_LENGTH} characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return "the URL is not one"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "only http:// and https:// URLs with a host name"
    if parts.username is not None or parts.password is not None:
        return "no user name or password in the URL (the secret signs each request)"
    return None


def registration_refusal(url: str, secret: str, events: Collection[str]) -> str | None:
    """Why a hook cannot be registered as given (None: it can); its satellite names are the
    catalog's to check."""
    refusal = url_refusal(url)
    if refusal:
        return refusal
    low, high = SECRET_LENGTH
    if not low <= len(secret) <= high:
        return f"the secret must be {low} to {high} characters"
    if not events or not set(events) <= set(EVENTS):
        return f"the events must be one or more of {', '.join(EVENTS)}"
    return None


def is_public(address: str) -> bool:
    """A globally routable unicast address: not loopback, private, link-local, shared (CGNAT),
    reserved or multicast; an IPv4-mapped IPv6 address is judged as its IPv4 address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast
