"""`sathub archive hide|unhide|delete|removals|compact`: taking mail out from the command line
(docs/archive-removal.md). A refusal is one line on stderr and exit status 1, nothing changed."""

from __future__ import annotations

import getpass
from collections.abc import Callable

import click

from sathub.archive.removal.operations import (
    CONFIRM_OVER,
    DELETE,
    HIDE,
    UNHIDE,
    RemovalRefused,
    audit_log,
    run,
    scope_of,
)
from sathub.archive.store.compaction import compact
from sathub.cli_options import database_option, engine_for

_SCOPE_OPTIONS = (
    click.option("--message-id", metavar="ID", help="One message, by its Message-ID (angle brackets optional)."),
    click.option(
        "--hash", "message_id_hash_", metavar="HASH", help="One message, by its Message-ID hash (as in its URLs)."
    ),
    click.option("--thread", metavar="HASH", help="A whole thread, by its id (as in its URLs); needs --list."),
    click.option("--sender", metavar="ADDRESS", help="Every message from this address (on --list, or on every list)."),
    click.option(
        "--list", "list_address", metavar="ADDRESS", help="The list (its posting address); alone: the whole list."
    ),
    click.option("--reason", required=True, metavar="TEXT", help="Why (required): it goes to the audit log."),
    click.option("--dry-run", is_flag=True, help="Say what would be taken, change nothing."),
    click.option("--yes", is_flag=True, help=f"Confirm a removal of more than {CONFIRM_OVER} messages."),
    click.option("--as", "actor", metavar="NAME", help="Who, for the audit log (default cli:<Unix user name>)."),
    database_option,
)

_HELP = {
    HIDE: "Hide messages: answered as gone by every door, everything kept; `unhide` brings them back.",
    UNHIDE: "Bring back messages hidden by `hide`, exactly as they were, counts included.",
    DELETE: "Delete messages for good: content, sender, source, attachments and search rows erased, a "
    "tombstone kept (never archived again). Run `sathub archive compact` afterwards to erase every byte.",
}


def _removal_command(action: str) -> click.Command:
    def command(message_id, message_id_hash_, thread, sender, list_address, reason, dry_run, yes, actor, database_url):
        try:
            scope = scope_of(message_id, message_id_hash_, thread, sender, list_address)
            outcome = run(
                engine_for(database_url),
                action,
                scope,
                reason,
                actor or f"cli:{getpass.getuser()}",
                dry_run=dry_run,
                confirmed=yes,
            )
        except RemovalRefused as refusal:
            raise click.ClickException(str(refusal)) from refusal
        click.echo(outcome.describe())

    command.__doc__ = _HELP[action] + (
        " Name what goes with --message-id, --hash, --thread, --sender and --list; they combine"
        " (--sender x@y --list l@z)."
    )
    decorated: Callable = command
    for option in reversed(_SCOPE_OPTIONS):
        decorated = option(decorated)
    return click.command(action)(decorated)


hide, unhide, delete = (_removal_command(action) for action in (HIDE, UNHIDE, DELETE))


@click.command("removals")
@click.option("--list", "list_address", metavar="ADDRESS", help="Only the actions on this list.")
@click.option("--limit", type=click.IntRange(min=1), metavar="N", help="Only the N newest actions.")
@database_option
def removals(list_address, limit, database_url) -> None:
    """The audit log of hide, unhide and delete, newest first: one line per action (when, who,
    action, scope, messages, reason)."""
    rows = audit_log(engine_for(database_url), list_address, limit)
    for row in rows:
        reason = " ".join(row.reason.split())  # one line per action, whatever was typed
        click.echo(
            f"{row.at:%Y-%m-%d %H:%M:%S}Z  {row.actor}  {row.action}  {row.scope}: "
            f"{row.messages} message(s)  reason: {reason}"
        )
    if not rows:
        click.echo("No removals" + (f" on {list_address.lower()}." if list_address else "."))


@click.command("compact")
@database_option
def compact_command(database_url) -> None:
    """Erase from the database's files what deleted mail left there. SQLite: merges the search
    index's segments, rewrites the file (VACUUM, which needs free disk space the size of the
    database) and empties the WAL: no byte of erased mail remains. PostgreSQL: VACUUM (ANALYZE) of
    the archive's tables, so that deleted rows' space is reused; VACUUM FULL, which returns the
    space to the operating system but locks each table while it rewrites it, is the operator's
    choice. Writers wait while it runs: choose a quiet hour."""
    done = compact(engine_for(database_url))
    if done.backend == "sqlite":
        wal = "WAL emptied" if done.wal_emptied else "WAL NOT emptied"
        click.echo(
            f"Compacted: search index merged, file rewritten, {wal}; "
            f"{done.bytes_before:,} bytes before, {done.bytes_after:,} after."
        )
        if not done.wal_emptied:
            raise click.ClickException(
                "a reader kept the WAL from being emptied: it may still hold erased mail; run again when it is idle"
            )
    else:
        click.echo(
            f"Vacuumed {done.tables} archive tables (VACUUM (ANALYZE)); "
            f"{done.bytes_before:,} bytes before, {done.bytes_after:,} after (VACUUM FULL returns space to the OS)."
        )
