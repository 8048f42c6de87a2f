"""Who sent a message: the address and display name of its From header as HyperKitty reads them
(spec/archive-api.md, Header rules 1 and 2), pipermail's `user at example.org (Name)` included,
and how the archive shows an address. Pure."""

from __future__ import annotations

import functools
import re
from email.utils import parseaddr

from sathub.archive.mail.charsets import decode_header
from sathub.archive.mail.headers import modern_text, raw_text
from sathub.archive.mail.ids import MAX_ID_LENGTH

# A From header without any address (Header rules 1): `unknown@example.com`, or the letters and
# digits of the name it holds `@example.com`.
PLACEHOLDER_DOMAIN = "@example.com"
PLACEHOLDER_ADDRESS = "unknown" + PLACEHOLDER_DOMAIN


@functools.lru_cache(maxsize=16384)  # pure, and busy senders repeat the same header thousands of times
def sender(from_header: str | None) -> tuple[str, str]:
    """(address as written, display name) of a From header.

    The modern parser renders the header without comments, so only a phrase before `<addr>` is a
    name; `x@y (Name)` is named `x@y`. Pipermail's `x at y (Name)` holds no address for the
    parser, so `" at "` becomes `"@"` and the text is read again (Header rules 1). Letter case is
    kept (rules 2). Without a usable address, a placeholder address; the name falls back to the
    address."""
    text = modern_text("from", from_header)
    name, address = parseaddr(text)
    if "@" not in address:
        name, address = parseaddr(text.replace(" at ", "@"))
    name, address = name.strip(), address.strip()
    if not usable_address(address):
        name = name or address
        address = (re.sub(r"[^a-z0-9]", "", name.lower())[:200] or "unknown") + PLACEHOLDER_DOMAIN
    return address, name or address


def commented_name(from_header: str | None, name: str) -> str:
    """The name a From header gives in a comment, when it is not `name` (what `sender` shows):
    pipermail's `x at y (Brett Cannon)` and `x@y (Name)` are named by their address (Header rules
    1), but a reader searches for the name, so the search index holds it beside them. Else ""."""
    text = raw_text(from_header)
    if "(" not in text:
        return ""
    commented = decode_header(parseaddr(text.replace(" at ", "@"))[0]).strip()
    return "" if commented == name else commented


def usable_address(address: str) -> bool:
    local, at, domain = address.rpartition("@")
    return bool(at and local and domain) and len(address) <= MAX_ID_LENGTH and not re.search(r"[\s\x00]", address)


def obfuscate(address: str) -> str:
    """An address as the archive shows it, `@` written ` (a) ` (archive-api.md: a sender's
    `address`; archive-more.md: participants): the API, the pages and the feeds alike."""
    return address.replace("@", " (a) ")


def shown_sender(name: str) -> str:
    """A sender as every page and feed shows it: its name (`sender_name`, never empty: `sender`
    falls back to the address), obfuscated, since a name is often an address (pipermail's
    `x at y (Name)` is named `x@y`, Header rules 1) or holds one (`"x@y via list"`)."""
    return obfuscate(name)
