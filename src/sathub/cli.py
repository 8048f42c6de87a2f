"""The front door: sathub serve | db upgrade | catalog ... | status import-legacy | archive ... | admin ..."""

from __future__ import annotations

import os
import resource

import click

from sathub.archive.commands import archive
from sathub.cli_options import database_option, engine_for
from sathub.config import Settings
from sathub.status.commands import admin, catalog, load_default_catalog_if_empty, status


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
@click.option("--db-pool-size", envvar="SATHUB_DB_POOL_SIZE", type=click.IntRange(1), default=None,
              help="Database connections each process keeps open (5).")
@click.option("--db-max-overflow", envvar="SATHUB_DB_MAX_OVERFLOW", type=click.IntRange(0), default=None,
              help="More connections a process may open under load (5). A process holds at most "
                   "pool + overflow + 1; keep processes x that below PostgreSQL's max_connections.")
def serve(host, port, workers, database_url, base_url, log_level, db_pool_size, db_max_overflow) -> None:
    """Migrate the database, load the default catalog when empty, and serve HTTP."""
    import uvicorn

    settings = Settings.from_env(host=host, port=port, workers=workers, database_url=database_url,
                                 base_url=base_url, log_level=log_level, db_pool_size=db_pool_size,
                                 db_max_overflow=db_max_overflow)
    if not settings.secret_key:
        settings = Settings.from_env(**{**settings.__dict__, "secret_key": os.urandom(32).hex()})
    engine = engine_for(settings.database_url)
    added = load_default_catalog_if_empty(engine)
    if added is not None:
        click.echo(f"Loaded the default catalog: {added} satellites.")
    engine.dispose()
    _allow_open_files(settings.max_connections + 256)  # sockets, plus the database and files
    os.environ.update(settings.to_env())
    click.echo(f"Serving on http://{settings.host}:{settings.port}{settings.prefix}/")
    uvicorn.run("sathub.app:app_from_env", factory=True, host=settings.host, port=settings.port,
                workers=settings.workers, log_level=settings.log_level,
                access_log=settings.log_level == "debug", loop="uvloop",
                http="sathub.server.http_protocol:GuardedHttpToolsProtocol", proxy_headers=True, server_header=False)


def _allow_open_files(wanted: int) -> None:
    """Raise this process's soft limit on open files (often 1,024) toward `wanted`, so the
    connection limit, not the file limit, is what a flood of idle sockets meets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


@main.group("db")
def db_group() -> None:
    """Database schema."""


@db_group.command("upgrade")
@database_option
def db_upgrade(database_url) -> None:
    """Create or migrate the schema to the newest revision."""
    engine_for(database_url)
    click.echo("Database is up to date.")


for group in (catalog, status, archive, admin):
    main.add_command(group)
