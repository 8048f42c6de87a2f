"""The SQL of who may do what: administrator accounts and their sessions, and the per-client
counters of the rate limits (rate_limit.py), shared by every process of a deployment."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sathub.db.dialect import insert_for
from sathub.db.group_commit import hold_writers_lock
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


def count_under_writers_lock(conn: Connection, client: str, limit: int, now: float) -> rate_limit.Verdict:
    """count_and_judge in a write's check step (group_commit.run_checked), which runs before its
    shared transaction takes the writers' lock: the lock is taken first. submit.php's writes count
    under it, and a count taken before it could leave two processes on PostgreSQL each waiting for
    what the other holds (this count's row, that lock)."""
    hold_writers_lock(conn)
    return count_and_judge(conn, client, limit, now)


def count_hit(conn: Connection, client: str, window_start: int) -> int:
    """Count one request of `client` in the window starting at `window_start` and return the
    window's hits so far, in one atomic upsert (correct across processes)."""
    statement = insert_for(conn.dialect.name)(rate_limits).values(client=client, window_start=window_start, hits=1)
    same_window = rate_limits.c.window_start == statement.excluded.window_start
    statement = statement.on_conflict_do_update(
        index_elements=[rate_limits.c.client],
        set_={
            "hits": sa.case((same_window, rate_limits.c.hits + 1), else_=1),
            "window_start": statement.excluded.window_start,
        },
    ).returning(rate_limits.c.hits)
    hits = conn.execute(statement).scalar_one()
    if hits == 1:
        # A client's first request of a window: drop rows of clients gone quiet for an hour.
        conn.execute(rate_limits.delete().where(rate_limits.c.window_start < window_start - 3600))
    return hits
