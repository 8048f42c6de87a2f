"""`sathub webhooks add|list|remove` (notify/webhook_commands.py) on SQLite and PostgreSQL: a hook
added with a secret it prints, refused with a usage error that says why, listed with its state and
log, removed."""

from __future__ import annotations

import re

from click.testing import CliRunner

from sathub import db
from sathub.cli import main
from sathub.status.store import webhooks as store
from tests.status.seed import seed_catalog


def run(engine, *args):
    return CliRunner().invoke(main, ["webhooks", *args, "--database-url", engine.url.render_as_string(False)])


def test_add_list_and_remove(engine):
    seed_catalog(engine)
    added = run(engine, "add", "https://example.org/hook", "--events", "report,status", "--name", "AO-91")
    assert added.exit_code == 0, added.output
    hook_id, secret = re.fullmatch(
        r"Webhook (\d+) added: https://example.org/hook\nSecret: ([0-9a-f]{64})\n", added.output
    ).groups()
    given = run(engine, "add", "https://example.org/other", "--secret", "a-secret-of-16-chars")
    assert given.exit_code == 0 and "Secret: a-secret-of-16-chars" in given.output
    with db.connect(engine, write=True) as conn:
        [first, second] = store.all_webhooks(conn)
        assert (first.id, first.secret, first.events, first.names) == (
            int(hook_id),
            secret,
            {"report", "status"},
            {"ao-91"},
        )
        assert (second.events, second.names) == ({"report"}, frozenset())
        store.claim(conn, "tester", 100.0, 1000.0)
        attempt = store.Attempt("d" * 36, first.position + 1, 1_795_000_000.0, 41.6, 503, None)
        store.record_attempt(conn, first.id, "tester", 101.0, 1000.0, attempt, delivered=False, next_attempt=0)
    listed = run(engine, "list").output
    assert f"{hook_id} https://example.org/hook events=report,status names=ao-91\n" in listed
    assert "enabled; position" in listed and "1 failures in a row, failing since 2026-11-18 11:06:40Z" in listed
    assert f"  2026-11-18 11:06:40Z event {first.position + 1}: HTTP 503 (42 ms)\n" in listed
    assert "https://example.org/other events=report names=every satellite" in listed
    assert run(engine, "remove", hook_id).output == f"Webhook {hook_id} removed.\n"
    missing = run(engine, "remove", hook_id)
    assert missing.exit_code == 1 and f"No webhook {hook_id}." in missing.output
    assert "https://example.org/hook " not in run(engine, "list").output


def test_what_the_rules_refuse_is_a_usage_error_that_says_why(engine):
    seed_catalog(engine)
    for args, why in [
        (["gopher://example.org/"], "only http:// and https:// URLs"),
        (["https://example.org/", "--secret", "short"], "the secret must be 16 to 255 characters"),
        (["https://example.org/", "--events", "report,mail"], "the events must be one or more of report, status"),
        (["https://example.org/", "--name", "NO-SUCH"], "no satellite has the API name NO-SUCH"),
    ]:
        result = run(engine, "add", *args)
        assert result.exit_code == 2 and why in result.output, result.output
    assert run(engine, "list").output == "No webhooks.\n"
