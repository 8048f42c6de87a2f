"""What a search request finds, for the API and the page: the list it is limited to (`mlist`: an
unknown list is a 404, a private one a 403) and the page of results, in one snapshot."""

from __future__ import annotations

from sathub.archive.access import visible_list
from sathub.archive.search.request import SearchRequest
from sathub.archive.store import search
from sathub.db.engines import Connection, Row


def find(conn: Connection, asked: SearchRequest, count_limit: int) -> tuple[search.Found, Row | None]:
    """(the page found, its count exact up to `count_limit`; the list it was limited to)."""
    mailing_list = visible_list(conn, asked.mlist) if asked.mlist is not None else None
    found = search.search(
        conn,
        asked.query.tree,
        list_id=mailing_list.id if mailing_list else None,
        sort=asked.sort,
        page=asked.page,
        count_limit=count_limit,
    )
    return found, mailing_list
