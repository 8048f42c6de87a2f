"""`/robots.txt`, at the host's root (RFC 9309: a crawler reads no other): the file of
SATHUB_ROBOTS_TXT when set, else the default below.

The default lets crawlers read every page of both interfaces, the raw sources, the feeds and the
attachments, and keeps them out of what costs the most or is no page: the searches (page, JSON,
feed) and the exports (a list's, a date range's, a thread's, a message's, a search's) under every
web prefix, the read API (the pages show the same mail, once), the pipermail links to exports,
the administration, the POST doors of interface A and its endless or unbounded reads (the stream,
/api/v2/reports). Exports sit inside each list's path (`list/<address>/export/`): a `*` rule
(RFC 9309) covers every list, and a rule per list covers them for the crawlers that read rules as
plain prefixes (Python's urllib.robotparser among them). Each list with mail names its sitemap
index (sitemap.py). Paths carry the deployment's prefix (`/status` of `SATHUB_BASE_URL`); behind a
host whose other paths are served elsewhere, the host's robots.txt takes these lines."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sathub.archive.crawlers.sitemap import index_url
from sathub.archive.edge import ArchiveEndpoint, ArchiveError
from sathub.archive.links import WEB_PREFIXES, quote_path
from sathub.archive.store.sitemap import crawlable_lists
from sathub.db.engines import Row
from sathub.web import in_thread, not_modified, settings_of, site_url

CONTENT_TYPE = "text/plain; charset=utf-8"
# Interface A's paths (status-api.md) that are no page to read: the administration, the forms
# and POST doors, the stream (it never ends), v2's walk of every report and its pass predictions
# (computed per place and time: no end of addresses).
STATUS_DISALLOWED = (
    *("/admin/", "/submit.php", "/api/v1/reports.php"),
    *("/api/v2/reports", "/api/v2/stream", "/api/v2/passes"),
)
# Under each web prefix: the read API, every search (`search`, `search/feed/atom/`,
# `search/export/…`), every list's exports, pipermail's month mbox (a redirect to an export).
ARCHIVE_DISALLOWED = ("api/", "search", "list/*/export/", "pipermail/*.txt.gz")


def default_robots(prefix: str, site: str, lists: Sequence[Row]) -> str:
    """The default robots.txt of a deployment under `prefix` ('' or `/status`) at `site` (its
    public URL), for `lists` (store/sitemap.py's crawlable_lists: name, has_mail)."""
    lines = ["# sathub's default (SATHUB_ROBOTS_TXT replaces it): docs/archive-crawlers.md", "User-agent: *"]
    lines += [f"Disallow: {prefix}{path}" for path in STATUS_DISALLOWED]
    for web in WEB_PREFIXES:
        lines += [f"Disallow: {prefix}{web}{path}" for path in ARCHIVE_DISALLOWED]
        lines += [f"Disallow: {prefix}{web}list/{quote_path(row.name)}/export/" for row in lists]
    lines.append("")
    lines += [f"Sitemap: {index_url(site + WEB_PREFIXES[0], row.name)}" for row in lists if row.has_mail]
    return "\n".join(lines) + "\n"


class RobotsTxt(ArchiveEndpoint):
    async def respond(self, request: Request) -> Response:
        path = settings_of(request).robots_txt
        if path:
            body = await run_in_threadpool(_read, path)
        else:
            lists = await in_thread(request, crawlable_lists)
            body = default_robots(settings_of(request).prefix, site_url(request), lists).encode()
        tag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        if not_modified(request, tag):
            return Response(status_code=304, headers={"ETag": tag})
        return Response(body, headers={"Content-Type": CONTENT_TYPE, "ETag": tag})

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        extra = {"Allow": self.allow} if error.status == 405 else {}
        return Response(error.detail + "\n", error.status, {"Content-Type": CONTENT_TYPE, **extra})


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:  # checked at start-up, gone or unreadable since: logged, the operator's to fix
        raise ArchiveError(503, "robots.txt is unavailable; try again later.") from exc


def robots_route() -> Route:
    return Route("/robots.txt", RobotsTxt())
