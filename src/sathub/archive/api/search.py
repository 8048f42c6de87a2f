"""`<prefix>api/search/?q=…[&mlist=…][&sort=…][&limit=N&offset=M]`: the archive searched, in
HyperKitty's pagination envelope (docs/archive-search.md, "The JSON API").

Each result is the email object of `/list/<address>/emails/` (objects.emails: same keys, order and
links) followed by `score` and `snippet`. Always paginated: `limit` 10 by default, 100 at most.
A query that cannot be parsed or costs too much, a missing `q` or an unknown `sort` is a 400 in
the archive's error shape; `mlist` of an unknown list a 404, of a private one a 403. Mail of a
private list is never a result (store/search.py leaves it out of every statement)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sathub.archive.access import visible_list
from sathub.archive.api import objects, paging
from sathub.archive.api.endpoint import Call, View
from sathub.archive.edge import ArchiveError
from sathub.archive.search.query import Node, QueryError, parse
from sathub.archive.search.snippets import snippet
from sathub.archive.store import search
from sathub.archive.store.listing import Page
from sathub.db.engines import Connection, Row

DEFAULT_LIMIT, MAX_LIMIT = 10, 100


@dataclass(frozen=True)
class Request:
    """A search as asked: the parsed query, the list it is limited to, the order and the window."""

    text: str
    tree: Node
    mlist: str | None
    sort: str
    page: Page


def read_request(query: Mapping[str, str], *, page_size: int | None = None, page_number: str | None = None) -> Request:
    """The search `query` asks for (`q`, `mlist`, `sort`; `limit`/`offset`, or a page of
    `page_size` numbered `page_number` for the web page); ArchiveError 400 for what is wrong."""
    text = query.get("q", "").strip()
    if not text:
        raise ArchiveError(400, "The search needs a query: q=…")
    try:
        tree = parse(text)
    except QueryError as error:
        raise ArchiveError(400, f"Invalid query: {error}") from None
    sort = query.get("sort") or "relevance"
    if sort not in search.SORTS:
        raise ArchiveError(400, f"Unknown sort {sort!r}: one of {', '.join(search.SORTS)}.")
    if page_size is None:
        limit = paging._int_or_none(query.get("limit"))
        offset = paging._int_or_none(query.get("offset"))
        page = Page(
            min(limit, MAX_LIMIT) if limit is not None and limit > 0 else DEFAULT_LIMIT,
            offset if offset is not None and offset > 0 else 0,
        )
    else:
        number = paging._int_or_none(page_number)
        page = Page(page_size, (min(number, 1_000_000) - 1) * page_size if number and number > 1 else 0)
    return Request(text, tree, query.get("mlist") or None, sort, page)


def run(conn: Connection, asked: Request) -> tuple[search.Found, dict[int, list[str]], Row | None]:
    """(the page found, the replies of its emails, the list it was limited to) in one snapshot."""
    mailing_list = visible_list(conn, asked.mlist) if asked.mlist is not None else None
    found = search.search(
        conn, asked.tree, list_id=mailing_list.id if mailing_list else None, sort=asked.sort, page=asked.page
    )
    return found, search.children(conn, [row.id for row in found.rows]), mailing_list


def get_search(call: Call) -> dict:
    asked = read_request(call.request.query_params)
    with call.connect() as conn:
        found, children, _ = run(conn, asked)
    results = objects.emails(found.rows, children, call.links)
    for result, row, score in zip(results, found.rows, found.scores, strict=True):
        result["score"] = score
        result["snippet"] = snippet(asked.tree, row.subject, row.content)
    base = call.links.without_format(call.links.api + "search/" + call.links.suffix)
    return paging.envelope(found.count, results, asked.page, base, call.request.query_params.multi_items())


SEARCH = View("Search", "Search the archived emails", get_search)
