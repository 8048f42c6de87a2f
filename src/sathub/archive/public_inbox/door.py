"""The one door of public-inbox's forms: every path under PREFIX (site.py) is read here from the
path as the client sent it (paths.py), answered in a worker thread on one connection
(answers.py), and its errors are public-inbox's: `text/plain` `Not Found` and the like."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.edge import ArchiveEndpoint, ArchiveError
from sathub.archive.public_inbox.answers import answer
from sathub.archive.public_inbox.paths import read_path
from sathub.archive.public_inbox.site import PREFIX, Inboxes
from sathub.archive.store.public_inbox import public_lists
from sathub.archive.web_door import ERROR_TITLES
from sathub.config import parse_inbox_renames
from sathub.db.engines import Connection
from sathub.web import in_thread, settings_of, site_url

# public-inbox's texts of its error answers (its 404 is `Not Found`, nine bytes, text/plain).
_TEXTS = {404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"}


def _rest(request: Request, site_prefix: str) -> str:
    """The path after PREFIX, escapes as sent (the scope's `raw_path`; its `path` has them undone)."""
    raw = request.scope.get("raw_path")
    path = raw.decode("latin-1") if raw else request.scope["path"]
    return path.removeprefix(site_prefix).removeprefix(PREFIX)


def _offset(request: Request) -> int:
    text = request.query_params.get("o", "0")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else 0


def _answer(conn: Connection, base: str, renames: dict[str, str], path: str, offset: int) -> Response:
    return answer(conn, Inboxes.of(base, public_lists(conn), renames), read_path(path), offset)


class PublicInboxDoor(ArchiveEndpoint):
    async def respond(self, request: Request) -> Response:
        settings = settings_of(request)
        base = site_url(request) + PREFIX
        renames = parse_inbox_renames(settings.public_inbox_names)
        path = _rest(request, settings.prefix)
        return await in_thread(request, _answer, base, renames, path, _offset(request))

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        text = _TEXTS.get(error.status) or ERROR_TITLES.get(error.status, "Error")
        headers = {"Content-Type": "text/plain"} | ({"Allow": self.allow} if error.status == 405 else {})
        return Response(text, error.status, headers)
