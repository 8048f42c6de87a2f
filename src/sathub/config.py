"""Settings from command-line flags and SATHUB_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urlsplit

DEFAULT_DATABASE_URL = "sqlite:///var/sathub.db"


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    # Public base URL: scheme, host and optional path prefix (e.g. https://www.amsat.org/status).
    # Empty means: build links from each request and serve at the root.
    base_url: str = ""
    # Host headers answered (comma-separated; `.example.org` includes subdomains); empty: any
    # well-formed host. A malformed Host is always refused (hosts.py).
    allowed_hosts: str = ""
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    log_level: str = "info"
    # Signs admin session cookies; shared by every process of a deployment.
    secret_key: str = ""
    # Optional deploy facts sent as X-AMSAT-API-Commit / X-AMSAT-API-Deployed-At.
    commit: str = ""
    deployed_at: str = ""
    # PostgreSQL connections of one process: kept open, and opened beyond those under load. With
    # the revision probe's own connection a process holds at most pool + overflow + 1 of them.
    db_pool_size: int = 5
    db_max_overflow: int = 5
    # Seconds the database work of one request (or one shared write transaction) may take on
    # PostgreSQL before its connection is cut and it answers 503 (0: no limit). A server that
    # stops answering is noticed sooner, by the 0.5 s deadline of its trivial queries (deadlines.py).
    db_timeout: int = 10
    # Connection limits of each process (http_protocol.py): the size of a request's headers, the
    # seconds they may take to arrive, and the connections kept open at once.
    max_header_bytes: int = 65536
    header_timeout: int = 10
    max_connections: int = 4096
    # Legacy form submissions allowed per client and minute (0 disables the limit).
    submit_rate_per_minute: int = 30
    # Mailman's archiver (the `hyperkitty` plugin): the key it sends as `Authorization: Token <key>`
    # (empty: the archiver endpoints refuse every call), the source addresses and CIDR ranges it
    # may call from (comma-separated), and the largest POST body taken (a message with its parts).
    archiver_key: str = ""
    archiver_from: str = "127.0.0.1/32,::1/128"
    archiver_max_bytes: int = 25 * 1024 * 1024
    # Mailman core's REST API (the root without a version, e.g. http://127.0.0.1:8001), where list
    # names, descriptions and archive policies come from; empty: lists are public unless --private.
    mailman_rest_url: str = ""
    mailman_rest_user: str = ""
    mailman_rest_password: str = ""

    @classmethod
    def from_env(cls, environ: os._Environ | dict | None = None, **overrides) -> "Settings":
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = environ.get(f"SATHUB_{f.name.upper()}")
            if raw is not None:
                values[f.name] = int(raw) if f.type == "int" else raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        return replace(settings, base_url=settings.base_url.rstrip("/"))

    def to_env(self) -> dict[str, str]:
        """The environment that makes from_env() rebuild these settings (for worker processes)."""
        return {f"SATHUB_{f.name.upper()}": str(getattr(self, f.name)) for f in fields(self)}

    @property
    def prefix(self) -> str:
        """Path prefix of the public base URL, '' or '/something' without a trailing slash."""
        return urlsplit(self.base_url).path.rstrip("/") if self.base_url else ""
