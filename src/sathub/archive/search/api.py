"""`<prefix>api/search/?q=…[&mlist=…][&sort=…][&limit=N&offset=M]`: the archive searched, in
HyperKitty's pagination envelope (docs/archive-search.md, "The JSON API").

Each result is the email object of `/list/<address>/emails/` (objects.emails: same keys, order and
links) followed by `score` and `snippet`. Always paginated: `limit` 10 by default, 100 at most;
`count` is exact up to SATHUB_SEARCH_COUNT_LIMIT, beyond it that limit with `count_exact` false.
A query that cannot be parsed or costs too much, a missing `q` or an unknown `sort` is a 400 in
the archive's error shape (search/request.py); `mlist` of an unknown list a 404, of a private one
a 403. Mail of a private list is never a result (store/search.py leaves it out of every
statement)."""

from __future__ import annotations

from sathub.archive.api import objects, paging
from sathub.archive.api.endpoint import Call, View
from sathub.archive.budgets import spending
from sathub.archive.caching import Kind
from sathub.archive.search.request import read_request
from sathub.archive.search.results import find
from sathub.archive.search.snippets import snippet
from sathub.archive.store import search
from sathub.web import settings_of


def get_search(call: Call) -> dict:
    asked = read_request(call.request.query_params)
    spending.spend(call.request, spending.SEARCH)
    with call.connect() as conn:
        settings = settings_of(call.request)
        found, _ = find(conn, asked, settings.search_count_limit, settings.search_timeout_ms)
        children = search.children(conn, [row.id for row in found.rows])
    results = objects.emails(found.rows, children, call.links)
    for result, row, score in zip(results, found.rows, found.scores, strict=True):
        result["score"] = score
        result["snippet"] = snippet(asked.query.tree, row.subject, row.content)
    base = call.links.without_format(call.links.api + "search/" + call.links.suffix)
    answer = paging.envelope(
        found.count, results, asked.page, base, call.request.query_params.multi_items(), more=found.more
    )
    # HyperKitty's envelope, and whether its count is exact: past the count limit, more match.
    return {"count": answer.pop("count"), "count_exact": found.count_exact, **answer}


SEARCH = View("Search", "Search the archived emails", get_search, Kind.SEARCH)
