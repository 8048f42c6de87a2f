"""public-inbox's search forms (docs/public-inbox.md): `<inbox>/?q=…` (a page of results) and
`POST <inbox>/?q=…&x=m` (every match as public-inbox's mboxrd, gzip: what lei asks a remote
inbox for), with public-inbox 1.9's parameters:

    q     the query in public-inbox's syntax (query_syntax.py makes it sathub's)
    o     the offset; negative: oldest first, o=-1 the first page (SearchQuery, SearchView)
    l     results a page, at most and by default 200 (SearchQuery's $LIM)
    r     relevance order (the page; the mbox is newest arrival first whatever r, as 1.9's)
    t=1   with x=m: each match's whole thread (public-inbox's rule, thread_rule.py)
    x=m   with POST: the mbox; with GET, the page saying so, as public-inbox's
    x=t   the page nested: each result whole, with the message it replies to
    x=A   the page's results as Atom

The query goes through sathub's one search reader (search/request.py's read_query and
search/results.py's find: its limits, its deadline), a page (whatever its view) spends one search
of the client's budget (the door spends it), the mbox is mboxes.py's (one export, a slot,
streamed)."""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.edge import ArchiveError
from sathub.archive.public_inbox.answers import feed, file_name, thread_of
from sathub.archive.public_inbox.mboxes import Mbox, send
from sathub.archive.public_inbox.query_syntax import translate
from sathub.archive.public_inbox.site import Inboxes
from sathub.archive.search.query import QueryError
from sathub.archive.search.request import Query, SearchRequest, read_query
from sathub.archive.search.results import TOO_COSTLY, find
from sathub.archive.store import public_inbox, search
from sathub.archive.store.listing import Page
from sathub.archive.store.search_deadline import SearchTooCostly, deadline
from sathub.archive.web_door import HEADERS, render_page
from sathub.db.engines import Connection, Row
from sathub.web import settings_of

PER_PAGE = 200  # public-inbox's SearchQuery $LIM: a page's results, and the most `l` may ask
VIEWS = ("t", "A")  # x=t: the results nested by thread; x=A: Atom (else the summary)


@dataclass(frozen=True)
class Asked:
    """A public-inbox search as asked: `text` is `q` as given, `query` sathub's."""

    text: str
    query: Query
    offset: int
    limit: int
    relevance: bool
    threads: bool
    mbox: bool
    view: str = ""

    @property
    def ascending(self) -> bool:
        return self.offset < 0

    @property
    def start(self) -> int:
        """The first result's index: o=-1 is the first of the oldest first, as a Perl list's."""
        return -(self.offset + 1) if self.offset < 0 else self.offset


def _flag(params: Mapping[str, str], name: str) -> bool:
    return name in params and params[name] != "0"


def _number(text: str | None, default: int) -> int:
    text = (text or "").strip()
    digits = text.removeprefix("-")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 9:
        return default
    return int(text)


def read_search(params: Mapping[str, str]) -> Asked | None:
    """The search `params` ask for; None without a `q` that holds anything (the topics page);
    ArchiveError 400 for a query sathub refuses, in read_query's words."""
    text = (params.get("q") or "").strip()
    if not text:
        return None
    try:
        translated = translate(text)
    except QueryError as error:
        raise ArchiveError(400, f"Invalid query: {error}") from None
    limit = _number(params.get("l"), PER_PAGE)
    return Asked(
        text,
        read_query(translated),
        _number(params.get("o"), 0),
        limit if 0 < limit <= PER_PAGE else PER_PAGE,
        _flag(params, "r"),
        _flag(params, "t"),
        params.get("x") == "m",
        params.get("x", "") if params.get("x") in VIEWS else "",
    )


