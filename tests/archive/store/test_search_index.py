"""`sathub archive reindex` (archive/store/search_index.py): the search index rebuilt from the stored
emails, of every list or of one, on SQLite and PostgreSQL."""

from __future__ import annotations

import sqlalchemy as sa
from click.testing import CliRunner

from sathub.archive.commands import archive
from tests.archive.api_fixtures import MAIL, seed_archive
from tests.archive.search.test_freshness import found


def emptied_index(engine) -> None:
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("DELETE FROM email_search"))
        else:
            conn.execute(sa.text("INSERT INTO email_search(email_search) VALUES ('delete-all')"))


def test_reindex_rebuilds_the_index(engine, database_url):
    seed_archive(engine)
    emptied_index(engine)
    assert found(engine, "welcome") == set()
    runner = CliRunner()
    result = runner.invoke(archive, ["reindex", "--list", "OTHER@example.org", "--database-url", database_url])
    assert result.exit_code == 0, result.output
    # PostgreSQL indexes the list's one email again; SQLite rebuilds its whole FTS5 index.
    count = 1 if database_url.startswith("postgresql") else 10
    assert result.output == f"Indexed {count} email(s) for search of other@example.org.\n"
    assert MAIL["X"].message_id in found(engine, "welcome")
    result = runner.invoke(archive, ["reindex", "--database-url", database_url])
    assert (result.exit_code, result.output) == (0, "Indexed 10 email(s) for search.\n")
    assert found(engine, "welcome") == {MAIL[k].message_id for k in "ABCDX"}
    refused = runner.invoke(archive, ["reindex", "--list", "nobody@example.org", "--database-url", database_url])
    assert refused.exit_code == 2 and "no list 'nobody@example.org'" in refused.output
