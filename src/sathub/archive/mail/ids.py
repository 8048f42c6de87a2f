"""Identifiers, as HyperKitty and Mailman make them (spec/archive-api.md, "Identifiers"). Pure.

A Message-ID is cleaned, then hashed into the `message_id_hash` of URLs; a thread's id is its
root's hash; a sender without a loaded Mailman user id gets a stable one from its address."""

from __future__ import annotations

import base64
import hashlib
import re
import uuid
from email import policy

MAX_ID_LENGTH = 254
_MODERN = policy.default
# RFC 5322 msg-id as dot-atom-text "@" dot-atom-text: the modern parser accepts it unchanged.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_PLAIN_ID = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*")


def clean_message_id(value: str | None) -> str:
    """The Message-ID as HyperKitty stores it (Identifiers; Header rules 5): whitespace removed,
    the text inside the first <...> (or the whole value), non-ASCII characters dropped, cut where
    the modern parser ends the id (a second `@` ends it: `<a@b@c>` -> `a@b`), 254 chars at most."""
    if not value:
        return ""
    value = re.sub(r"[\s\x00]+", "", value)  # NUL too: no database stores it in text
    start = value.find("<")
    if start >= 0:
        end = value.find(">", start + 1)
        value = value[start + 1 : end] if end >= 0 else value[start + 1 :]
    value = value.encode("ascii", "ignore").decode("ascii")
    if value and not _PLAIN_ID.fullmatch(value):  # a plain id is one the parser keeps whole
        try:
            parsed = str(_MODERN.header_factory("message-id", f"<{value}>"))
        except Exception:
            parsed = value
        value = parsed.removeprefix("<").removesuffix(">") or value
    return value[:MAX_ID_LENGTH]


def message_id_hash(message_id: str) -> str:
    """base32(SHA-1(cleaned Message-ID)): 20 bytes give 32 characters A-Z2-7, no padding."""
    return base64.b32encode(hashlib.sha1(message_id.encode("utf-8")).digest()).decode("ascii")


def generated_message_id(data: bytes) -> str:
    """An id for a message without one, from its own bytes: re-imports find the same id."""
    return f"{hashlib.sha1(data).hexdigest()}@generated.sathub.invalid"


# The text between the first `<` and the following `>` (at least one character).
_IN_BRACKETS = re.compile(r"[^<]*<([^>]+)>")


def parent_reference(in_reply_to: str | None, references: str | None) -> str | None:
    """The parent's Message-ID as written (Header rules 6): In-Reply-To alone when it is not
    blank, else the last whitespace-separated token of References; the text inside its first
    <...> when it has brackets (none: no parent), else the bare token. Unlike a Message-ID it
    keeps its whitespace and other characters, so a broken reference matches no email."""
    chosen = in_reply_to if in_reply_to and in_reply_to.strip() else None
    if chosen is None and references and references.strip():
        chosen = references.split()[-1]
    if chosen is None:
        return None
    if "<" in chosen or ">" in chosen:
        inside = _IN_BRACKETS.match(chosen)
        if inside is None:
            return None
        chosen = inside.group(1)
    else:
        chosen = chosen.strip()
    return chosen.replace("\x00", "")[:MAX_ID_LENGTH] or None


def default_mailman_id(address: str) -> str:
    """The stable sender id used until a real Mailman user id is loaded for the address."""
    return uuid.uuid5(uuid.NAMESPACE_URL, "mailto:" + address.lower()).hex


# public-inbox's Message-IDs of a header: the text of each <...>, across lines.
_BRACKETED = re.compile(r"<([^>]+)>")
# Old git-send-email asked for In-Reply-To and got `y` or `n` typed as answers (PublicInbox::MID).
_ANSWERS = frozenset(("y", "n"))


def message_references(references: list[str], in_reply_to: list[str], own_id: str, addresses: set[str]) -> list[str]:
    """The Message-IDs an email names, as public-inbox's `references()` and OverIdx's
    `parse_references` take them: every <...> of its References headers, then of In-Reply-To,
    cleaned as a Message-ID is, once each in that order; its own Message-ID, `y`, `n` and the
    addresses of its From, To and Cc (`addresses`, as written: replies quoting an address) left out."""
    found: dict[str, None] = {}
    for value in (*references, *in_reply_to):
        for inside in _BRACKETED.findall(value):
            cleaned = clean_message_id(inside)
            if cleaned and cleaned != own_id and cleaned not in _ANSWERS and cleaned not in addresses:
                found.setdefault(cleaned)
    return list(found)
