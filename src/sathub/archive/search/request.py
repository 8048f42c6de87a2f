"""The one reader of a search's parameters (docs/archive-search.md), called by every door that
searches: the JSON API and the page (search/api.py, search/page.py), the search feed
(feeds/endpoint.py) and the export of a search (export/endpoint.py).

What is wrong is an ArchiveError 400 in the same words whichever door was asked: a missing or blank
`q` is `The search needs a query: q=…`, a query the language refuses `Invalid query: <what is
wrong> (at character N)`, N counting from 1 in `q` without the blanks around it (the text the page
shows back in its box), a `sort` that is not one of SORTS (an empty one too) `Unknown sort …`.

A parameter given more than once is read as its last value, at every door: Django's QueryDict rule,
which HyperKitty's clients know, and the one of Starlette's QueryParams, which the doors hand in
as they are (`params.get`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sathub.archive.edge import ArchiveError, whole_number
from sathub.archive.search.query import Node, QueryError, parse
from sathub.archive.store.listing import Page
from sathub.archive.store.search import SORTS

MISSING = "The search needs a query: q=…"
DEFAULT_LIMIT, MAX_LIMIT = 10, 100  # the API's `limit` (docs/archive-search.md, "The JSON API")


@dataclass(frozen=True)
class Query:
    """`q` as the search reads it: its text without the blanks around it, and its tree."""

    text: str
    tree: Node


@dataclass(frozen=True)
class SearchRequest:
    """A search as asked: the query, the list it is limited to, the order and the window."""

    query: Query
    mlist: str | None
    sort: str
    page: Page


def query_text(value: str | None) -> str:
    """The text of `q` (None when it is absent): without the blanks around it."""
    return (value or "").strip()


def read_query(value: str | None) -> Query:
    """`q` parsed (None when it is absent); ArchiveError 400 when it is blank or refused."""
    text = query_text(value)
    if not text:
        raise ArchiveError(400, MISSING)
    try:
        return Query(text, parse(text))
    except QueryError as error:
        raise ArchiveError(400, f"Invalid query: {error}") from None


def read_request(params: Mapping[str, str], *, page_size: int | None = None) -> SearchRequest:
    """The search `params` ask for: `q`, `mlist`, `sort`, and `limit`/`offset` (the API), or with
    `page_size` the page numbered `page` from 1 (the web page); ArchiveError 400 for what is wrong."""
    query = read_query(params.get("q"))
    sort = params.get("sort", "relevance")
    if sort not in SORTS:
        raise ArchiveError(400, f"Unknown sort {sort!r}: one of {', '.join(SORTS)}.")
    if page_size is None:
        limit, offset = whole_number(params.get("limit")), whole_number(params.get("offset"))
        page = Page(
            min(limit, MAX_LIMIT) if limit is not None and limit > 0 else DEFAULT_LIMIT,
            offset if offset is not None and offset > 0 else 0,
        )
    else:
        number = whole_number(params.get("page"))
        page = Page(page_size, (min(number, 1_000_000) - 1) * page_size if number and number > 1 else 0)
    return SearchRequest(query, params.get("mlist") or None, sort, page)
