"""User text as the database binds and compares it (store/text.py), on SQLite and PostgreSQL: a
NUL, which PostgreSQL text cannot hold, binds as U+FFFD, and a name is folded by the database's
lower(), as the lower(column) indexes it is compared with are."""

import pytest
import sqlalchemy as sa

from sathub import db
from sathub.status.store.text import db_text, folded, storable


def test_a_nul_binds_as_the_replacement_character(engine):
    assert db_text("W1\x00AW") == "W1\ufffdAW" and db_text("W1AW") == "W1AW"
    with db.connect(engine) as conn:
        assert conn.execute(sa.select(sa.literal(db_text("W1\x00AW"), sa.String))).scalar_one() == "W1\ufffdAW"


def test_a_name_is_folded_as_the_database_folds_its_column(engine):
    stored = sa.func.lower(sa.literal("OSCAR-Ø", sa.String))  # lower(name), as the indexes hold it
    with db.connect(engine) as conn:
        assert conn.execute(sa.select(folded("oscar-Ø") == stored)).scalar_one()
        assert conn.execute(sa.select(folded("Oscar-Ø\x00") == sa.func.lower(sa.literal("OSCAR-Ø\ufffd")))).scalar_one()
        if engine.dialect.name == "sqlite":  # its lower() folds ASCII only: Python's would not match
            assert not conn.execute(sa.select(sa.literal("OSCAR-Ø".lower(), sa.String) == stored)).scalar_one()


def test_what_no_driver_can_bind_as_given_was_never_stored(engine):
    """A lone surrogate cannot be encoded (UnicodeEncodeError on both backends), a NUL is stored
    as U+FFFD: text holding either never came from a row."""
    for text in ("W1\x00AW", "\ud800", "AO-\udfff91", "\ud83d"):
        assert not storable(text)
    for text in ("W1AW", "OSCAR-Ø", "\ufffd", "📡", ""):
        assert storable(text)
        with db.connect(engine) as conn:
            assert conn.execute(sa.select(sa.literal(text, sa.String))).scalar_one() == text
    with db.connect(engine) as conn, pytest.raises(UnicodeEncodeError):
        conn.execute(sa.select(sa.literal("\ud800", sa.String))).scalar_one()
