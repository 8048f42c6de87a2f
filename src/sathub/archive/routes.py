"""The URL table of interface B: every view under each of the three API prefixes, the
slash-less twins that redirect, Mailman's archiver endpoints, the JSON 404 catch-all, and beside
each API prefix the web pages (list, thread, message), the attachment downloads and the delete
pages (archive/removal/pages.py)."""

from __future__ import annotations

from starlette.routing import Route

from sathub.archive.api.endpoint import AddSlash, Endpoint, NotFound
from sathub.archive.api.views import VIEWS
from sathub.archive.crawlers.sitemap_door import sitemap_routes
from sathub.archive.export.endpoint import Export, SearchExport
from sathub.archive.feeds.endpoint import feeds
from sathub.archive.links import API_PREFIXES, WEB_PREFIXES
from sathub.archive.mailman.endpoints import ARCHIVER_PATHS
from sathub.archive.pages.attachments import Download
from sathub.archive.pages.browse import pages
from sathub.archive.pages.pipermail import pipermail_routes
from sathub.archive.pages.raw import RawSource
from sathub.archive.public_inbox.door import PublicInboxDoor
from sathub.archive.public_inbox.site import PREFIX as PUBLIC_INBOX_PREFIX
from sathub.archive.removal.pages import removal_routes
from sathub.archive.search.api import SEARCH
from sathub.archive.search.page import SearchPage


def routes() -> list[Route]:
    """Every view under each prefix, each with its slash-less twin (301), then a JSON 404 catch-all."""
    add_slash, not_found = AddSlash(), NotFound()
    result: list[Route] = []
    for prefix, web in zip(API_PREFIXES, WEB_PREFIXES, strict=True):
        for pattern, view in {**VIEWS, "search/": SEARCH}.items():
            result.append(Route(prefix + pattern, Endpoint(view, prefix)))
            result.append(Route((prefix + pattern)[:-1], add_slash))
        for path, endpoint in ARCHIVER_PATHS.items():
            result.append(Route(prefix + path, endpoint(web)))
        result.append(Route(prefix + "{rest:path}", not_found))
        for pattern, page in {**pages(web), **feeds(web)}.items():
            result.append(Route(web + pattern, page))
            if pattern.endswith("/") or not pattern:  # `list/<address>/latest` has no slash in HyperKitty
                result.append(Route((web + pattern)[:-1], add_slash))
        result.append(
            Route(web + "list/{address}/message/{message_id_hash}/attachment/{counter}/{filename}", Download())
        )
        result.append(Route(web + "list/{address}/message/{message_id_hash}/raw", RawSource(web)))
        result.append(Route(web + "list/{address}/export/{name}.mbox.gz", Export(web)))
        for pattern, door in pipermail_routes(web).items():
            result.append(Route(web + pattern, door))
            if pattern.endswith("/"):
                result.append(Route((web + pattern)[:-1], door))
        result.append(Route(web + "search", SearchPage(web)))
        result.extend(Route(web + pattern, door) for pattern, door in removal_routes(web).items())
        result.append(Route(web + "search/export/{name}.mbox.gz", SearchExport(web)))
    # public-inbox's forms (docs/public-inbox.md): one door reads every path under its prefix.
    result.append(Route(PUBLIC_INBOX_PREFIX + "{rest:path}", PublicInboxDoor()))
    return [*result, *sitemap_routes()]
