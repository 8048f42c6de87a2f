"""Opt-in limit/offset pagination, as stock HyperKitty (Django REST framework's LimitOffsetPagination).

Without a usable `limit` a list endpoint answers a bare array of everything; with one, the
envelope `{"count", "next", "previous", "results"}` whose links keep every other query parameter."""

from __future__ import annotations

from collections.abc import Mapping

from sathub.archive.edge import whole_number
from sathub.archive.links import with_query
from sathub.archive.store.listing import Page


def requested_page(query: Mapping[str, str]) -> Page | None:
    """The page asked for by `limit` (≥ 1) and `offset` (< 0 or not a number: 0); None: no envelope.

    `query` maps each parameter to its last value (Django's QueryDict lookup). Numbers of any size are
    taken as DRF takes them (stock HyperKitty sets no `max_limit`): a limit beyond the count answers
    every remaining item, an offset past the end an empty page whose `previous` is offset − limit. The
    store binds them within what SQL holds (listing.Page.bound) without changing the rows; the links
    keep the numbers as asked. More digits than int() reads (4,300) are not a number, as for DRF."""
    limit = whole_number(query.get("limit"))
    if limit is None or limit <= 0:
        return None
    offset = whole_number(query.get("offset"))
    return Page(limit, offset if offset is not None and offset > 0 else 0)


def envelope(
    count: int, results: list, page: Page, base: str, params: list[tuple[str, str]], more: bool | None = None
) -> dict:
    """The envelope of `results` (items offset … offset+limit−1 of `count`).

    `base` is the endpoint's absolute URL without query; `params` the request's query items; `more`
    whether items follow this page, when `count` cannot tell (a search's count stops at its limit)."""
    others = [(k, v) for k, v in params if k not in ("limit", "offset")]
    limit = [("limit", str(page.limit))]
    nxt = prev = None
    if page.offset + page.limit < count if more is None else more:
        nxt = with_query(base, others + limit + [("offset", str(page.offset + page.limit))])
    if page.offset > 0:
        back = page.offset - page.limit
        prev = with_query(base, others + limit + ([("offset", str(back))] if back > 0 else []))
    return {"count": count, "next": nxt, "previous": prev, "results": results}
