"""The front door: sathub serve | db upgrade | catalog | status | archive | admin | webhooks ..."""

from __future__ import annotations

import copy
import os
import resource
import socket
from dataclasses import fields, replace
from typing import Any

import click

from sathub.archive.commands import archive
from sathub.cli_options import database_option, engine_for
from sathub.config import SettingError, Settings, accepts, describe, env_name, parse_networks
from sathub.status.commands import admin, catalog, load_default_catalog_if_empty, status
from sathub.status.notify.webhook_commands import webhooks

APP = "sathub.app:app_from_env"  # an import string: each worker process builds its own app


class _Commands(click.Group):
    """The command group; a setting a command does not accept ends it with one line (exit 2)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except SettingError as error:
            click.echo(f"Error: {error}", err=True)
            ctx.exit(2)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sathub")
def main() -> None:
    """sathub: the AMSAT satellite status API and a HyperKitty-compatible archive API."""


def _setting_option(name: str, help: str):
    """A flag of `serve`, read as text and checked by Settings like its SATHUB_* variable."""
    setting = next(f for f in fields(Settings) if f.name == name)
    shown = f"{help} Accepts {accepts(name)}. Default {setting.default!r}; env {env_name(name)}."
    return click.option(setting.metadata["flag"], name, default=None, metavar="VALUE", help=shown)


def _every_setting() -> str:
    """serve's epilog: each setting's variable, default and what it accepts."""
    lines = ["Every setting, as its SATHUB_* variable (a flag above wins over it):", "", "\b"]
    for setting in fields(Settings):
        what = accepts(setting.name) or "any text"
        lines.append(f"{describe(setting.name)}: {what} (default {setting.default!r})")
    return "\n".join(lines)


@main.command(epilog=_every_setting())
@_setting_option("host", "Interface to bind.")
@_setting_option("port", "TCP port.")
@_setting_option("workers", "Worker processes.")
@_setting_option("database_url", "SQLAlchemy URL of the database.")
@_setting_option("base_url", "Public base URL with optional path prefix, e.g. https://www.amsat.org/status.")
@_setting_option("log_level", "Log level.")
@_setting_option("db_pool_size", "Database connections each process keeps open.")
@_setting_option(
    "db_max_overflow",
    "More connections a process may open under load. A process holds at most "
    "pool + overflow + 1; keep processes x that below PostgreSQL's max_connections.",
)
@_setting_option("nntp_port", "TCP port of the archive's read-only NNTP server (0: none).")
def serve(**flags) -> None:
    """Migrate the database, load the default catalog when empty, and serve HTTP."""
    import uvicorn

    from sathub.server.workers import serve_workers

    settings = Settings.from_env(**flags)
    if not settings.secret_key:
        settings = replace(settings, secret_key=os.urandom(32).hex())
    _can_listen(settings.host, settings.port)
    if settings.nntp_port:
        _can_listen(settings.host, settings.nntp_port)
    engine = engine_for(settings.database_url)
    added = load_default_catalog_if_empty(engine)
    if added is not None:
        click.echo(f"Loaded the default catalog: {added} satellites.")
    engine.dispose()
    _allow_open_files(settings.max_connections + 256)  # sockets, plus the database and files
    if 0 < settings.connection_share < settings.max_connections_per_client:
        click.echo(
            f"A client address holds at most {settings.connection_share} connections, a quarter of "
            f"{describe('max_connections')} ({settings.max_connections}), not "
            f"{describe('max_connections_per_client')} ({settings.max_connections_per_client})."
        )
    os.environ.update(settings.to_env())
    click.echo(f"Serving on http://{settings.host}:{settings.port}{settings.prefix}/")
    if settings.nntp_port:
        click.echo(f"Serving the archive's NNTP on {settings.host}:{settings.nntp_port}")
    options: dict[str, Any] = dict(
        factory=True,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=_log_config(settings.log_level),
        access_log=False,  # sathub's own (server/request_log.py) has the time, the size and the duration
        loop="uvloop",
        http="sathub.server.http_protocol:GuardedHttpToolsProtocol",
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=_as_uvicorn_reads_them(settings.trusted_proxies),
        server_header=False,
    )
    if settings.workers > 1:
        serve_workers(uvicorn.Config(APP, **options), settings.workers)
    else:
        uvicorn.run(APP, **options)


def _log_config(log_level: str) -> dict:
    """uvicorn's logging, with sathub's lines beside its own (stderr, `WARNING:  …`) and the
    access log's on stdout, where uvicorn writes its access log, each line as it is."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["bare"] = {"format": "%(message)s"}
    config["handlers"]["access_lines"] = {
        "formatter": "bare",
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stdout",
    }
    level = log_level.upper()
    config["loggers"]["sathub"] = {"handlers": ["default"], "level": level, "propagate": False}
    config["loggers"]["sathub.access"] = {"handlers": ["access_lines"], "level": level, "propagate": False}
    return config


def _as_uvicorn_reads_them(trusted_proxies: str) -> str | None:
    """SATHUB_TRUSTED_PROXIES as parse_networks reads it (and the per-client share with it), in
    the form uvicorn takes: every address (`*`), or the networks, host bits cleared."""
    if not trusted_proxies:
        return None
    networks = parse_networks(trusted_proxies)
    return "*" if networks is None else ",".join(str(network) for network in networks)


def _can_listen(host: str, port: int) -> None:
    """Fail before anything is printed or migrated when the address cannot be listened on (taken,
    not this machine's): the server binds it again moments later, as this check did."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise click.ClickException(
                f"Cannot listen on {host}:{port} ({describe('host')}, {describe('port')}): {error.strerror or error}"
            ) from None


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


for group in (catalog, status, archive, admin, webhooks):
    main.add_command(group)
