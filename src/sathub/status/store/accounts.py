"""The SQL of who may do what: administrator accounts and their sessions, and the per-client
counters of the rate limits (rate_limit.py), shared by every process of a deployment."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.dialect import as_given, insert_given
from sathub.status import rate_limit
from sathub.status.tables import column_length, rate_limits, users

# Moving a user's session generation on ends every session issued before (migration 0005).
_next_generation = users.c.session_generation + 1

NAME_LIMIT = column_length(users.c.username)
EMAIL_LIMIT = column_length(users.c.email)


def name_problem(username: str) -> str | None:
    """Why no account can be named `username`, else None: blank, longer than its column (which
    PostgreSQL refuses and SQLite would keep), or holding what is not printable text (a NUL,
    which PostgreSQL cannot bind; a lone surrogate, which no driver can encode: an undecodable
    byte of a command line arrives as one)."""
    if not username.strip():
        return "An administrator name cannot be blank."
    return _text_problem("An administrator name", username, NAME_LIMIT)


def email_problem(email: str) -> str | None:
    return _text_problem("An email address", email, EMAIL_LIMIT)


def _text_problem(what: str, text: str, limit: int) -> str | None:
    if len(text) > limit:
        return f"{what} has at most {limit} characters."
    if not text.isprintable():
        return f"{what} can hold printable characters only."
    return None


def save_user(conn: Connection, username: str, password_hash: str, email: str = "") -> None:
    """Create a user, or set a new password (which ends the user's sessions)."""
    updated = conn.execute(
        users.update()
        .where(users.c.username == username)
        .values(password=password_hash, email=email, session_generation=_next_generation)
    ).rowcount
    if not updated:
        conn.execute(users.insert().values(username=username, password=password_hash, email=email))


def admin_user(conn: Connection, username: str) -> sa.Row | None:
    """(password, session_generation) of a user; none for a name no account can have, without
    asking the database (a login form's NUL would fail on PostgreSQL)."""
    if name_problem(username) is not None:
        return None
    query = sa.select(users.c.password, users.c.session_generation).where(users.c.username == username)
    return conn.execute(query).first()


def session_is_current(conn: Connection, username: str, generation: int) -> bool:
    """A session issued at `generation` still stands: its user exists and has neither logged out
    nor changed password since (admin_sessions.current_session asks it, for both interfaces)."""
    user = admin_user(conn, username)
    return user is not None and user.session_generation == generation


def password_hash_of(conn: Connection, username: str) -> str | None:
    user = admin_user(conn, username)
    return user.password if user else None


def end_sessions(conn: Connection, username: str) -> None:
    conn.execute(users.update().where(users.c.username == username).values(session_generation=_next_generation))


def count_and_judge(conn: Connection, client: str, limit: int, now: float) -> rate_limit.Verdict:
    """Count one request of `client` in its window (count_hit) and judge the window's hits
    against `limit` (0: no limit)."""
    start = rate_limit.window_start(now)
    return rate_limit.judge(count_hit(conn, client, start), limit, start, now)


def count_in_order(conn: Connection, clients: list[str], now: float) -> tuple[int, list[int]]:
    """Count requests of `clients` (one entry a request, in arrival order) in their window, in
    one statement, and number each as if it had counted itself: (the window's start, the
    numbers). For the API's POSTs of one group commit's store step, under the writers' lock
    (which must come first: on PostgreSQL a count taken before it could leave two processes
    each waiting for what the other holds, this count's row and that lock). Counted one by one,
    64 connections of one address POSTing got half the POST/s on both backends, and a server CPU
    per POST of 1,079-1,245 instead of 405-501 µs on PostgreSQL (docs/design.md)."""
    start = rate_limit.window_start(now)
    requests = Counter(clients)
    hits = count_hits(conn, requests, start)
    next_hit = {client: hits[client] - count + 1 for client, count in requests.items()}
    numbers = []
    for client in clients:
        numbers.append(next_hit[client])
        next_hit[client] += 1
    return start, numbers


def count_hit(conn: Connection, client: str, window_start: int) -> int:
    """Count one request of `client` in the window starting at `window_start` and return the
    window's hits so far (count_hits)."""
    return count_hits(conn, {client: 1}, window_start)[client]


def count_hits(conn: Connection, requests: Mapping[str, int], window_start: int) -> dict[str, int]:
    """Count the requests of clients ({client: requests}) in the window starting at
    `window_start` and return each client's hits in it so far, these included: one atomic upsert
    for them all (correct across processes)."""
    rows = [{"client": client, "window_start": window_start, "hits": count} for client, count in requests.items()]
    if not rows:
        return {}
    hits = dict(conn.execute(_hits_upsert(conn.dialect.name), as_given(conn, rows, _HITS)).all())
    if any(hits[client] == count for client, count in requests.items()):
        # A client's first requests of a window: drop rows of clients gone quiet for an hour.
        conn.execute(rate_limits.delete().where(rate_limits.c.window_start < window_start - 3600))
    return hits


_HITS = ("client", "window_start", "hits")


@cache
def _hits_upsert(dialect_name: str):
    """Built once per dialect: the API counts every POST with it."""
    statement = insert_given(dialect_name, rate_limits, _HITS)
    same_window = rate_limits.c.window_start == statement.excluded.window_start
    return statement.on_conflict_do_update(
        index_elements=[rate_limits.c.client],
        set_={
            "hits": sa.case((same_window, rate_limits.c.hits + statement.excluded.hits), else_=statement.excluded.hits),
            "window_start": statement.excluded.window_start,
        },
    ).returning(rate_limits.c.client, rate_limits.c.hits)
