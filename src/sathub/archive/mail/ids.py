"""Identifiers, as HyperKitty and Mailman make them (spec/archive-api.md, "Identifiers"). Pure.

A Message-ID is cleaned, then hashed into the `message_id_hash` of URLs; a thread's id is its
root's hash; a sender without a loaded Mailman user id gets a stable one from its address."""

from __future__ import annotations

import base64
import hashlib
import re
import uuid

MAX_ID_LENGTH = 254


def clean_message_id(value: str | None) -> str:
    """Whitespace removed, the text inside the first <...> (or the whole value), 254 chars at most."""
    if not value:
        return ""
    value = re.sub(r"[\s\x00]+", "", value)  # NUL too: no database stores it in text
    start = value.find("<")
    if start >= 0:
        end = value.find(">", start + 1)
        value = value[start + 1:end] if end >= 0 else value[start + 1:]
    return value[:MAX_ID_LENGTH]


def message_id_hash(message_id: str) -> str:
    """base32(SHA-1(cleaned Message-ID)): 20 bytes give 32 characters A-Z2-7, no padding."""
    return base64.b32encode(hashlib.sha1(message_id.encode("utf-8")).digest()).decode("ascii")


def generated_message_id(data: bytes) -> str:
    """An id for a message without one, from its own bytes: re-imports find the same id."""
    return f"{hashlib.sha1(data).hexdigest()}@generated.sathub.invalid"


_BRACKETED = re.compile(r"<([^<>]*)>")


def parent_reference(in_reply_to: str | None, references: str | None) -> str | None:
    """The first <...> of In-Reply-To, else the last <...> of References (cleaned), else None."""
    for header, pick in ((in_reply_to, 0), (references, -1)):
        found = [ref for ref in _BRACKETED.findall(header or "") if ref.strip()]
        if found:
            return clean_message_id(found[pick]) or None
    return None


def default_mailman_id(address: str) -> str:
    """The stable sender id used until a real Mailman user id is loaded for the address."""
    return uuid.uuid5(uuid.NAMESPACE_URL, "mailto:" + address.lower()).hex
