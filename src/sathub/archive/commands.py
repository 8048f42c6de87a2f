"""`sathub archive ...`: import mailing-list archives, load real Mailman sender ids."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import click

from sathub.archive.importing.importer import import_archive
from sathub.archive.importing.mailman_ids import load_mailman_ids
from sathub.commands import database_option, engine_for

ARCHIVE_SUFFIX = re.compile(r"\.(mbox|mbx|txt)(\.(gz|bz2|xz))?$", re.IGNORECASE)


def list_address_from_name(path: Path) -> str | None:
    """`gpsd-dev@lists.berlios.de.mbox.gz` names the list gpsd-dev@lists.berlios.de."""
    address = ARCHIVE_SUFFIX.sub("", path.name)
    return address.lower() if address != path.name and re.fullmatch(r"[^@\s/]+@[^@\s/]+\.[^@\s/]+", address) else None


@click.group()
def archive() -> None:
    """Mailing-list archives (interface B)."""


@archive.command("import")
@click.option("--list", "list_address", metavar="ADDRESS",
              help="Posting address of the list, e.g. dev@lists.example.org. May be left out when "
                   "every PATH is named <address>.mbox[.gz|.bz2|.xz].")
@click.option("--private", is_flag=True,
              help="Mark the list private (its mail is never served) before importing any of it.")
@database_option
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def import_command(list_address, private, database_url, paths) -> None:
    """Import mbox files (plain, .gz, .bz2, .xz), pipermail monthly .txt archives, maildir
    folders, or folders of such files. Running it again adds nothing."""
    if not list_address:
        names = {list_address_from_name(path) for path in paths}
        if len(names) != 1 or None in names:
            raise click.UsageError("Give --list ADDRESS (the file names do not all name the same "
                                   "list as <address>.mbox.gz).")
        list_address = names.pop()
    if "@" not in list_address:
        raise click.BadParameter(f"{list_address!r} is not a posting address (name@domain).",
                                 param_hint="--list")
    summary = import_archive(engine_for(database_url), list_address, paths, private=private,
                             progress=sys.stderr.isatty())
    click.echo(summary.describe())


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
