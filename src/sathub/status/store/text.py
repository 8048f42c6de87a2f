"""User text as the database binds and compares it.

Names and callsigns compare case-insensitively (upstream's MariaDB collation), through the
lower()/upper() expression indexes of migration 0001."""

from __future__ import annotations

import sqlalchemy as sa


def db_text(text: str) -> str:
    """User text as every backend can bind it: PostgreSQL text cannot hold NUL, so it becomes
    U+FFFD (which no name, callsign or grid contains, so matching is unchanged)."""
    return text.replace("\x00", "\ufffd")


def folded(text: str):
    """`text` lower-cased by the database, like the lower(column) it is compared with: Python's
    str.lower() folds Unicode, SQLite's lower() only ASCII, so OSCAR-Ø would never match."""
    return sa.func.lower(sa.literal(db_text(text), sa.String))
