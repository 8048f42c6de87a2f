"""User text as the database binds and compares it.

Names and callsigns compare case-insensitively (upstream's MariaDB collation), through the
lower()/upper() expression indexes of migration 0001."""

from __future__ import annotations

import re

import sqlalchemy as sa

# What no stored text holds: NUL (db_text turns it into U+FFFD at every write) and lone
# surrogates (UTF-8 has none: a driver refuses them with UnicodeEncodeError).
_NEVER_STORED = re.compile("[\x00\ud800-\udfff]")


def db_text(text: str) -> str:
    """User text as every backend can bind it: PostgreSQL text cannot hold NUL, so it becomes
    U+FFFD (which no name, callsign or grid contains, so matching is unchanged)."""
    return text.replace("\x00", "\ufffd")


def storable(text: str) -> bool:
    """Whether `text` could have been read from a stored row (a cursor's, say)."""
    return _NEVER_STORED.search(text) is None


def folded(text: str):
    """`text` lower-cased by the database, like the lower(column) it is compared with: Python's
    str.lower() folds Unicode, SQLite's lower() only ASCII, so OSCAR-Ø would never match."""
    return sa.func.lower(sa.literal(db_text(text), sa.String))
