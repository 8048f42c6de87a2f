"""What every door of the archive checks before it reads: the path segments it takes, and the list
a request may read (a private list never leaks, through any door: API, pages, feeds, sources,
exports, downloads, pipermail links)."""

from __future__ import annotations

import re

from sathub.archive.edge import FORBIDDEN, NOT_FOUND, ArchiveError
from sathub.archive.store.lists import find_list
from sathub.archive.tables import PRIVATE
from sathub.db.engines import Connection, Row

# Path segments are checked before any query: a malformed one is simply not found, and no value a
# database refuses (PostgreSQL rejects NUL in text) ever reaches one.
HASH = re.compile(r"[A-Z2-7]{32}")
MAILMAN_ID = re.compile(r"[0-9a-f]{32}")
# HyperKitty's route takes one `@` with something on each side; anything else is no route.
LIST_ADDRESS = re.compile(r"[^@\x00]+@[^@\x00]+")
# What the HTML doors say of a list that cannot be read (`{name}`: the list's name).
PRIVATE_PAGE = "The archive of {name} is private."


def readable(mailing_list: Row | None, unknown: str = NOT_FOUND, private: str = FORBIDDEN) -> Row:
    """`mailing_list` when anyone may read it; else ArchiveError 404 (`unknown`: there is no such
    list, or it was hidden whole: archive/removal/) or 403 (`private`, in which `{name}` is the
    list's name)."""
    if mailing_list is None or mailing_list.hidden_by is not None:
        raise ArchiveError(404, unknown)
    if mailing_list.archive_policy == PRIVATE:
        raise ArchiveError(403, private.format(name=mailing_list.name))
    return mailing_list


def visible_list(conn: Connection, address: str, unknown: str = NOT_FOUND, private: str = FORBIDDEN) -> Row:
    """The list at `address` when anyone may read it (readable's errors otherwise)."""
    return readable(find_list(conn, address) if LIST_ADDRESS.fullmatch(address) else None, unknown, private)


def visible_list_page(conn: Connection, address: str) -> Row:
    """visible_list in the words of the HTML doors (pages, feeds, sources, exports)."""
    return visible_list(conn, address, f"There is no list {address} in this archive.", PRIVATE_PAGE)
