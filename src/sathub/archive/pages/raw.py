"""`<web prefix>list/<address>/message/<hash>/raw`: a message's source, byte for byte as the archive
received it (from an import, or from Mailman's archive call), without the mbox `From ` line.

As `text/plain; charset=<c>` to be read in a browser, where <c> is the charset the bytes read
in: `us-ascii` when they are all ASCII, else `utf-8` when they are valid UTF-8, else the first
charset the message declares that Python knows, else `iso-8859-1` (every byte is a character of
it, so a reader sees every byte). With `?download=1`: `message/rfc822` and a file `<hash>.eml`,
for a mail program. Mail archived before sources were kept is rebuilt from the stored fields
(mail/rebuild.py). The bytes are the sender's: the download headers of attachments.py (a
sandbox CSP and nosniff) keep a browser from running them. Errors are the archive's HTML pages;
a private list's messages are 403. The source carries caching.py's validators of a message (a
304 before the source is read)."""

from __future__ import annotations

import codecs
import re

from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.access import HASH, visible_list_page
from sathub.archive.caching import Kind, Validators, of_list
from sathub.archive.edge import ArchiveError
from sathub.archive.mail.kept_source import source_of
from sathub.archive.pages.attachments import UNTRUSTED
from sathub.archive.store import attachments, email_sources
from sathub.archive.web_door import WebDoor
from sathub.db.engines import Connection
from sathub.web import in_thread

_DECLARED = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_.:+-]+)""", re.IGNORECASE)


def text_charset(data: bytes) -> str:
    """The charset a `text/plain` answer of these bytes names (the module's docstring says which)."""
    if data.isascii():
        return "us-ascii"
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    for declared in _DECLARED.finditer(data):
        name = declared.group(1).decode("ascii").lower()
        try:
            codecs.lookup(name)
        except LookupError:
            continue
        return name
    return "iso-8859-1"


def _source(
    conn: Connection, request: Request, address: str, message_id_hash: str
) -> tuple[Validators | None, bytes | None]:
    """The source, after its validators (no source when the client's copy is current)."""
    fresh = of_list(conn, request, Kind.MESSAGE, address)
    if fresh is not None and fresh.current(request):
        return fresh, None
    mailing_list = visible_list_page(conn, address)
    row = None
    if HASH.fullmatch(message_id_hash):
        row = email_sources.email_source(conn, mailing_list.id, message_id_hash)
    if row is None:
        raise ArchiveError(404, f"There is no such message in {mailing_list.name}.")
    rebuilt = [] if row.data is not None else attachments.attachments_to_rebuild(conn, [row.id])[row.id]
    return fresh, source_of(row, rebuilt)


class RawSource(WebDoor):
    async def respond(self, request: Request) -> Response:
        params = request.path_params
        fresh, data = await in_thread(request, _source, request, params["address"], params["message_id_hash"])
        if data is None:
            assert fresh is not None
            return fresh.not_modified()
        if request.query_params.get("download") == "1":
            headers = {
                "Content-Type": "message/rfc822",
                "Content-Disposition": f'attachment; filename="{params["message_id_hash"]}.eml"',
            }
        else:
            headers = {"Content-Type": f"text/plain; charset={text_charset(data)}"}
        return Response(data, 200, {**headers, **UNTRUSTED, **(fresh.headers if fresh else {})})
