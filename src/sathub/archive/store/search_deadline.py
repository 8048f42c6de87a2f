"""A deadline on a search's statements, kept by the database itself (docs/archive-search.md,
"Deadline"): the language bounds what a query may ask, not what it costs on a large archive (its
costliest accepted query, projected to 1,000,000 messages, takes seconds).

PostgreSQL: `statement_timeout`, local to the read's transaction (`set_config(…, true)`), so the
server cancels each statement of the search past it and the transaction, rolled back, leaves the
connection as it was. SQLite: a progress handler on the connection, called every few hundred
instructions of its virtual machine, interrupts the statement once the search's time has passed,
and is removed when the search ends, whatever happens."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection

# Instructions of SQLite's virtual machine between two looks at the clock. A look costs about a
# microsecond (a Python call): every 1,000 instructions the corpus's mix took as long as without a
# handler, within the noise; FTS5's own work inside one instruction (reading a prefix's doclists)
# is not interrupted, so the cut comes at the first instruction after it.
_EVERY = 1_000
# PostgreSQL's error for a statement cancelled by its statement_timeout (query_canceled).
_QUERY_CANCELED = "57014"
_TIMEOUT = sa.text("SELECT set_config('statement_timeout', :timeout, true)")


class SearchTooCostly(Exception):
    """A search's statements outlived their deadline and the database stopped them."""

    def __init__(self, milliseconds: int) -> None:
        super().__init__(f"the search took more than {milliseconds} ms")
        self.milliseconds = milliseconds


@contextlib.contextmanager
def deadline(conn: Connection, milliseconds: int | None) -> Iterator[None]:
    """Stop the block's statements after `milliseconds` (None or 0: no deadline), raising
    SearchTooCostly. On PostgreSQL each statement of the block has the time, until the end of the
    read's transaction; on SQLite the block as a whole."""
    if not milliseconds:
        yield
        return
    if conn.dialect.name == "postgresql":
        conn.execute(_TIMEOUT, {"timeout": f"{milliseconds}ms"})
        try:
            yield
        except sa.exc.DBAPIError as exc:
            if getattr(exc.orig, "sqlstate", None) == _QUERY_CANCELED:
                raise SearchTooCostly(milliseconds) from exc
            raise
        return
    dbapi_connection = conn.connection.dbapi_connection
    assert dbapi_connection is not None
    ends = time.monotonic() + milliseconds / 1000
    dbapi_connection.set_progress_handler(lambda: time.monotonic() > ends, _EVERY)
    try:
        yield
    except sa.exc.OperationalError as exc:
        if time.monotonic() > ends and "interrupted" in str(exc.orig):
            raise SearchTooCostly(milliseconds) from exc
        raise
    finally:
        dbapi_connection.set_progress_handler(None, _EVERY)
