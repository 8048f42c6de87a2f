"""The web doors of removal, at HyperKitty's delete paths under each web prefix:

    <prefix>list/<address>/message/<hash>/delete    one message
    <prefix>list/<address>/thread/<thread_id>/delete   a thread
    <prefix>list/<address>/delete                   a whole list (administrators only)
    <prefix>removals/                               the audit log, newest first (administrators only)

GET is a confirmation page (what would go) with a form: a reason (required) and the choice of
hide (reversible) or delete (irreversible); POST runs operations.run and redirects as HyperKitty
does: to the thread while it has mail left, else to the list; after a list, to the archive's
index. Only those permission.py allows get further than a 403 with a login link, the same for a
path that names nothing as for one that names mail, before anything is read; a POST from a
browser must carry the session's CSRF token (the admin pages' rule, sathub/csrf.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from sathub import csrf
from sathub.archive.access import HASH, LIST_ADDRESS
from sathub.archive.edge import PRIVATE_ANSWER, ArchiveError
from sathub.archive.removal import operations
from sathub.archive.removal.permission import Remover, remover
from sathub.archive.store import emails, lists, threads
from sathub.archive.web_door import HEADERS, WebDoor, render_page
from sathub.db.engines import Connection
from sathub.web import BodyTooLarge, engine_of, form_fields, in_thread, site_url

NOT_ALLOWED = (
    "Removing mail is for the archive's administrators, and for a list's owners and moderators on "
    "their own list. Log in with your administrator account, then come back to this page."
)
NOT_FOUND = "There is nothing to remove here."
AUDIT_LOG_ROWS = 500
# Never kept by any cache: a page made for one logged-in person (never framed: HEADERS say so).
PERSONAL = {**HEADERS, "Cache-Control": "private, no-store"}
CHOICES = (operations.HIDE, operations.DELETE)


@dataclass(frozen=True)
class Target:
    """What a delete path names: the scope, and what the confirmation page says of it."""

    scope: operations.Scope
    what: str  # "message", "thread" or "list"
    summary: dict[str, Any]


class RemovalDoor(WebDoor):
    """One delete path under one web prefix: `what` is "message", "thread" or "list"."""

    methods = ("GET", "HEAD", "POST")

    def __init__(self, web_prefix: str, what: str) -> None:
        super().__init__(web_prefix)
        self.what = what

    async def respond(self, request: Request) -> Response:
        address = request.path_params["address"]
        who = await remover(request, address)
        if who is None or (self.what == "list" and not who.administrator):
            return forbidden(request, self)
        fields: dict = {}
        if request.method == "POST":
            try:
                fields = await form_fields(request)
            except BodyTooLarge:
                raise ArchiveError(400, "The request is too large.") from None
            if not token_ok(request, who, fields):
                return forbidden(request, self)
        target = await in_thread(request, self._target, address, request.path_params.get("key", ""))
        if target is None:
            raise ArchiveError(404, NOT_FOUND)
        if request.method != "POST":
            return self._confirmation(request, who, target)
        action, reason = fields.get("action", ""), fields.get("reason", "").strip()
        if action not in CHOICES or not reason:
            return self._confirmation(request, who, target, "Give a reason, and choose hide or delete.", 400)
        engine = engine_of(request)
        try:
            await run_in_threadpool(operations.run, engine, action, target.scope, reason, who.name, confirmed=True)
        except operations.RemovalRefused as refused:
            return self._confirmation(request, who, target, str(refused), 400)
        return RedirectResponse(await self._after(request, target), status_code=302, headers=PRIVATE_ANSWER)

    def _target(self, conn: Connection, address: str, key: str) -> Target | None:
        """What the path names, when it names something that is there (a list hidden whole is
        not: `sathub archive unhide` brings it back)."""
        mailing_list = lists.find_list(conn, address) if LIST_ADDRESS.fullmatch(address) else None
        if mailing_list is None or mailing_list.hidden_by is not None:
            return None
        name = mailing_list.name
        if self.what == "list":
            counted = {"messages": emails.count_list_emails(conn, mailing_list.id)}
            return Target(operations.scope_of(list_name=name), "list", counted)
        if not HASH.fullmatch(key):
            return None
        if self.what == "thread":
            thread = threads.find_thread(conn, mailing_list.id, key)
            if thread is None:
                return None
            shown = {"subject": thread.subject, "messages": thread.emails_count}
            return Target(operations.scope_of(thread=key, list_name=name), "thread", shown)
        email = emails.find_email(conn, mailing_list, key)
        if email is None:
            return None
        return Target(operations.scope_of(message_id_hash_=key, list_name=name), "message", {"email": email})

    def _confirmation(
        self, request: Request, who: Remover, target: Target, problem: str = "", status: int = 200
    ) -> Response:
        body = render_page(
            "removal_confirm.html",
            links=self.links(request),
            name=target.scope.list_name,
            target=target,
            key=request.path_params.get("key", ""),
            csrf_field=csrf.TOKEN_FIELD,
            csrf_token=csrf.make_token(csrf.secret_of(request), who.session.nonce),
            problem=problem,
        )
        return Response(body, status_code=status, headers=PERSONAL)

    async def _after(self, request: Request, target: Target) -> str:
        """Where HyperKitty goes after a removal: the thread while it is there, else the list;
        the index after a whole list."""
        links, name = self.links(request), target.scope.list_name or ""
        if target.what == "list":
            return links.index()
        thread_id = target.scope.thread or target.summary["email"].thread_hash
        if target.what == "message" and await in_thread(request, _thread_left, name, thread_id):
            return links.thread(name, thread_id)
        return links.list(name)


def _thread_left(conn: Connection, address: str, thread_id: str) -> bool:
    mailing_list = lists.find_list(conn, address)
    return mailing_list is not None and threads.find_thread(conn, mailing_list.id, thread_id) is not None


class AuditLog(WebDoor):
    """The audit log of removals, newest first: the administrators' page."""

    async def respond(self, request: Request) -> Response:
        who = await remover(request)
        if who is None or not who.administrator:
            return forbidden(request, self)
        rows = await run_in_threadpool(operations.audit_log, engine_of(request), None, AUDIT_LOG_ROWS)
        body = render_page("removal_log.html", links=self.links(request), rows=rows, limit=AUDIT_LOG_ROWS)
        return Response(body, headers=PERSONAL)


