"""What every command group shares: the --database-url option and the migrated engine it names."""

from __future__ import annotations

import click

from sathub import db
from sathub.config import DEFAULT_DATABASE_URL, accepts, setting
from sathub.db.engines import DBAPIError, OperationalError

database_option = click.option(
    "--database-url",
    default=None,
    metavar="URL",
    help=f"SQLAlchemy URL: {accepts('database_url')}. Default {DEFAULT_DATABASE_URL}; env SATHUB_DATABASE_URL.",
)


def engine_for(database_url: str | None):
    """The engine of the database, migrated; a database that cannot be reached is one clear line.
    Its connections close when the command ends (a command run in a longer process, as tests and
    `sathub serve`'s helpers do, would otherwise leave them open on the server)."""
    url = setting("database_url", database_url)
    engine = db.create_engine(url)
    click.get_current_context().call_on_close(engine.dispose)
    try:
        db.upgrade(engine)
    except (OperationalError, db.DatabaseUnavailable) as exc:
        shown = db.normalize_url(url).render_as_string(hide_password=True)
        reason = exc.orig if isinstance(exc, DBAPIError) else exc
        raise click.ClickException(f"Cannot reach the database {shown}: {str(reason).strip()}") from exc
    return engine
