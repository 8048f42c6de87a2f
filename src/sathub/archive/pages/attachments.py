"""Attachment downloads: the web-UI path `…/list/<address>/message/<hash>/attachment/<counter>/<name>`.

The bytes are served as stored, typed by the part's content type; the declared charset goes into
Content-Type (HyperKitty sends it as Content-Encoding, which HTTP clients take for a compression)."""

from __future__ import annotations

from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from sathub import db
from sathub.archive.api.render import NOT_FOUND, UNAVAILABLE, ApiError, bodiless, json_error
from sathub.archive.api.views import HASH, LIST_ADDRESS, visible_list
from sathub.archive.store import reads
from sathub.db.engines import DatabaseUnavailable
from sathub.web import engine_of

ALLOW = "GET, HEAD"
# attachments.counter is a 32-bit integer; a larger number is no attachment (and no database
# would take it as a parameter).
MAX_COUNTER = 2**31 - 1


class Download:
    """ASGI app for the download path; answers JSON errors like the API."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await run_in_threadpool(self.respond, Request(scope, receive))
        await response(scope, receive, send)

    def respond(self, request: Request) -> Response:
        head = request.method == "HEAD"

        def error(status: int, detail: str = NOT_FOUND) -> Response:
            return json_error(status, detail, head, {"Allow": ALLOW})

        if request.method not in ("GET", "HEAD"):
            return error(405, f'Method "{request.method}" not allowed.')
        params = request.path_params
        counter = params["counter"]
        if (not (counter.isascii() and counter.isdigit() and len(counter) <= 10 and int(counter) <= MAX_COUNTER)
                or not LIST_ADDRESS.fullmatch(params["address"]) or not HASH.fullmatch(params["message_id_hash"])):
            return error(404)
        try:
            with db.connect(engine_of(request)) as conn:
                mailing_list = visible_list(conn, params["address"])
                attachment = reads.find_attachment(conn, mailing_list.id, params["message_id_hash"], int(counter))
        except ApiError as refused:
            return error(refused.status, refused.detail)
        except DatabaseUnavailable:
            return error(503, UNAVAILABLE)
        if attachment is None or attachment.name != params["filename"]:
            return error(404)
        content_type = attachment.content_type
        if attachment.encoding:
            content_type += f"; charset={attachment.encoding}"
        return bodiless(attachment.content, 200, {
            "Content-Type": content_type,
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(attachment.name, safe='')}",
        }, head)