def token_ok(request: Request, who: Remover, fields: dict) -> bool:
    """The admin pages' rule: a request that a browser sent carries the session's token."""
    if not csrf.has_browser_signal(request.headers):
        return True
    return csrf.token_is_valid(csrf.secret_of(request), who.session.nonce, fields.get(csrf.TOKEN_FIELD, ""))


def forbidden(request: Request, door: WebDoor) -> Response:
    """The one answer to everyone who may not: the same whatever the path names."""
    body = render_page("removal_forbidden.html", links=door.links(request), text=NOT_ALLOWED, login=login_url(request))
    return Response(body, status_code=403, headers={**PERSONAL, **PRIVATE_ANSWER})


def login_url(request: Request) -> str:
    return f"{site_url(request)}/admin/index.php"


def removal_routes(web_prefix: str) -> dict[str, WebDoor]:
    """The doors under one web prefix, by path pattern after it (each with and without the
    trailing slash HyperKitty's paths end in)."""
    doors: dict[str, WebDoor] = {}
    for pattern, door in (
        ("list/{address}/message/{key}/delete", RemovalDoor(web_prefix, "message")),
        ("list/{address}/thread/{key}/delete", RemovalDoor(web_prefix, "thread")),
        ("list/{address}/delete", RemovalDoor(web_prefix, "list")),
    ):
        doors[pattern] = doors[pattern + "/"] = door
    doors["removals/"] = AuditLog(web_prefix)
    return doors
