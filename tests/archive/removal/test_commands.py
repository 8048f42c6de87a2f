"""`sathub archive hide|unhide|delete|removals` through the command line, on the hand-built archive
(tests/archive/api_fixtures.py), both backends: each option, a refusal is one line and exit status
1 with nothing changed, --dry-run changes nothing, more than 100 messages want --yes, the audit log
lists every action."""

from __future__ import annotations

import getpass

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from sathub.archive.tables import (
    archive_removals,
    archive_removed,
    attachments,
    email_sources,
    emails,
    hidden_emails,
    mailing_lists,
    senders,
    threads,
)
from sathub.cli import main
from tests.archive.api_fixtures import MAIL, seed_big_list

DEV = "dev@example.org"
TABLES = (
    mailing_lists,
    senders,
    threads,
    emails,
    attachments,
    email_sources,
    hidden_emails,
    archive_removed,
    archive_removals,
)


def invoke(engine, *args: str):
    url = engine.url.render_as_string(hide_password=False)
    return CliRunner().invoke(main, ["archive", *args, "--database-url", url], catch_exceptions=False)


def every_row(engine) -> dict[str, list[tuple]]:
    with engine.connect() as conn:
        return {table.name: sorted(map(tuple, conn.execute(sa.select(table)))) for table in TABLES}


def count(engine, table: sa.Table) -> int:
    with engine.connect() as conn:
        return conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0


# What each option names in the hand-built archive (api_fixtures' MAILS and THREADS), and the line
# that says so: alice@example.org wrote A, D and F on dev, P on private and X on other.
SCOPES = {
    "message-id": (["--message-id", f"<{MAIL['B'].message_id}>"], f"message <{MAIL['B'].message_id}> every list", 1),
    "hash": (["--hash", MAIL["E"].hash.lower(), "--list", DEV], f"message {MAIL['E'].hash} list {DEV}", 1),
    "thread": (["--thread", MAIL["A"].hash, "--list", DEV], f"thread {MAIL['A'].hash} list {DEV}", 4),
    "sender": (["--sender", "Alice@Example.org"], "sender alice@example.org every list", 5),
    "sender-on-a-list": (
        ["--sender", "alice@example.org", "--list", DEV.upper()],
        f"sender alice@example.org list {DEV}",
        3,
    ),
    "list": (["--list", DEV], f"list {DEV}", 8),
}


@pytest.mark.parametrize("scope", SCOPES.values(), ids=SCOPES.keys())
def test_hide_then_unhide_each_scope(engine, archive, scope):
    args, named, messages = scope
    shown = count(engine, emails)
    hidden = invoke(engine, "hide", *args, "--reason", "spam")
    assert (hidden.exit_code, hidden.stderr) == (0, "")
    whole = "; the list hidden whole (404 everywhere)" if args == ["--list", DEV] else ""
    assert hidden.stdout == f"{named}: {messages} message(s) hidden{whole}.\n"
    assert (count(engine, emails), count(engine, hidden_emails)) == (shown - messages, messages)
    back = invoke(engine, "unhide", *args, "--reason", "not spam")
    whole = "; the list shown again" if whole else ""
    assert back.stdout == f"{named}: {messages} message(s) unhidden{whole}.\n"
    assert (count(engine, emails), count(engine, hidden_emails)) == (shown, 0)


@pytest.mark.parametrize("scope", SCOPES.values(), ids=SCOPES.keys())
def test_delete_each_scope(engine, archive, scope):
    args, named, messages = scope
    shown = count(engine, emails)
    result = invoke(engine, "delete", *args, "--reason", "erasure request")
    assert result.exit_code == 0, result.output
    whole = "; the list deleted" if args == ["--list", DEV] else ""
    assert result.stdout == f"{named}: {messages} message(s) deleted{whole}.\n"
    assert (count(engine, emails), count(engine, archive_removed)) == (shown - messages, messages)


UNKNOWN = {
    "message-id": ["--message-id", "nobody@nowhere.example"],
    "hash": ["--hash", "A" * 32, "--list", DEV],
    "hash-not-a-hash": ["--hash", "not-a-hash"],
    "thread": ["--thread", "B" * 32, "--list", DEV],
    "thread-without-list": ["--thread", MAIL["A"].hash],
    "sender": ["--sender", "nobody@nowhere.example"],
    "sender-not-an-address": ["--sender", "alice"],
    "sender-not-on-list": ["--sender", "zoe@example.com", "--list", "other@example.org"],
    "list": ["--list", "nope@example.org"],
    "nothing": [],
    "blank-reason": ["--message-id", MAIL["B"].message_id, "--reason", "  "],
}


