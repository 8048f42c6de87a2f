"""Who may remove mail through the web (docs/archive-removal.md, "Who may"): sathub's
administrators (the accounts of `sathub admin add-user`, logged in on /admin/ with the admin
pages' session: admin_sessions.py) every list's; and, where Mailman's REST API is configured, a
list's owners and moderators their own list's only.

An owner or moderator logs in with a sathub admin account named by the address Mailman lists
them under. Where Mailman is configured, an account whose name is an address is such an account:
it may remove the mail of a list only while Mailman names that address among the list's owners or
moderators, and of no list while Mailman cannot be asked (HyperKitty's `is_owner` answers False
then too). A list deleted or hidden whole, and the audit log, are the administrators' alone, as
HyperKitty lets only staff delete a list."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from sathub.admin_sessions import ARCHIVE_COOKIE, COOKIE, Session, current_session
from sathub.archive.mailman.list_settings import MailmanUnavailable, configured
from sathub.archive.mailman.rosters import list_staff
from sathub.web import settings_of


@dataclass(frozen=True)
class Remover:
    """Someone allowed to remove mail here: their name (the audit log's actor) and session (the
    CSRF tokens' binding); `administrator`: every list's, the whole list's and the audit log's."""

    name: str
    session: Session
    administrator: bool


def has_session(request: Request) -> bool:
    """Whether the request carries an admin session cookie at all: a page asked by anyone else is
    the public page, with no lookup."""
    return COOKIE in request.cookies or ARCHIVE_COOKIE in request.cookies


async def remover(request: Request, address: str | None = None) -> Remover | None:
    """Who asks, when they may remove the mail of the list at `address` (None: any list, which only
    an administrator may); None for everyone else."""
    if not has_session(request):
        return None
    session = await current_session(request)
    if session is None:
        return None
    settings = settings_of(request)
    if "@" not in session.username or not configured(settings):
        return Remover(session.username, session, administrator=True)
    if address is None:
        return None
    try:
        staff = await run_in_threadpool(list_staff, settings, address)
    except MailmanUnavailable:
        return None
    return Remover(session.username, session, administrator=False) if session.username.lower() in staff else None
