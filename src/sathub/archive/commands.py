"""`sathub archive ...`: import mailing-list archives, load real Mailman sender ids, take list
settings from Mailman; take mail out (archive/removal/commands.py)."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import click

from sathub.archive.ingest.importer import import_archive
from sathub.archive.mail.list_address import list_address_fault
from sathub.archive.mailman.list_settings import MailmanUnavailable, configured, sync_lists
from sathub.archive.mailman.user_ids import load_mailman_ids
from sathub.archive.removal.commands import compact_command, delete, hide, removals, unhide
from sathub.cli_options import database_option, engine_for
from sathub.config import Settings, setting

ARCHIVE_SUFFIX = re.compile(r"\.(mbox|mbx|txt)(\.(gz|bz2|xz))?$", re.IGNORECASE)


def list_address_from_name(path: Path) -> str | None:
    """`gpsd-dev@lists.berlios.de.mbox.gz` names the list gpsd-dev@lists.berlios.de."""
    address = ARCHIVE_SUFFIX.sub("", path.name)
    return address.lower() if address != path.name and re.fullmatch(r"[^@\s/]+@[^@\s/]+\.[^@\s/]+", address) else None


@click.group()
def archive() -> None:
    """Mailing-list archives (interface B)."""


@archive.command("import")
@click.option(
    "--list",
    "list_address",
    metavar="ADDRESS",
    help="Posting address of the list, e.g. dev@lists.example.org. May be left out when "
    "every PATH is named <address>.mbox[.gz|.bz2|.xz].",
)
@click.option(
    "--private", is_flag=True, help="Mark the list private (its mail is never served) before importing any of it."
)
@click.option(
    "--mboxrd",
    is_flag=True,
    help="The mbox files are mboxrd (sathub's and public-inbox's exports): a body line >From loses one >.",
)
@click.option(
    "--pipermail-numbers",
    is_flag=True,
    help="The PATHs are the list's complete archive in order (its mbox, or every monthly .txt from the "
    "first): record each message's pipermail number (0, 1, ...) so that old .../NNNNNN.html links redirect.",
)
@database_option
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def import_command(list_address, private, mboxrd, pipermail_numbers, database_url, paths) -> None:
    """Import mbox files (plain, .gz, .bz2, .xz), pipermail monthly .txt archives, maildir
    folders, or folders of such files. Running it again adds nothing."""
    if not list_address:
        names = {list_address_from_name(path) for path in paths}
        if len(names) != 1 or None in names:
            raise click.UsageError(
                "Give --list ADDRESS (the file names do not all name the same list as <address>.mbox.gz)."
            )
        list_address = names.pop()
    fault = list_address_fault(list_address)
    if fault:
        raise click.BadParameter(
            f"{list_address!r} is not a posting address (name@domain) Mailman can have: {fault}.", param_hint="--list"
        )
    summary = import_archive(
        engine_for(database_url),
        list_address,
        paths,
        private=private,
        progress=sys.stderr.isatty(),
        mboxrd=mboxrd,
        pipermail_numbers=pipermail_numbers,
        max_parts=setting("max_message_parts"),
    )
    click.echo(summary.describe())
    if summary.damaged:
        click.echo(
            f"Error: {len(summary.damaged)} file(s) could not be read to their end; the messages "
            "before the damage are stored. Replace the file(s) and run the same import again to "
            "complete it.",
            err=True,
        )
        sys.exit(1)
    if not (summary.imported or summary.duplicates or summary.removed):
        click.echo(
            "Error: no message could be archived from "
            + ", ".join(map(str, paths))
            + " (not an mbox, maildir or pipermail archive?)",
            err=True,
        )
        sys.exit(1)


@archive.group("senders")
def senders_group() -> None:
    """Sender ids (Mailman user ids)."""


@senders_group.command("load")
@database_option
@click.argument("csv_file", metavar="FILE.csv", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def senders_load(database_url, csv_file) -> None:
    """Load real Mailman user ids from FILE.csv (columns: address, mailman_id); they replace the
    default ids, before or after the mail is imported."""
    with open(csv_file, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or not {"address", "mailman_id"} <= set(reader.fieldnames):
            raise click.UsageError("FILE.csv needs the columns address and mailman_id.")
        result = load_mailman_ids(engine_for(database_url), ((row["address"], row["mailman_id"]) for row in reader))
    click.echo(result.describe())
    if result.rejected:
        sys.exit(1)


@archive.group("lists")
def lists_group() -> None:
    """Mailing lists and their settings."""


@lists_group.command("sync")
@database_option
@click.option(
    "--rest-url",
    envvar="SATHUB_MAILMAN_REST_URL",
    default=None,
    help="Mailman's REST API root, without a version (http://127.0.0.1:8001). Env: SATHUB_MAILMAN_REST_URL.",
)
@click.option("--rest-user", envvar="SATHUB_MAILMAN_REST_USER", default=None, help="Env: SATHUB_MAILMAN_REST_USER.")
@click.option(
    "--rest-password", envvar="SATHUB_MAILMAN_REST_PASSWORD", default=None, help="Env: SATHUB_MAILMAN_REST_PASSWORD."
)
@click.argument("addresses", nargs=-1, metavar="[ADDRESS]...")
def lists_sync(database_url, rest_url, rest_user, rest_password, addresses) -> None:
    """Take each list's display name, description, subject prefix and archive policy from
    Mailman (policy private: the list's mail is no longer served; never: new mail is not
    archived). Every list sathub has, or the ADDRESSes given (created when Mailman has them)."""
    settings = Settings.from_env(
        mailman_rest_url=rest_url, mailman_rest_user=rest_user, mailman_rest_password=rest_password
    )
    if not configured(settings):
        raise click.UsageError("Give --rest-url (or SATHUB_MAILMAN_REST_URL): Mailman's REST API root.")
    try:
        result = sync_lists(engine_for(database_url), settings, list(addresses) or None)
    except MailmanUnavailable as error:
        raise click.ClickException(str(error)) from error
    click.echo(result.describe())


@archive.command("reindex")
@click.option("--list", "list_address", metavar="ADDRESS", help="Only this list's emails (default: every list's).")
@click.option(
    "--sources",
    is_flag=True,
    help="Instead of rebuilding: read once, from the kept sources, what the search reads of the mail stored "
    "before migration 0023 (names in From comments, text pipermail inlined after 'next part'), and index "
    "again the emails that have some; and the Message-IDs named in References of the mail stored before "
    "0029. Run once after upgrading; a run stopped takes up where it stopped.",
)
@database_option
def reindex_command(list_address, sources, database_url) -> None:
    """Rebuild the search index from the stored emails (docs/archive-search.md). Not needed in
    normal running: the index is kept in the transaction of every write. With --sources, read the
    kept sources once after the upgrade to migrations 0023 and 0029 instead."""
    from sathub.archive.store.lists import find_list
    from sathub.archive.store.search_index import reindex

    engine = engine_for(database_url)
    list_id = None
    if list_address:
        with engine.connect() as conn:
            found = find_list(conn, list_address)
        if found is None:
            raise click.BadParameter(f"no list {list_address!r} in the archive", param_hint="--list")
        list_id = found.id
    if sources:
        from sathub.archive.ingest.searched_text import read_searched_text

        max_parts = setting("max_message_parts")  # the import's: the same text is read as it would be
        click.echo(read_searched_text(engine, list_id, max_parts=max_parts, progress=sys.stderr.isatty()).describe())
        return
    with engine.begin() as conn:
        count = reindex(conn, list_id)
    click.echo(f"Indexed {count} email(s) for search" + (f" of {list_address.lower()}." if list_address else "."))


for removal_command in (hide, unhide, delete, removals, compact_command):
    archive.add_command(removal_command)
