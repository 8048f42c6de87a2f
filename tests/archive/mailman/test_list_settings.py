"""List settings from Mailman's REST API (mailman/list_settings.py) and `archive lists sync`."""

from __future__ import annotations

from datetime import datetime

import pytest
from click.testing import CliRunner

from sathub.archive.commands import archive
from sathub.archive.mail.dates import utc_now
from sathub.archive.mailman.list_settings import ListSettings, MailmanUnavailable, fetch, from_config, sync_lists
from sathub.archive.store import lists as list_store
from sathub.config import Settings
from sathub.db import connect
from tests.archive.rest_stub import PASSWORD, USER, MailmanRest


@pytest.fixture
def rest():
    with MailmanRest() as server:
        yield server


def rest_settings(rest: MailmanRest, **changes) -> Settings:
    return Settings(mailman_rest_url=rest.url, mailman_rest_user=USER, mailman_rest_password=PASSWORD, **changes)


def test_fetch_reads_the_list_config(rest):
    rest.add("dev@example.org", display_name="Developers", description="Talk about code", archive_policy="private")
    assert fetch(rest_settings(rest), "Dev@Example.org") == ListSettings(
        "Developers", "Talk about code", "[Dev] ", "private", datetime(2020, 5, 1, 12, 30)
    )
    assert fetch(rest_settings(rest), "nobody@example.org") is None


def test_fetch_failures_are_mailman_unavailable(rest):
    with pytest.raises(MailmanUnavailable, match="401"):
        fetch(Settings(mailman_rest_url=rest.url, mailman_rest_user="x", mailman_rest_password="y"), "a@b.org")
    with pytest.raises(MailmanUnavailable, match="cannot be read"):
        fetch(Settings(mailman_rest_url="http://127.0.0.1:9"), "a@b.org")


def test_from_config_never_leaks_on_an_unknown_policy():
    assert from_config({"archive_policy": "members-only"}, None).archive_policy == "private"
    assert from_config({"archive_policy": "never", "description": ""}, "2021-01-02T03:04:05+02:00") == ListSettings(
        "", None, "", "never", datetime(2021, 1, 2, 1, 4, 5)
    )


def test_sync_updates_known_lists(engine, rest):
    with connect(engine, write=True) as conn:
        list_store.create_list(conn, "dev@example.org", {"created_at": utc_now()})
        list_store.create_list(conn, "gone@example.org", {"created_at": utc_now()})
    rest.add("dev@example.org", archive_policy="private", description="Code")
    result = sync_lists(engine, rest_settings(rest))
    assert result.unknown == 1
    assert result.lines[0].startswith("dev@example.org: display_name '' -> 'Dev'")
    assert "archive_policy 'public' -> 'private'" in result.lines[0]
    assert result.lines[1] == "gone@example.org: not in Mailman, left as it is"
    with connect(engine) as conn:
        dev = list_store.find_list(conn, "dev@example.org")
    assert (dev.display_name, dev.description, dev.archive_policy, dev.created_at) == (
        "Dev",
        "Code",
        "private",
        datetime(2020, 5, 1, 12, 30),
    )
    assert sync_lists(engine, rest_settings(rest), ["dev@example.org"]).lines == ["dev@example.org: unchanged"]


def test_the_sync_command(engine, rest, database_url):
    rest.add("new@example.org", archive_policy="never")
    runner = CliRunner()
    result = runner.invoke(
        archive,
        [
            "lists",
            "sync",
            "--database-url",
            database_url,
            "--rest-url",
            rest.url,
            "--rest-user",
            USER,
            "--rest-password",
            PASSWORD,
            "new@example.org",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output == "new@example.org: created (never)\n"
    with connect(engine) as conn:
        assert list_store.find_list(conn, "new@example.org").archive_policy == "never"
    without = runner.invoke(
        archive, ["lists", "sync", "--database-url", database_url], env={"SATHUB_MAILMAN_REST_URL": ""}
    )
    assert without.exit_code == 2 and "--rest-url" in without.output
    down = runner.invoke(archive, ["lists", "sync", "--database-url", database_url, "--rest-url", "http://127.0.0.1:9"])
    assert down.exit_code == 1 and "cannot be read" in down.output
