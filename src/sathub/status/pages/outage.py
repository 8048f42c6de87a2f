"""What the pages answer while the database is away: 503 with a small page, or, for the status
page, the last one rendered (with the 503), which is what a visitor wants during an outage.
The JSON endpoints answer their own 503 envelope (api/responses.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from sathub.server.request_log import note_failure
from sathub.status.cache import answers_of
from sathub.status.pages.status_page import STATUS_PAGE_PATHS, status_page_key
from sathub.status.templating import CachedPage, render
from sathub.web import settings_of, site_url

RETRY = {"Retry-After": "5", "Cache-Control": "no-store"}


async def database_unavailable(request: Request, exc: Exception) -> Response:
    note_failure(request, exc)
    path = request.url.path.removeprefix(settings_of(request).prefix)
    if path in STATUS_PAGE_PATHS and request.method in ("GET", "HEAD"):
        last = answers_of(request).last(status_page_key(site_url(request)))
        if isinstance(last, CachedPage):
            return last.response(request, RETRY, status=503)
    return render(request, "unavailable.html", status=503, headers=RETRY, site=site_url(request))
