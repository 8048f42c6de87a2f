"""Who sent a message: the address and display name of its From header, pipermail's
`user at example.org (Name)` included. Pure."""

from __future__ import annotations

import re
from email.utils import parseaddr

from sathub.archive.mail.charsets import FOLD, decode_header, raw_header_text
from sathub.archive.mail.ids import MAX_ID_LENGTH

# A sender we cannot name still needs a row; `.invalid` can never be a real domain (RFC 2606).
PLACEHOLDER_ADDRESS = "unknown@sender.invalid"
# Pipermail's `user at example.org (Display Name)`; the name may itself contain an address.
_PIPERMAIL_FROM = re.compile(r"^\s*([^\s@<>()\"]+) at ([^\s@<>()\"]+\.[^\s@<>()\"]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


def sender(from_header: str | None) -> tuple[str, str]:
    """(lowercase address, display name) of a From header.

    Pipermail writes `user at example.org (Name)`: that is read as user@example.org. Without a
    usable address the placeholder address is used; the name falls back to the header's text,
    then to the address."""
    raw = FOLD.sub("", from_header or "")
    pipermail = _PIPERMAIL_FROM.match(raw)
    if pipermail:
        name, address = pipermail.group(3) or "", f"{pipermail.group(1)}@{pipermail.group(2)}"
    else:
        name, address = parseaddr(raw)
    name = decode_header(name).strip()
    address = raw_header_text(address).strip()
    if not usable_address(address):
        name = name or decode_header(raw).strip()
        address = PLACEHOLDER_ADDRESS
    return address.lower(), name or address


def usable_address(address: str) -> bool:
    local, at, domain = address.rpartition("@")
    return bool(at and local and domain) and len(address) <= MAX_ID_LENGTH and not re.search(r"[\s\x00]", address)
