"""Migrations 0013 (PostgreSQL: lists and dates in the index), 0014 (PostgreSQL: the import's
indexing), 0015 (SQLite: facets), 0016 (PostgreSQL: the dates' B-tree) and 0017 (SQLite: public
mail alone in the index, which the statements of today rely on) on a database that
already holds mail, SQLite and PostgreSQL:
every kind of search finds after the upgrade the emails the fixtures say it should (private lists
left out), the index follows a corrected date or list at once, and the downgrade gives 0010's
index back."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from sathub.archive.tables import emails, mailing_lists
from tests.archive.api_fixtures import MAIL, seed_archive
from tests.archive.search.test_freshness import found
from tests.conftest import migrate, scratch_engine


def ids(*keys: str) -> set[str]:
    return {MAIL[key].message_id for key in keys}


def assert_fixtures_found(engine) -> None:
    """The searches every migration of the index must answer alike on the seeded archive."""
    assert found(engine, "welcome") == ids("A", "B", "C", "D", "X")
    assert found(engine, "s:welcome -s:re") == ids("A", "X")
    assert found(engine, "f:alice@example.org") == ids("A", "D", "F", "X")  # not P, private
    assert found(engine, "n:signature") == ids("E")


def test_a_database_with_mail_is_searched_alike_after_0013_to_0016(database_url, tmp_path):
    with scratch_engine(database_url, tmp_path) as engine:
        migrate(engine, "0012")
        seed_archive(engine)
        migrate(engine, "0017")
        assert_fixtures_found(engine)
        if database_url.startswith("postgresql"):  # what a date range's bitmap is ANDed with
            with engine.connect() as conn:
                indexes = {
                    index["name"]: index["column_names"] for index in sa.inspect(conn).get_indexes("email_search")
                }
            assert indexes["email_search_date"] == ["date"]
        assert found(engine, "s:welcome -zoe") == ids("A", "B", "D", "X")
        assert found(engine, "f:alice s:tie") == ids("F")
        assert found(engine, "d:2021-02 report") == ids("E")
        assert found(engine, "l:other@example.org welcome") == ids("X")
        assert found(engine, "s:secret OR f:zoe") == ids("C", "H")
        assert found(engine, "y2021 OR l1 OR d2021* OR welcome l1") == set()  # words, never facets
        # A re-import's correction of a date (an UPDATE) moves the email in date ranges at once.
        with engine.begin() as conn:
            conn.execute(emails.update().where(emails.c.message_id == MAIL["E"].message_id).values(date=MAIL["P"].date))
        assert found(engine, "d:2021-02 report") == set()
        assert found(engine, "d:2021-05 report") == ids("E")
        # So does a move to another list (an UPDATE of list_id).
        with engine.begin() as conn:
            other = conn.scalar(sa.select(mailing_lists.c.id).where(mailing_lists.c.name == "other@example.org"))
            conn.execute(emails.update().where(emails.c.message_id == MAIL["E"].message_id).values(list_id=other))
        assert found(engine, "l:other@example.org report") == ids("E")
        migrate(engine, "0012", command.downgrade)
        with engine.connect() as conn:
            columns = [column["name"] for column in sa.inspect(conn).get_columns("email_search")]
        if database_url.startswith("postgresql"):
            assert columns == ["email_id", "document"]
        else:  # 0010's index again, and whole: FTS5 checks it against every stored email
            assert columns == ["subject", "body", "sender", "files"]
            with engine.begin() as conn:
                conn.execute(sa.text("INSERT INTO email_search(email_search, rank) VALUES ('integrity-check', 1)"))
