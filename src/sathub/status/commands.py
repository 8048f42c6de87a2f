"""`sathub catalog ...`, `sathub status import-legacy`, `sathub admin add-user`: interface A's
commands, and the default catalog that `sathub serve` loads into an empty database."""

from __future__ import annotations

import csv
import getpass
import os
import sys
from importlib import resources
from pathlib import Path

import click

from sathub import db
from sathub.cli_options import database_option, engine_for
from sathub.db.dialect import MAX_INTEGER
from sathub.status import rules
from sathub.status.admin import passwords
from sathub.status.migrate import importer
from sathub.status.orbits.commands import elements
from sathub.status.orbits.recheck import recheck
from sathub.status.store import accounts
from sathub.status.store import catalog as catalog_store

DEFAULT_CATALOG = resources.files("sathub") / "data" / "catalog.csv"
DEFAULT_ALIASES = resources.files("sathub") / "data" / "aliases.csv"


def _csv_rows(path) -> list[dict]:
    with (
        resources.as_file(Path(path) if isinstance(path, str) else path) as file,
        open(file, newline="", encoding="utf-8") as handle,
    ):
        return list(csv.DictReader(handle))


def load_catalog(conn, path=DEFAULT_CATALOG) -> int:
    """The satellites of a catalog CSV, then the shipped retired names that point at them."""
    added = catalog_store.load_catalog(conn, _csv_rows(path))
    catalog_store.load_aliases(conn, _csv_rows(DEFAULT_ALIASES))
    return added


def load_default_catalog_if_empty(engine) -> int | None:
    """How many satellites were loaded into an empty catalog; None when it had some."""
    with db.connect(engine, write=True) as conn:
        db.one_at_a_time(conn)  # several processes starting at once load it once
        return load_catalog(conn) if catalog_store.catalog_is_empty(conn) else None


@click.group()
def catalog() -> None:
    """The satellite catalog (API names, display names, websites, aliases)."""


@catalog.command("list")
@database_option
def catalog_list(database_url) -> None:
    """Print the catalog as CSV (name, display_name, website, aliases, norad_id)."""
    with db.connect(engine_for(database_url)) as conn:
        writer = csv.writer(sys.stdout)
        writer.writerow(["name", "display_name", "website", "aliases", "norad_id"])
        for sat in catalog_store.catalog_with_aliases(conn):
            aliases = " ".join(sat["aliases"])
            writer.writerow([sat["api_name"], sat["display_name"], sat["website"], aliases, sat["norad_id"] or ""])


@catalog.command("load")
@click.argument("file", type=click.Path(exists=True, dir_okay=False), required=False)
@database_option
def catalog_load(file, database_url) -> None:
    """Add the satellites of FILE.csv (columns name, display_name, website); default: the shipped catalog.

    Existing API names are updated in place; nothing is removed."""
    with db.connect(engine_for(database_url), write=True) as conn:
        added = load_catalog(conn, file or DEFAULT_CATALOG)
    click.echo(f"{added} satellites added or updated.")


@catalog.command("add")
@click.argument("name")
@click.option("--display-name", default=None, help="Shown on the page (default: NAME).")
@click.option("--website", default="", help="Link for the status page row.")
@click.option(
    "--norad-id",
    type=click.IntRange(1, MAX_INTEGER),
    default=None,
    help="Its NORAD catalog number, which its orbital elements are matched by (modes share one).",
)
@database_option
def catalog_add(name, display_name, website, norad_id, database_url) -> None:
    """Add (or update) the satellite with API name NAME (an update without --norad-id keeps its number)."""
    if max(len(name), len(display_name or ""), len(website)) > rules.CATALOG_TEXT_LIMIT:
        limit = rules.CATALOG_TEXT_LIMIT
        raise click.UsageError(f"NAME, --display-name and --website hold at most {limit} characters.")
    if website and not rules.is_web_url(website):
        raise click.BadParameter("Give an http:// or https:// address.", param_hint="--website")
    with db.connect(engine_for(database_url), write=True) as conn:
        entry = {
            "name": name,
            "display_name": display_name or name,
            "website": website,
            "norad_id": str(norad_id or ""),
        }
        catalog_store.load_catalog(conn, [entry])
    click.echo(f"Added {name}.")


@catalog.command("remove")
@click.argument("name")
@database_option
def catalog_remove(name, database_url) -> None:
    """Remove the satellite NAME from the catalog (its reports stay readable)."""
    with db.connect(engine_for(database_url), write=True) as conn:
        if not catalog_store.remove_satellite(conn, name):
            raise click.ClickException(f"No satellite named {name!r}.")
    click.echo(f"Removed {name}.")


@catalog.command("alias")
@click.argument("alias")
@click.argument("name", required=False)
@click.option("--remove", is_flag=True, help="Forget ALIAS instead of adding it.")
@database_option
def catalog_alias(alias, name, remove, database_url) -> None:
    """Make the retired name ALIAS store its reports under the satellite NAME (or --remove it)."""
    with db.connect(engine_for(database_url), write=True) as conn:
        if remove:
            if not catalog_store.remove_alias(conn, alias):
                raise click.ClickException(f"No alias {alias!r}.")
            click.echo(f"Removed alias {alias}.")
            return
        if not name:
            raise click.UsageError("NAME is required unless --remove is given.")
        error = catalog_store.add_alias(conn, alias, name)
        if error:
            raise click.ClickException(error)
    click.echo(f"{alias} now stores reports under {name}.")


catalog.add_command(elements)


@click.group()
def status() -> None:
    """Satellite status reports (interface A)."""


@status.command("import-legacy")
@click.argument("source")
@database_option
def import_legacy(source, database_url) -> None:
    """Import reports (and the catalog) of an existing deployment.

    SOURCE is its MariaDB/MySQL database (mysql://user:pass@host/db) or a CSV export of its
    report table. Running it twice adds nothing."""
    engine = engine_for(database_url)
    try:
        summary = importer.run(engine, source, progress=sys.stderr.isatty())
    except importer.SourceError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(summary.describe())


status.add_command(recheck)


@click.group()
def admin() -> None:
    """Administrators of the catalog pages."""


@admin.command("add-user")
@click.argument("name")
@click.option("--email", default="", help="Contact address (optional).")
@database_option
def admin_add_user(name, email, database_url) -> None:
    """Create (or reset the password of) administrator NAME.

    The password comes from SATHUB_ADMIN_PASSWORD, else it is asked on the terminal."""
    problem = accounts.name_problem(name) or accounts.email_problem(email)
    if problem:
        raise click.ClickException(problem)
    password = os.environ.get("SATHUB_ADMIN_PASSWORD")
    if not password:
        password = getpass.getpass("Password: ")
        if password != getpass.getpass("Again: "):
            raise click.ClickException("The passwords differ.")
    if len(password) < 8:
        raise click.ClickException("Use at least 8 characters.")
    if len(password.encode()) > passwords.MAX_BYTES:
        raise click.ClickException(f"Use at most {passwords.MAX_BYTES} bytes (bcrypt reads no further).")
    with db.connect(engine_for(database_url), write=True) as conn:
        accounts.save_user(conn, name, passwords.hash_password(password), email)
    click.echo(f"Administrator {name} saved.")
