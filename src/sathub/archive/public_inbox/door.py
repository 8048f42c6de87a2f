"""The one door of public-inbox's forms: every path under PREFIX (site.py) is read here from the
path as the client sent it (paths.py), answered in a worker thread on one connection
(answers.py; a search, `?q=`, search.py), and its errors are public-inbox's: `text/plain` `Not Found`
and the like, a refused query or budget its reason. The GET forms carry caching.py's validators
(a current copy is a 304 after one small read, before anything is searched or rendered); POST
is for a search (lei's `POST <inbox>/?q=…&x=m`, its mbox; the page without `x=m`), and with an
empty `q` for the whole inbox's mbox, as public-inbox's WWW takes it; any other POST is its 404."""

from __future__ import annotations

import re
from dataclasses import replace

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.budgets.spending import SEARCH, spend
from sathub.archive.caching import Kind, Validators, of_archive, of_list
from sathub.archive.edge import ArchiveEndpoint, ArchiveError
from sathub.archive.public_inbox.answers import answer, thread_mbox
from sathub.archive.public_inbox.mboxes import send, whole_inbox
from sathub.archive.public_inbox.paths import Target, read_path
from sathub.archive.public_inbox.search import read_search, results_mbox, results_page
from sathub.archive.public_inbox.site import PREFIX, Inboxes
from sathub.archive.store.public_inbox import public_lists
from sathub.archive.web_door import ERROR_TITLES
from sathub.config import parse_inbox_renames
from sathub.db.engines import Connection
from sathub.web import in_thread, settings_of, site_url

# public-inbox's texts of its error answers (its 404 is `Not Found`, nine bytes, text/plain).
# The GET forms with validators, and their kind (a message's own: long-lived; the rest listings).
_KINDS = {
    ("topics", ""): Kind.LISTING,
    ("new_atom", ""): Kind.LISTING,
    ("message", ""): Kind.MESSAGE,
    ("message", "raw"): Kind.MESSAGE,
    **{("message", form): Kind.LISTING for form in ("t.mbox.gz", "t.atom", "T/", "t/")},
}
_TEXTS = {404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"}
# The body of public-inbox's search form when its `full threads` button is pressed (`x=full+threads`):
# SearchView::mbox_results reads its first 3 bytes, and `x=` with anything but 0 is t=1.
_FULL_THREADS = re.compile(rb"x=[^0]")


def _rest(request: Request, site_prefix: str) -> str:
    """The path after PREFIX, escapes as sent (the scope's `raw_path`; its `path` has them undone)."""
    raw = request.scope.get("raw_path")
    path = raw.decode("latin-1") if raw else request.scope["path"]
    return path.removeprefix(site_prefix).removeprefix(PREFIX)


def _offset(request: Request) -> int:
    text = request.query_params.get("o", "0")
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else 0


async def _full_threads(request: Request) -> bool:
    head = b""
    async for chunk in request.stream():
        head += chunk
        if len(head) >= 3:
            break
    return _FULL_THREADS.match(head[:3]) is not None


def _inboxes(conn: Connection, base: str, renames: dict[str, str]) -> Inboxes:
    return Inboxes.of(base, public_lists(conn), renames)


def _fresh(conn: Connection, request: Request, inboxes: Inboxes, target: Target, searched: bool) -> Validators | None:
    """The validators of a GET form that has them (caching.py: an inbox's the list's, `all`'s and
    a search's the archive's); None for the others and for what is not there."""
    kind = _KINDS.get((target.kind, target.form))
    inbox = target.inbox or ""
    if kind is None or inboxes.list_ids(inbox) is None:
        return None
    address = inboxes.names.get(inbox)
    if searched:
        return of_archive(conn, request, Kind.SEARCH, within=address)
    return of_list(conn, request, kind, address) if address else of_archive(conn, request, kind)


def _prepared(conn: Connection, request: Request, base: str, renames: dict[str, str], target: Target, searched: bool):
    inboxes = _inboxes(conn, base, renames)
    return inboxes, (_fresh(conn, request, inboxes, target, searched) if request.method != "POST" else None)


def _answer(conn: Connection, inboxes: Inboxes, target: Target, offset: int, request: Request, asked) -> Response:
    if asked is not None:
        return results_page(conn, request, inboxes, target.inbox or "", asked)
    return answer(conn, inboxes, target, offset)


def _validated(response: Response, fresh: Validators | None) -> Response:
    if fresh is not None and response.status_code == 200:
        response.headers.update(fresh.headers)
    return response


class PublicInboxDoor(ArchiveEndpoint):
    methods = ("GET", "HEAD", "POST")

    async def respond(self, request: Request) -> Response:
        settings = settings_of(request)
        base = site_url(request) + PREFIX
        renames = parse_inbox_renames(settings.public_inbox_names)
        target = read_path(_rest(request, settings.prefix))
        params = request.query_params
        asked = read_search(params) if target.kind == "topics" else None
        posted = request.method == "POST"
        if posted:
            if target.kind != "topics" or "q" not in params:
                raise ArchiveError(404)  # public-inbox's answer to a POST without a search (WWW::mbox_results)
            if asked is not None and await _full_threads(request):
                asked = replace(asked, threads=True)
        inboxes, fresh = await in_thread(request, _prepared, request, base, renames, target, asked is not None)
        if fresh is not None and fresh.current(request):
            return fresh.not_modified()
        if target.kind == "message" and target.form == "t.mbox.gz":
            name, mbox = await in_thread(request, thread_mbox, inboxes, target)
            return _validated(await send(request, name, mbox), fresh)
        list_ids = inboxes.list_ids(target.inbox or "")
        if posted or asked is not None:
            if list_ids is None:
                raise ArchiveError(404)
            if posted and params.get("x") == "m":  # `q` without a word: the whole inbox (Mbox::mbox_all_ids)
                if asked is None:
                    return await send(request, "all", whole_inbox, list_ids)
                return await results_mbox(request, list_ids, asked)
            if asked is None:
                raise ArchiveError(404)  # public-inbox's page of an empty search finds nothing
            await run_in_threadpool(spend, request, SEARCH)
        response = await in_thread(request, _answer, inboxes, target, _offset(request), request, asked)
        return _validated(response, fresh)

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        said = error.detail if error.status in (400, 429) else None
        text = said or _TEXTS.get(error.status) or ERROR_TITLES.get(error.status, "Error")
        headers = {"Content-Type": "text/plain"} | ({"Allow": self.allow} if error.status == 405 else {})
        return Response(text, error.status, headers)