@pytest.mark.parametrize("action", ["hide", "unhide", "delete"])
@pytest.mark.parametrize("args", UNKNOWN.values(), ids=UNKNOWN.keys())
def test_bad_input_is_one_line_exit_1_and_nothing_changed(engine, archive, action, args):
    before = every_row(engine)
    reason = [] if "--reason" in args else ["--reason", "spam"]
    result = invoke(engine, action, *args, *reason)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert every_row(engine) == before


def test_unhide_of_what_is_not_hidden_changes_nothing(engine, archive):
    before = every_row(engine)
    result = invoke(engine, "unhide", "--message-id", MAIL["B"].message_id, "--reason", "r")
    assert result.stdout == f"message <{MAIL['B'].message_id}> every list: 0 message(s) unhidden, 1 already shown.\n"
    assert every_row(engine) == before


def test_a_missing_reason_is_refused(engine, archive):
    before = every_row(engine)
    result = invoke(engine, "delete", "--message-id", MAIL["B"].message_id)
    assert result.exit_code == 2 and "Missing option '--reason'" in result.stderr
    assert every_row(engine) == before


def test_dry_run_changes_nothing(engine, archive):
    before = every_row(engine)
    for action, done in [("hide", "hidden"), ("delete", "deleted")]:
        result = invoke(engine, action, "--sender", "alice@example.org", "--reason", "r", "--dry-run")
        assert result.stdout == f"sender alice@example.org every list: 5 message(s) would be {done}.\n"
    result = invoke(engine, "delete", "--list", DEV, "--reason", "r", "--dry-run")
    assert result.stdout == f"list {DEV}: 8 message(s) would be deleted; the list would be deleted.\n"
    assert every_row(engine) == before


def test_more_than_100_messages_want_yes(engine):
    seed_big_list(engine, 60)  # busy@example.org: 121 emails
    before = every_row(engine)
    refused = invoke(engine, "hide", "--sender", "busy@example.org", "--reason", "flood")
    assert refused.exit_code == 1
    assert refused.stderr == (
        "Error: sender busy@example.org every list: 121 messages would be hidden; "
        "confirm with --yes (see them first with --dry-run)\n"
    )
    assert every_row(engine) == before
    done = invoke(engine, "hide", "--sender", "busy@example.org", "--reason", "flood", "--yes")
    assert done.stdout == "sender busy@example.org every list: 121 message(s) hidden.\n"
    assert (count(engine, emails), count(engine, hidden_emails)) == (0, 121)


def test_the_removals_log_lists_every_action(engine, archive):
    actions = [
        ("hide", ["--message-id", MAIL["B"].message_id], "spam one", "alice-admin", 1),
        ("unhide", ["--message-id", MAIL["B"].message_id], "not spam\nafter all", None, 1),
        ("delete", ["--sender", "zoe@example.com", "--list", DEV], "GDPR request", "gdpr-desk", 2),
        ("hide", ["--list", "other@example.org"], "closed", None, 1),
    ]
    for action, args, reason, actor, _ in actions:
        who = ["--as", actor] if actor else []
        assert invoke(engine, action, *args, "--reason", reason, *who).exit_code == 0
    lines = invoke(engine, "removals").stdout.splitlines()
    assert len(lines) == len(actions)
    zoe = "sender sha256:" in lines[1] and "zoe@example.com" not in lines[1]  # delete erases the address
    assert zoe, lines[1]
    for line, (action, _, reason, actor, messages) in zip(lines, reversed(actions), strict=True):
        when, who, done, rest = line.split("  ", 3)
        assert who == (actor or f"cli:{getpass.getuser()}")
        assert done == action
        assert f": {messages} message(s)  reason: {' '.join(reason.split())}" in rest
        assert len(when) == len("2024-01-01 00:00:00Z") and when.endswith("Z")
    on_dev = invoke(engine, "removals", "--list", DEV.upper()).stdout.splitlines()
    assert on_dev == [lines[1], lines[2], lines[3]]
    assert invoke(engine, "removals", "--limit", "1").stdout.splitlines() == lines[:1]
    assert invoke(engine, "removals", "--list", "quiet@example.org").stdout == "No removals on quiet@example.org.\n"
