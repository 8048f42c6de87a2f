"""Attachment downloads: the web-UI path `…/list/<address>/message/<hash>/attachment/<counter>/<name>`.

The bytes are served as stored, typed by the part's content type; the declared charset goes into
Content-Type (HyperKitty sends it as Content-Encoding, which HTTP clients take for a compression).
A sender chose those bytes and that type: `Content-Security-Policy: sandbox` makes a browser that
opens one anyway (an HTML part, an SVG image) treat it as a page of no origin, without script,
forms or the site's cookies, and `nosniff` keeps it from reading the bytes as another type."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.access import HASH, LIST_ADDRESS, visible_list
from sathub.archive.edge import NOSNIFF, ArchiveEndpoint, ArchiveError, json_error
from sathub.archive.store import attachments
from sathub.db.dialect import MAX_INTEGER
from sathub.web import in_thread

# What every download carries besides its type and name (the module's docstring says why).
UNTRUSTED = {"Content-Security-Policy": "sandbox", **NOSNIFF}


class Download(ArchiveEndpoint):
    """The download path's door; its errors are JSON, like the API's."""

    async def respond(self, request: Request) -> Response:
        params = request.path_params
        counter = params["counter"]
        if (
            not (
                counter.isascii() and counter.isdigit() and len(counter) <= 10 and int(counter) <= MAX_INTEGER
            )  # attachments.counter
            or not LIST_ADDRESS.fullmatch(params["address"])
            or not HASH.fullmatch(params["message_id_hash"])
        ):
            raise ArchiveError(404)
        attachment = await in_thread(request, _attachment, params["address"], params["message_id_hash"], int(counter))
        if attachment is None or attachment.name != params["filename"]:
            raise ArchiveError(404)
        content_type = attachment.content_type
        if attachment.encoding:
            content_type += f"; charset={attachment.encoding}"
        return Response(
            attachment.content,
            200,
            {
                "Content-Type": content_type,
                "Content-Disposition": f"attachment; filename*=UTF-8''{quote(attachment.name, safe='')}",
                **UNTRUSTED,
            },
        )

    def render_error(self, request: Request, error: ArchiveError) -> Response:
        return json_error(error.status, error.detail, self.allow)


def _attachment(conn, address: str, message_id_hash: str, counter: int):
    mailing_list = visible_list(conn, address)
    return attachments.find_attachment(conn, mailing_list.id, message_id_hash, counter)