def results_page(conn: Connection, request: Request, inboxes: Inboxes, inbox: str, asked: Asked) -> Response:
    """The page of results (200; 404 with the same page when nothing matches, as public-inbox's)."""
    settings = settings_of(request)
    sort = "relevance" if asked.relevance else "date-asc" if asked.ascending else "date-desc"
    mlist = inboxes.names.get(inbox)  # None: `all`, every public list
    wanted = SearchRequest(asked.query, mlist, sort, Page(asked.limit, asked.start))
    found, _ = find(conn, wanted, settings.search_count_limit, settings.search_timeout_ms)
    rows = list(zip(found.rows, found.scores, strict=True))
    if asked.view == "A" and found.rows:
        url = f"{inboxes.inbox_url(inbox)}?{_query_string({'q': asked.text}, 0, PER_PAGE)}"
        return feed(conn, inboxes, inbox, found.rows, url + "&x=A", f"{asked.text} - search results", url)
    names = {address: name for name, address in inboxes.names.items()}  # a row's list_name is its address
    shown = inbox if inbox in inboxes.names else None
    body = render_page(
        "pi_search.html", inboxes=inboxes, inbox=shown, searched=inbox, asked=asked, found=found, names=names,
        links=_links(asked, found.count), rows=_nested(conn, rows) if asked.view == "t" else rows,
    )  # fmt: skip
    return Response(body, 200 if found.rows or asked.start else 404, HEADERS)


def _nested(conn: Connection, rows: Sequence[tuple[Row, float | None]]) -> list[tuple[Row, float | None, str | None]]:
    """public-inbox's x=t: each result whole, in the results' order, with the Message-ID of the
    message it replies to (its place in its thread; None for a thread's first)."""
    parents = {row.id: row.in_reply_to for row in public_inbox.placed(conn, [row.id for row, _ in rows])}
    return [(row, score, parents.get(row.id)) for row, score in rows]


def _links(asked: Asked, total: int) -> dict[str, str]:
    """The next and previous pages' offsets (SearchView::search_nav_bot), as query strings."""
    common = {"q": asked.text, **({"r": ""} if asked.relevance else {}), **({"x": "t"} if asked.view == "t" else {})}
    links: dict[str, str] = {}
    if asked.offset >= 0:
        if asked.offset + asked.limit < total:
            links["next"] = _query_string(common, asked.offset + asked.limit, asked.limit)
        if asked.offset > 0:
            links["prev"] = _query_string(common, max(asked.offset - asked.limit, 0), asked.limit)
    else:
        if -(asked.offset - asked.limit) < total:
            links["next"] = _query_string(common, asked.offset - asked.limit, asked.limit)
        if asked.offset < -1:
            links["prev"] = _query_string(common, min(asked.offset + asked.limit, -1), asked.limit)
    links["reverse"] = _query_string(common, -1 if asked.offset >= 0 else 0, asked.limit)
    return links


def _query_string(common: dict[str, str], offset: int, limit: int) -> str:
    parts = [f"q={quote(common['q'], safe=':')}", *(["r"] if "r" in common else [])]
    if offset:
        parts.append(f"o={offset}")
    if limit != PER_PAGE:
        parts.append(f"l={limit}")
    if "x" in common:
        parts.append(f"x={common['x']}")
    return "&".join(parts)


async def results_mbox(request: Request, list_ids: list[int], asked: Asked) -> Response:
    """Every match (with `t`, each one's thread) as public-inbox's mboxrd, gzip, newest arrival
    first, streamed (mboxes.py); 404 `No results found` when nothing matches."""
    name = file_name(("results-thread-" if asked.threads else "results-") + asked.text)
    return await send(request, name, _mbox_ids, list_ids, asked, settings_of(request).search_timeout_ms)


def _mbox_ids(conn: Connection, list_ids: list[int], asked: Asked, deadline_ms: int) -> Mbox:
    """The ids the mbox holds, in its order: the matches, newest arrival first (public-inbox's
    docid order); with `threads`, each match's thread in arrival order in their place, once."""
    try:
        with deadline(conn, deadline_ms):
            list_id = list_ids[0] if len(list_ids) == 1 else None  # None: every public list
            found = search.matching_ids(conn, asked.query.tree, list_id=list_id, sort="date-asc")
    except SearchTooCostly as stopped:
        raise ArchiveError(400, TOO_COSTLY.format(ms=stopped.milliseconds)) from stopped
    matches = sorted(found, reverse=True)
    if not asked.threads:
        return Mbox(array("q", matches))
    ordered: list[int] = []
    seen: set[int] = set()
    places = {row.id: row for row in public_inbox.placed(conn, matches)}
    for match in matches:
        if match in seen:
            continue
        for row in thread_of(conn, places[match]):
            if row.id not in seen:
                seen.add(row.id)
                ordered.append(row.id)
    return Mbox(array("q", ordered))
