"""public-inbox's mbox.gz answers, streamed as the export door streams (export/sending.py): a
thread's (`<mid>/t.mbox.gz`), a search's matches (`POST ?q=…&x=m`) and a whole inbox's (`POST
?q=&x=m`, public-inbox's Mbox::mbox_all_ids). Each spends one export of the client's budget
(SATHUB_EXPORT_BUDGET, 429 beyond) and holds an export slot while it is sent (SATHUB_MAX_EXPORTS,
503 with Retry-After when none is free), as the export door's list, thread and search exports do;
its messages are read 500 a statement and each chunk is compressed and sent before the next is
read, so memory holds one chunk (and the ids of a search's matches, 8 bytes each)."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from starlette.concurrency import iterate_in_threadpool, run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from sathub.archive.budgets.spending import EXPORT, spend
from sathub.archive.edge import ArchiveError
from sathub.archive.export.endpoint import RETRY_AFTER
from sathub.archive.export.sending import ExportAnswer
from sathub.archive.export.slots import SLOTS
from sathub.archive.mail.kept_source import source_of
from sathub.archive.public_inbox.mboxrd import gzip_mbox
from sathub.archive.store import public_inbox
from sathub.archive.store.email_sources import export_chunks
from sathub.db.engines import Connection, connect
from sathub.web import client_address, engine_of, in_thread, settings_of

NO_RESULTS = "No results found\n"  # public-inbox's 404 of an mbox that matches nothing


@dataclass(frozen=True)
class Mbox:
    """What an mbox holds: the emails `ids` in that order, or every email of the lists `list_ids`
    (list by list, each in arrival order: what public-inbox's extindex numbered when it indexed
    the inboxes one after the other)."""

    ids: array | None = None
    list_ids: tuple[int, ...] = ()


def gzip_headers(name: str) -> dict[str, str]:
    """public-inbox's headers of an mbox.gz named `name` (already made a file name)."""
    return {"Content-Type": "application/gzip", "Content-Disposition": f"inline; filename={name}.mbox.gz"}


async def send(request: Request, name: str, find: Mbox | Callable[..., Mbox | None], *args) -> Response:
    """The mbox.gz `find`, or what `find(conn, *args)` says (None: nothing, a 404 `No results
    found`), after one export of the budget is spent and while an export slot is held; HEAD: the
    headers alone."""
    headers = gzip_headers(name)
    if request.method == "HEAD":  # the headers of GET; the length is not known before the end
        response = Response(None, 200, headers)
        del response.headers["content-length"]
        return response
    await run_in_threadpool(spend, request, EXPORT)
    settings, client = settings_of(request), client_address(request)
    refusal = SLOTS.take(client, settings.max_exports)
    if refusal is not None:
        raise ArchiveError(503, refusal, headers={"Retry-After": RETRY_AFTER})
    release = partial(SLOTS.give_back, client)
    try:
        mbox = find if isinstance(find, Mbox) else await in_thread(request, find, *args)
    except BaseException:
        release()
        raise
    if mbox is None or (mbox.ids is not None and not mbox.ids):
        release()
        return Response(NO_RESULTS, 404, {"Content-Type": "text/plain"})
    body = iterate_in_threadpool(gzip_mbox(_sources(partial(connect, engine_of(request)), mbox)))
    return ExportAnswer(body, headers, release, settings.export_write_timeout)


def _sources(engine_connect, mbox: Mbox) -> Iterator[list[bytes]]:
    """The sources of the mbox's messages, a chunk at a time, in its order."""
    if mbox.ids is not None:
        yield from _in_order(export_chunks(engine_connect, None, ids=mbox.ids), mbox.ids)
    for list_id in mbox.list_ids:
        for rows, rebuilt in export_chunks(engine_connect, list_id):
            yield [source_of(row, rebuilt.get(row.id, ())) for row in rows]


def _in_order(chunks, ids: array) -> Iterator[list[bytes]]:
    """The sources of export_chunks' chunks (each a slice of `ids`, read ascending) in `ids`' order."""
    ascending = all(ids[index] < ids[index + 1] for index in range(len(ids) - 1))
    place = {} if ascending else {email_id: index for index, email_id in enumerate(ids)}
    for rows, rebuilt in chunks:
        ordered = rows if ascending else sorted(rows, key=lambda row: place[row.id])
        yield [source_of(row, rebuilt.get(row.id, ())) for row in ordered]


def whole_inbox(conn: Connection, list_ids: list[int]) -> Mbox | None:
    """Every email of the inbox's lists, oldest list first (None when they hold none)."""
    return Mbox(list_ids=tuple(sorted(list_ids))) if public_inbox.holds_mail(conn, list_ids) else None
