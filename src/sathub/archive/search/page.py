"""`<web prefix>search?q=…&mlist=…&sort=…&page=N`: the search page, at HyperKitty's path and with
its parameters (docs/archive-search.md, "The page").

Without `q` it is the search form and the language's summary; with one, PAGE_SIZE results a page:
subject (a link to the message page), list, sender, date and the snippet, whose markers become
<mark> after the text is escaped. A query the language refuses is shown again with what is
wrong (400); `mlist` of an unknown list is the 404 page, of a private one the 403 page. No
JavaScript; every value is escaped by the templates' autoescape."""

from __future__ import annotations

from urllib.parse import urlencode

from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.edge import ArchiveError
from sathub.archive.links import PageLinks
from sathub.archive.search.request import SearchRequest, query_text, read_request
from sathub.archive.search.results import find
from sathub.archive.search.snippets import END, START, snippet
from sathub.archive.web_door import HEADERS, WebDoor, render_page
from sathub.db.engines import Connection
from sathub.web import in_thread

PAGE_SIZE = 20


def marked(text: str) -> Markup:
    """The snippet escaped, its match markers turned into <mark> elements."""
    return Markup(str(escape(text)).replace(START, "<mark>").replace(END, "</mark>"))


def _results(conn: Connection, asked: SearchRequest) -> dict:
    # The list's check and the search need no common snapshot: every statement of the search
    # leaves private lists out by itself.
    found, mailing_list = find(conn, asked)
    tree = asked.query.tree
    results = [{"row": row, "snippet": snippet(tree, row.subject, row.content)} for row in found.rows]
    return {"count": found.count, "results": results, "mailing_list": mailing_list}


class SearchPage(WebDoor):
    async def respond(self, request: Request) -> Response:
        links = self.links(request)
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
            except ArchiveError as error:
                if error.status != 400:
                    raise
                context["error"], status = error.detail, 400
            else:
                context.update(await in_thread(request, _results, asked))
                context["sort_order"] = asked.sort
                context["page_number"] = asked.page.offset // PAGE_SIZE + 1
                context["pages"] = _pages(links, asked, context["count"])
        return Response(render_page("page_search.html", **context), status_code=status, headers=HEADERS)


def _pages(links: PageLinks, asked: SearchRequest, count: int) -> dict:
    """The links to the previous and next pages of results (None at either end)."""
    number = asked.page.offset // PAGE_SIZE + 1
    last = max(1, -(-count // PAGE_SIZE))
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
        "next": link(number + 1) if number < last else None,
        "last": last,
        "sorted": {sort: link(1, sort) for sort in ("relevance", "date-desc", "date-asc")},
        # Every result, not only this page's: as a feed to follow, as an mbox to keep (archive-export.md).
        "feed": f"{links.index()}search/feed/atom/?{scope}",
        "export": f"{links.index()}search/export/search.mbox.gz?{scope}",
    }
