"""The front door: sathub serve | db upgrade | catalog ... | status import-legacy | archive ... | admin ..."""

from __future__ import annotations

import csv
import getpass
import os
import sys
from importlib import resources
from pathlib import Path

import click

from sathub import db
from sathub.archive.commands import archive
from sathub.commands import database_option, engine_for
from sathub.config import Settings

DEFAULT_CATALOG = resources.files("sathub") / "data" / "catalog.csv"
DEFAULT_ALIASES = resources.files("sathub") / "data" / "aliases.csv"

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sathub")
def main() -> None:
    """sathub: the AMSAT satellite status API and a HyperKitty-compatible archive API."""


@main.command()
@click.option("--host", envvar="SATHUB_HOST", default=None, help="Interface to bind (127.0.0.1).")
@click.option("--port", envvar="SATHUB_PORT", type=int, default=None, help="TCP port (8000).")
@click.option("--workers", envvar="SATHUB_WORKERS", type=int, default=None, help="Worker processes (1).")
@database_option
@click.option("--base-url", envvar="SATHUB_BASE_URL", default=None,
              help="Public base URL with optional path prefix, e.g. https://www.amsat.org/status.")
@click.option("--log-level", envvar="SATHUB_LOG_LEVEL", default=None,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
def serve(host, port, workers, database_url, base_url, log_level) -> None:
    """Migrate the database, load the default catalog when empty, and serve HTTP."""
    import uvicorn

    from sathub.status import store

    settings = Settings.from_env(host=host, port=port, workers=workers, database_url=database_url,
                                 base_url=base_url, log_level=log_level)
    if not settings.secret_key:
        settings = Settings.from_env(**{**settings.__dict__, "secret_key": os.urandom(32).hex()})
    engine = engine_for(settings.database_url)
    with db.connect(engine, write=True) as conn:
        if store.catalog_is_empty(conn):
            added = _load_catalog(conn, DEFAULT_CATALOG)
            click.echo(f"Loaded the default catalog: {added} satellites.")
    engine.dispose()
    os.environ.update(settings.to_env())
    click.echo(f"Serving on http://{settings.host}:{settings.port}{settings.prefix}/")
    uvicorn.run("sathub.app:app_from_env", factory=True, host=settings.host, port=settings.port,
                workers=settings.workers, log_level=settings.log_level,
                access_log=settings.log_level == "debug", loop="uvloop", http="httptools",
                proxy_headers=True, server_header=False)


@main.group("db")
def db_group() -> None:
    """Database schema."""


@db_group.command("upgrade")
@database_option
def db_upgrade(database_url) -> None:
    """Create or migrate the schema to the newest revision."""
    engine_for(database_url)
    click.echo("Database is up to date.")


@main.group()
def catalog() -> None:
    """The satellite catalog (API names, display names, websites, aliases)."""


def _load_catalog(conn, path) -> int:
    from sathub.status import store

    with resources.as_file(Path(path) if isinstance(path, str) else path) as file:
        with open(file, newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.DictReader(handle)]
    added = store.load_catalog(conn, rows)
    with resources.as_file(DEFAULT_ALIASES) as aliases_file:
        with open(aliases_file, newline="", encoding="utf-8") as handle:
            store.load_aliases(conn, list(csv.DictReader(handle)))
    return added


@catalog.command("list")
@database_option
def catalog_list(database_url) -> None:
    """Print the catalog as CSV (name, display_name, website, aliases)."""
    from sathub.status import store

    with db.connect(engine_for(database_url)) as conn:
        writer = csv.writer(sys.stdout)
        writer.writerow(["name", "display_name", "website", "aliases"])
        for sat in store.catalog_with_aliases(conn):
            writer.writerow([sat["api_name"], sat["display_name"], sat["website"], " ".join(sat["aliases"])])


@catalog.command("load")
@click.argument("file", type=click.Path(exists=True, dir_okay=False), required=False)
@database_option
def catalog_load(file, database_url) -> None:
    """Add the satellites of FILE.csv (columns name, display_name, website); default: the shipped catalog.

    Existing API names are updated in place; nothing is removed."""
    with db.connect(engine_for(database_url), write=True) as conn:
        added = _load_catalog(conn, file or DEFAULT_CATALOG)
    click.echo(f"{added} satellites added or updated.")


@catalog.command("add")
@click.argument("name")
@click.option("--display-name", default=None, help="Shown on the page (default: NAME).")
@click.option("--website", default="", help="Link for the status page row.")
@database_option
def catalog_add(name, display_name, website, database_url) -> None:
    """Add (or update) the satellite with API name NAME."""
    from sathub.status import store

    with db.connect(engine_for(database_url), write=True) as conn:
        store.load_catalog(conn, [{"name": name, "display_name": display_name or name, "website": website}])
    click.echo(f"Added {name}.")


@catalog.command("remove")
@click.argument("name")
@database_option
def catalog_remove(name, database_url) -> None:
    """Remove the satellite NAME from the catalog (its reports stay readable)."""
    from sathub.status import store

    with db.connect(engine_for(database_url), write=True) as conn:
        if not store.remove_satellite(conn, name):
            raise click.ClickException(f"No satellite named {name!r}.")
    click.echo(f"Removed {name}.")


@catalog.command("alias")
@click.argument("alias")
@click.argument("name", required=False)
@click.option("--remove", is_flag=True, help="Forget ALIAS instead of adding it.")
@database_option
def catalog_alias(alias, name, remove, database_url) -> None:
    """Make the retired name ALIAS store its reports under the satellite NAME (or --remove it)."""
    from sathub.status import store

    with db.connect(engine_for(database_url), write=True) as conn:
        if remove:
            if not store.remove_alias(conn, alias):
                raise click.ClickException(f"No alias {alias!r}.")
            click.echo(f"Removed alias {alias}.")
            return
        if not name:
            raise click.UsageError("NAME is required unless --remove is given.")
        error = store.add_alias(conn, alias, name)
        if error:
            raise click.ClickException(error)
    click.echo(f"{alias} now stores reports under {name}.")


@main.group()
def status() -> None:
    """Satellite status reports (interface A)."""


@status.command("import-legacy")
@click.argument("source")
@database_option
def import_legacy(source, database_url) -> None:
    """Import reports (and the catalog) of an existing deployment.

    SOURCE is its MariaDB/MySQL database (mysql://user:pass@host/db) or a CSV export of its
    report table. Running it twice adds nothing."""
    from sathub.status import legacy_import

    engine = engine_for(database_url)
    try:
        summary = legacy_import.run(engine, source, progress=sys.stderr.isatty())
    except legacy_import.SourceError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(summary.describe())


@main.group()
def admin() -> None:
    """Administrators of the catalog pages."""


@admin.command("add-user")
@click.argument("name")
@click.option("--email", default="", help="Contact address (optional).")
@database_option
def admin_add_user(name, email, database_url) -> None:
    """Create (or reset the password of) administrator NAME.

    The password comes from SATHUB_ADMIN_PASSWORD, else it is asked on the terminal."""
    from sathub.status import passwords, store

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
        store.save_user(conn, name, passwords.hash_password(password), email)
    click.echo(f"Administrator {name} saved.")


main.add_command(archive)
