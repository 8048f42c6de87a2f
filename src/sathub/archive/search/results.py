"""What a search request finds, for the API and the page: the list it is limited to (`mlist`: an
unknown list is a 404, a private one a 403) and the page of results, in one snapshot; a search
the database stopped at its deadline is a 400 (docs/archive-search.md, "Deadline")."""

from __future__ import annotations

from sathub.archive.access import visible_list
from sathub.archive.edge import ArchiveError
from sathub.archive.search.request import SearchRequest
from sathub.archive.store import search
from sathub.archive.store.search_deadline import SearchTooCostly
from sathub.db.engines import Connection, Row

# A 400, not a 503 with Retry-After: the deadline is several times the slowest query of the mix on
# a large archive, so what reaches it is the query's cost, which asking again would spend again.
TOO_COSTLY = (
    "This search took more than {ms} ms and was stopped: narrow it (fewer prefixes, phrases or OR"
    " alternatives, a list or a date range)."
)


def find(
    conn: Connection, asked: SearchRequest, count_limit: int, deadline_ms: int = 0
) -> tuple[search.Found, Row | None]:
    """(the page found, its count exact up to `count_limit`; the list it was limited to), its
    statements stopped after `deadline_ms` (0: never)."""
    mailing_list = visible_list(conn, asked.mlist) if asked.mlist is not None else None
    try:
        found = search.search(
            conn,
            asked.query.tree,
            list_id=mailing_list.id if mailing_list else None,
            sort=asked.sort,
            page=asked.page,
            count_limit=count_limit,
            deadline_ms=deadline_ms,
        )
    except SearchTooCostly as stopped:
        raise ArchiveError(400, TOO_COSTLY.format(ms=stopped.milliseconds)) from stopped
    return found, mailing_list
