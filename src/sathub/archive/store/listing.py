"""What every listing of the read API shares: the LIMIT/OFFSET window a request asks for (Page)
and statements built once in two forms, whole and one page (Listing)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row

from sathub.db.dialect import MAX_INTEGER

COUNT = sa.func.count()


def param(name: str, type_=None) -> sa.BindParameter:
    return sa.bindparam(name, type_=type_)


_LIMIT, _OFFSET = param("limit", sa.Integer), param("offset", sa.Integer)
# LIMIT and OFFSET bind as 32-bit integers on PostgreSQL (`::INTEGER`) and 64-bit ones on SQLite, but
# `?limit=` and `?offset=` may be any integer. No listing has more rows than this (its rows' ids are
# 32-bit on PostgreSQL; 2^31 emails would be terabytes on SQLite), so binding a window within it
# changes no answer: an offset at the bound is past the end of any listing (an empty page), a limit at
# the bound takes all the rest.
MAX_ROWS = MAX_INTEGER


@dataclass(frozen=True)
class Page:
    """One LIMIT/OFFSET window of a listing (api/paging.py reads it from the query): `limit` ≥ 1 and
    `offset` ≥ 0 of any size (the envelope's links keep them as asked); what SQL sees is bounded."""

    limit: int
    offset: int

    def bound(self) -> dict[str, int]:
        """The window's LIMIT and OFFSET parameters, at most MAX_ROWS each."""
        return {"limit": min(self.limit, MAX_ROWS), "offset": min(self.offset, MAX_ROWS)}


class Listing:
    """A SELECT built once, in two forms: everything, and one LIMIT/OFFSET page.

    With `key` (a table whose `id` an index on the filter and order covers, and the FROM that
    filter needs), the page is found first among ids only, then joined: the rows skipped by a
    deep OFFSET are index entries, never table rows or joins."""

    def __init__(
        self, query: sa.Select, where: tuple, order: tuple, key: tuple[sa.Table, sa.FromClause] | None = None
    ) -> None:
        self.whole = query.where(*where).order_by(*order)
        if key is None:
            self.paged = self.whole.limit(_LIMIT).offset(_OFFSET)
        else:
            table, key_from = key
            page = (
                sa.select(table.c.id)
                .select_from(key_from)
                .where(*where)
                .order_by(*order)
                .limit(_LIMIT)
                .offset(_OFFSET)
                .subquery("page")
            )
            self.paged = query.join(page, page.c.id == table.c.id).order_by(*order)

    def all(self, conn: Connection, page: Page | None, **params) -> Sequence[Row]:
        if page is None:
            return conn.execute(self.whole, params).all()
        return conn.execute(self.paged, {**params, **page.bound()}).all()
