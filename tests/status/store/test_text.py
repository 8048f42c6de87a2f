"""User text as the database binds and compares it (store/text.py), on SQLite and PostgreSQL: a
NUL, which PostgreSQL text cannot hold, binds as U+FFFD, and a name is folded by the database's
lower(), as the lower(column) indexes it is compared with are."""

import sqlalchemy as sa

from sathub import db
from sathub.status.store.text import db_text, folded


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
