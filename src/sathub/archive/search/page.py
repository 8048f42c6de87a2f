"""`<web prefix>search?q=…&mlist=…&sort=…&page=N`: the search page, at HyperKitty's path and with
its parameters (docs/archive-search.md, "The page").

Without `q` it is the search form and the language's summary; with one, PAGE_SIZE results a page
under their count ("more than 10,000 results" past SATHUB_SEARCH_COUNT_LIMIT):
subject (a link to the message page), list, sender, date and the snippet, whose markers become
<mark> after the text is escaped. A query the language refuses is shown again with what is
wrong (400); `mlist` of an unknown list is the 404 page, of a private one the 403 page. No
JavaScript; every value is escaped by the templates' autoescape."""

from __future__ import annotations

from urllib.parse import urlencode

from markupsafe import Markup, escape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.budgets.spending import SEARCH, spend
from sathub.archive.caching import Kind, of_archive
from sathub.archive.edge import ArchiveError
from sathub.archive.links import PageLinks
from sathub.archive.search.request import SearchRequest, query_text, read_request
from sathub.archive.search.results import find
from sathub.archive.search.snippets import END, START, snippet
from sathub.archive.store.search import Found
from sathub.archive.web_door import HEADERS, WebDoor, render_page
from sathub.db.engines import Connection, connect
from sathub.web import engine_of, settings_of

PAGE_SIZE = 20


def marked(text: str) -> Markup:
    """The snippet escaped, its match markers turned into <mark> elements."""
    return Markup(str(escape(text)).replace(START, "<mark>").replace(END, "</mark>"))


def _results(conn: Connection, asked: SearchRequest, count_limit: int, deadline_ms: int) -> dict:
    # The list's check and the search need no common snapshot: every statement of the search
    # leaves private lists out by itself.
    found, mailing_list = find(conn, asked, count_limit, deadline_ms)
    tree = asked.query.tree
    results = [{"row": row, "snippet": snippet(tree, row.subject, row.content)} for row in found.rows]
    return {"found": found, "count": found.count, "results": results, "mailing_list": mailing_list}


class SearchPage(WebDoor):
    async def respond(self, request: Request) -> Response:
        # One worker-thread trip for the whole answer, rendering included: under a 64-connection
        # crawler every trip waits in the one thread-pool queue, and the three trips this door
        # made (revision, budget, search) with the template rendered on the event loop made a
        # search wait about three times as long as a page (bench/README.md, "Search in one trip").
        return await run_in_threadpool(_answer, request, self.links(request))


def _answer(request: Request, links: PageLinks) -> Response:
    # One pooled connection at a time: the budget's spend takes its own, and threads holding one
    # while waiting for another starve the pool under a crawler (measured: 30 "no free database
    # connection" 503s in bench/archive_crawler's first 10 s, every pooled connection held by a
    # search waiting for a second one).
    engine = engine_of(request)
    # The whole archive's revision decides before anything is searched (caching.py).
    within = request.query_params.get("mlist") or None
    with connect(engine) as conn:
        fresh = of_archive(conn, request, Kind.SEARCH, within=within)
    if fresh is not None and fresh.current(request):
        return fresh.not_modified()
    query = request.query_params
    text = query_text(query.get("q"))
    context: dict = {
        "links": links,
        "search_text": text,
        "marked": marked,
        "error": None,
        "count": None,
        "page_size": PAGE_SIZE,
    }
    status = 200
    if text:
        try:
            asked = read_request(query, page_size=PAGE_SIZE)
            spend(request, SEARCH)  # only a query the language accepts spends
            settings = settings_of(request)
            with connect(engine) as conn:
                context.update(_results(conn, asked, settings.search_count_limit, settings.search_timeout_ms))
        except ArchiveError as error:  # a query refused, or stopped at its deadline
            if error.status != 400:
                raise
            context["error"], status = error.detail, 400
        else:
            context["sort_order"] = asked.sort
            context["page_number"] = asked.page.offset // PAGE_SIZE + 1
            context["pages"] = _pages(links, asked, context.pop("found"))
    headers = {**HEADERS, **fresh.headers} if fresh is not None and status == 200 else HEADERS
    return Response(render_page("page_search.html", **context), status_code=status, headers=headers)


def _pages(links: PageLinks, asked: SearchRequest, found: Found) -> dict:
    """The links to the previous and next pages of results (None at either end), and the number of
    the last page (None past the count limit: how many more match is not counted)."""
    number = asked.page.offset // PAGE_SIZE + 1
    last = max(1, -(-found.count // PAGE_SIZE)) if found.count_exact else None
    text = asked.query.text

    def link(to: int, sort: str = asked.sort) -> str:
        params = [("q", text)]
        if asked.mlist:
            params.append(("mlist", asked.mlist))
        if sort != "relevance":
            params.append(("sort", sort))
        if to > 1:
            params.append(("page", str(to)))
        return f"{links.index()}search?{urlencode(params)}"

    scope = urlencode([("q", text), *([("mlist", asked.mlist)] if asked.mlist else [])])
    return {
        "previous": link(number - 1) if number > 1 else None,
        "next": link(number + 1) if found.more else None,
        "count_exact": found.count_exact,
        "last": last,
        "sorted": {sort: link(1, sort) for sort in ("relevance", "date-desc", "date-asc")},
        # Every result, not only this page's: as a feed to follow, as an mbox to keep (archive-export.md).
        "feed": f"{links.index()}search/feed/atom/?{scope}",
        "export": f"{links.index()}search/export/search.mbox.gz?{scope}",
    }
