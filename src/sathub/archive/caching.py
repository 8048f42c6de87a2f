"""The archive's conditional GETs and Cache-Control (docs/archive-caching.md): the one rule every
door that a reader or a crawler fetches (pages, raw sources, feeds, the read API, exports, search)
answers by.

An answer is made of the archive's rows at one revision: its list's (`mailing_lists.revision`,
moved by the database's own triggers in the transaction of any change to the list's mail,
threads or settings: migration 0024), or for answers about the whole archive (the index, search,
a sender's mail) the sum of every list's. Its strong ETag is a hash of that revision and of all
else its bytes depend on: the code that renders them (sathub's version, and the deployment's
SATHUB_COMMIT when set), the kind of answer, the public URL
(links are absolute), the request's path and query, and the door's variant (the API's negotiated
page or JSON). The revision is read first, so the rows read after it are never older than what
the ETag says; a matching If-None-Match (or, without one, If-Modified-Since) is a 304 after that
one small read, before any row is read or anything rendered. Last-Modified is the revision's date.

Cache-Control says how long a shared cache (nginx, Varnish, a CDN) or a browser may answer alone:
a message page, its raw source and a message's export long (they change when a reply is linked
or mail removed, and a cache asks again after that time, a 304 when nothing changed); listings
(index, list, month and thread pages, feeds, the read API) short, with stale-while-revalidate;
search answers short. Anything of a private list is an error answer (403: no one may read it
here), `private, no-store` (edge.py), so no cache ever answers it to anyone."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from enum import Enum
from functools import cache
from importlib.metadata import version

from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.access import LIST_ADDRESS
from sathub.archive.store.revisions import archive_revision, list_revision
from sathub.archive.tables import PRIVATE
from sathub.db.engines import Connection
from sathub.web import not_modified, settings_of, site_url


class Kind(Enum):
    MESSAGE = "message"  # a message page, its raw source, a message's export
    LISTING = "listing"  # the index, list, month and thread pages, feeds, the read API, exports
    SEARCH = "search"  # the search page, the search API, a search's feed and export


def cache_control(request: Request, kind: Kind) -> str:
    """The Cache-Control of an answer of `kind`, from the settings."""
    settings = settings_of(request)
    if kind is Kind.MESSAGE:
        return f"public, max-age={settings.archive_max_age_message}, must-revalidate"
    if kind is Kind.LISTING:
        stale = settings.archive_stale_while_revalidate
        return f"public, max-age={settings.archive_max_age_listing}, stale-while-revalidate={stale}"
    return f"public, max-age={settings.archive_max_age_search}"


@dataclass(frozen=True)
class Validators:
    """An answer's ETag, Last-Modified (None: no date) and Cache-Control."""

    etag: str
    last_modified: datetime | None
    cache_control: str

    @property
    def headers(self) -> dict[str, str]:
        headers = {"ETag": self.etag, "Cache-Control": self.cache_control}
        if self.last_modified is not None:
            headers["Last-Modified"] = format_datetime(self.last_modified.replace(tzinfo=UTC), usegmt=True)
        return headers

    def current(self, request: Request) -> bool:
        """The client's (or cache's) copy is this answer: a 304 will do."""
        return not_modified(request, self.etag, self.last_modified)

    def not_modified(self) -> Response:
        return Response(status_code=304, headers=self.headers)


@cache
def sathub_version() -> str:
    return version("sathub")


def validators(request: Request, kind: Kind, revision: tuple, revised_at: datetime | None, *variant) -> Validators:
    """The validators of the answer to `request` made at `revision` (revised at `revised_at`)."""
    query = request.scope.get("query_string", b"").decode("latin-1")
    code = (sathub_version(), settings_of(request).commit)
    identity = (*code, kind.value, site_url(request), request.scope["path"], query, *revision, *variant)
    digest = hashlib.sha256(repr(identity).encode()).hexdigest()[:32]
    return Validators(f'"{digest}"', revised_at, cache_control(request, kind))


def of_list(conn: Connection, request: Request, kind: Kind, address: str, *variant) -> Validators | None:
    """The validators of an answer about the list at `address`, after one read of its revision;
    None when no one may read that list (unknown, private or hidden whole): the door answers its error."""
    row = list_revision(conn, address) if LIST_ADDRESS.fullmatch(address) else None
    if row is None or row.archive_policy == PRIVATE or row.hidden_by is not None:
        return None
    return validators(request, kind, ("list", row.id, row.revision), row.revised_at, *variant)


def of_archive(
    conn: Connection, request: Request, kind: Kind, *variant, within: str | None = None
) -> Validators | None:
    """The validators of an answer about the whole archive, after one read over the lists; None
    when it is narrowed to a list (`within`: a search's `mlist`) that no one may read."""
    if within is not None and of_list(conn, request, kind, within) is None:
        return None
    state = archive_revision(conn)
    return validators(
        request, kind, ("archive", state.lists, state.newest_list, state.revision), state.revised_at, *variant
    )
