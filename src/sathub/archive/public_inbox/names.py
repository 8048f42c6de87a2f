"""Inbox names (pure): each public list is one public-inbox inbox, named by the local part of its
address when no other public list has the same local part, else by the whole address; the
setting SATHUB_PUBLIC_INBOX_NAMES (`address=name,…`, config.py) renames, and a name it gives is
never anyone's default. A name is one path segment that
never stands for anything else under the prefix: not `all`, `r` or `_`, and without `/`; a
default that would be one becomes the whole address."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from sathub.config import RESERVED_INBOX_NAMES

# `all`: every inbox at once; `r`: lore's redirect of a Message-ID; `_`: public-inbox's own pages
# (config.py keeps them, so that the setting is checked at start-up).
RESERVED = RESERVED_INBOX_NAMES


def inbox_names(addresses: Iterable[str], renames: Mapping[str, str]) -> dict[str, str]:
    """name -> list address for the public lists `addresses`; `renames` maps an address to the
    name it takes instead of its default."""
    addresses = list(addresses)
    names = {renames[address]: address for address in addresses if address in renames}
    local_parts = Counter(address.split("@")[0] for address in addresses)
    for address in addresses:
        if address in renames:
            continue
        local = address.split("@")[0]
        unique = local_parts[local] == 1 and local not in RESERVED and local not in names
        names[local if unique else address] = address
    return names
