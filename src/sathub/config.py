"""Settings from command-line flags and SATHUB_* environment variables, each checked once, at
start-up: a value a setting does not accept is one line that names the setting and what it
accepts (SettingError), never a traceback and never a silent stand-in."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

DEFAULT_DATABASE_URL = "sqlite:///var/sathub.db"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
# The backends sathub runs on (a URL of another, e.g. mysql://, is refused before it is touched).
BACKENDS = ("sqlite", "postgresql", "postgres")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
CLIENT_SHARE_DIVISOR = 4  # one client address holds at most a quarter of a process's connections


class SettingError(ValueError):
    """A setting's value is not one it accepts; the text names the setting, what it accepts and
    what it got."""


def _integer(low: int, high: int | None = None) -> tuple[str, Callable[[Any], bool]]:
    accepts = f"an integer from {low} to {high}" if high is not None else f"an integer of at least {low}"
    return accepts, lambda value: value >= low and (high is None or value <= high)


def _web_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _readable_file(value: str) -> bool:
    return os.path.isfile(value) and os.access(value, os.R_OK)


def _database_url(value: str) -> bool:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        backend = make_url(value).get_backend_name()
    except ArgumentError:
        return False
    return backend in BACKENDS


@lru_cache(maxsize=16)
def parse_networks(text: str) -> tuple[Network, ...] | None:
    """The networks of a comma-separated list of addresses and CIDR ranges (a bare address is a
    network of one); `*` or `any` among them: every address (None). ValueError names an entry
    that is neither."""
    entries = [entry.strip() for entry in text.split(",") if entry.strip()]
    if any(entry.lower() in ("*", "any") for entry in entries):
        return None
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an address or CIDR range") from None
    return tuple(networks)


def address_in(address: str, networks: tuple[Network, ...] | None) -> bool:
    """Whether a client address is in `networks` (None: every address is). An IPv4 address seen
    through a dual-stack socket (::ffff:127.0.0.1) is its IPv4 address; a name is in none."""
    if networks is None:
        return True
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in networks if network.version == ip.version)


def _networks(value: str) -> bool:
    try:
        parse_networks(value)
    except ValueError:
        return False
    return True


# Names public-inbox's forms keep for themselves (archive/public_inbox/names.py).
RESERVED_INBOX_NAMES = frozenset(("all", "r", "_"))


def parse_inbox_renames(text: str) -> dict[str, str]:
    """SATHUB_PUBLIC_INBOX_NAMES as a dict (list address -> inbox name); ValueError for a pair
    that is no `address=name`, a name used twice, or one that is no path segment of its own."""
    renames: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        address, equals, name = (side.strip() for side in pair.partition("="))
        if not equals or "@" not in address or not name or "/" in name or name in RESERVED_INBOX_NAMES:
            raise ValueError(pair)
        if name in renames.values():
            raise ValueError(name)
        renames[address.lower()] = name
    return renames


def _inbox_renames(value: str) -> bool:
    try:
        parse_inbox_renames(value)
    except ValueError:
        return False
    return True


# RFC 3977 4.1's advice for a newsgroup's name: dot-separated parts of letters, digits, +, - and _
# (nothing a wildmat reads as a pattern).
_GROUP_NAME = re.compile(r"[A-Za-z0-9+_-]+(\.[A-Za-z0-9+_-]+)*")


def parse_group_renames(text: str) -> dict[str, str]:
    """SATHUB_NNTP_GROUP_NAMES as a dict (list address -> newsgroup); ValueError for a pair that
    is no `address=group`, a group named twice, or a name RFC 3977 advises against."""
    renames: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        address, equals, name = (side.strip() for side in pair.partition("="))
        if not equals or "@" not in address or not _GROUP_NAME.fullmatch(name) or name in renames.values():
            raise ValueError(pair)
        renames[address.lower()] = name
    return renames


def _group_renames(value: str) -> bool:
    try:
        parse_group_renames(value)
    except ValueError:
        return False
    return True


def _setting(default: Any, accepts: tuple[str, Callable[[Any], bool]] | None = None, flag: str | None = None):
    """A setting's default, what it accepts (a phrase and a check), and its command-line flag."""
    return field(default=default, metadata={"accepts": accepts, "flag": flag})


ANY_TEXT = None
NETWORKS = ("comma-separated addresses and CIDR ranges, or *", _networks)
WEB_URL_OR_NOTHING = ("an http:// or https:// URL, or nothing", lambda value: value == "" or _web_url(value))


@dataclass(frozen=True)
class Settings:
    database_url: str = _setting(
        DEFAULT_DATABASE_URL, ("a sqlite:///PATH or postgresql://… URL", _database_url), "--database-url"
    )
    # Public base URL: scheme, host and optional path prefix (e.g. https://www.amsat.org/status).
    # Empty means: build links from each request and serve at the root.
    base_url: str = _setting("", WEB_URL_OR_NOTHING, "--base-url")
    # Host headers answered (comma-separated; `.example.org` includes subdomains); empty: any
    # well-formed host. A malformed Host is always refused (server/hosts.py).
    allowed_hosts: str = _setting("", ANY_TEXT)
    host: str = _setting("127.0.0.1", ("an address to listen on", bool), "--host")
    port: int = _setting(8000, _integer(1, 65535), "--port")
    workers: int = _setting(1, _integer(1, 256), "--workers")
    log_level: str = _setting("info", ("one of " + ", ".join(LOG_LEVELS), LOG_LEVELS.__contains__), "--log-level")
    # A line per answered request, at info, in the Combined Log Format and its duration
    # (server/request_log.py); 0: none. Answers of 5xx are logged either way, at warning.
    access_log: int = _setting(1, ("1 (on) or 0 (off)", (0, 1).__contains__))
    # Signs admin session cookies; shared by every process of a deployment.
    secret_key: str = _setting("", ANY_TEXT)
    # Optional deploy facts sent as X-AMSAT-API-Commit / X-AMSAT-API-Deployed-At.
    commit: str = _setting("", ANY_TEXT)
    deployed_at: str = _setting("", ANY_TEXT)
    # PostgreSQL connections of one process: kept open, and opened beyond those under load. With
    # the revision probe's own connection a process holds at most pool + overflow + 1 of them.
    db_pool_size: int = _setting(5, _integer(1, 1000), "--db-pool-size")
    db_max_overflow: int = _setting(5, _integer(0, 1000), "--db-max-overflow")
    # Seconds the database work of one request (or one shared write transaction) may take on
    # PostgreSQL before its connection is cut and it answers 503 (0: no limit). A server that
    # stops answering is noticed sooner, by the 0.5 s deadline of its trivial queries (db/deadlines.py).
    db_timeout: int = _setting(10, _integer(0))
    # Connection limits of each process (server/http_protocol.py): the size of a request's headers,
    # the seconds they may take to arrive, the seconds a request's body may take once its headers
    # are in, the connections kept open at once, and the share of those one client address may
    # hold, at most a quarter of them (connection_share; 0: no share; the trusted proxies are
    # exempt, their clients are many).
    max_header_bytes: int = _setting(65536, _integer(1024, 1 << 24))
    header_timeout: int = _setting(10, _integer(1, 3600))
    body_timeout: int = _setting(30, _integer(1, 3600))
    max_connections: int = _setting(4096, _integer(1, 1 << 20))
    max_connections_per_client: int = _setting(512, _integer(0, 1 << 20))
    # Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (comma-separated addresses
    # and CIDR ranges); empty: none, a client's address is its connection's.
    trusted_proxies: str = _setting("", NETWORKS)
    # Legacy form submissions, and reports POSTed to the API, allowed per client address and
    # minute (beyond: 429; 0 disables the limit).
    submit_rate_per_minute: int = _setting(30, _integer(0))
    api_rate_per_minute: int = _setting(60, _integer(0))
    # GET /api/v2/stream: subscribers one process serves at once (beyond: 503 with Retry-After),
    # and the hours its events are kept for clients that resume with Last-Event-ID (at least 24).
    stream_max_subscribers: int = _setting(2000, _integer(0, 1 << 20))
    stream_retention_hours: int = _setting(48, _integer(24, 24 * 365))
    # Reports whose satellite was below their grid square's horizon (visible = false): `mark` them
    # only (the grid's colours count every report, as upstream's), or `exclude` them from the status
    # page's grid and /api/v2/status (docs/orbits.md, "Where visibility shows"; /api/v1 never changes).
    status_implausible: str = _setting("mark", ("mark or exclude", ("mark", "exclude").__contains__))
    # Orbital elements fetched by `sathub serve` (TLE or CelesTrak's OMM JSON/CSV; empty: no refresh)
    # every so many seconds, by one process at a time (docs/orbits.md, "Elements"). CelesTrak updates
    # its GP data every 2 hours and asks clients to fetch no more often: at least an hour here.
    elements_url: str = _setting("", WEB_URL_OR_NOTHING)
    elements_refresh: int = _setting(6 * 3600, _integer(3600))
    # Days between a satellite's current elements' epoch and every moment they are used for: a
    # report's quarter-hour (checked against the sky; beyond, `visible` is null) and a pass
    # prediction's window (docs/orbits.md). SGP4's error grows by ~1-3 km a day in low orbit: a week
    # is ~0.5° at the horizon.
    elements_max_age_days: int = _setting(7, _integer(1, 365))
    # Webhooks (docs/orbits.md, "Webhooks"): 1 lets them reach loopback, private, link-local and
    # other non-public addresses (internal bots; by default refused, checked on the address each
    # connection goes to); the seconds one attempt may take (connect, each read, the whole); the
    # hours a hook may fail in a row, retried with a growing delay, before it is disabled.
    webhooks_allow_private: int = _setting(0, ("1 (allowed) or 0 (refused)", (0, 1).__contains__))
    webhook_timeout: int = _setting(10, _integer(1, 60))
    webhook_retry_hours: int = _setting(24, _integer(1, 24 * 7))
    # 1: this process delivers webhooks (one process at a time per hook, whichever takes its lease);
    # 0: it does not, e.g. processes kept for reads while others deliver.
    webhook_delivery: int = _setting(1, ("1 (delivers) or 0 (does not)", (0, 1).__contains__))
    # Mailman's archiver (the `hyperkitty` plugin): the key it sends as `Authorization: Token <key>`
    # (empty: the archiver endpoints refuse every call), the source addresses and CIDR ranges it
    # may call from (comma-separated), and the largest POST body taken (a message with its parts).
    archiver_key: str = _setting("", ANY_TEXT)
    archiver_from: str = _setting("127.0.0.1/32,::1/128", NETWORKS)
    archiver_max_bytes: int = _setting(25 * 1024 * 1024, _integer(1024))
    # MIME parts of one archived message (the message itself, each part, each part of an attached
    # message) that are split out into its text and attachments, by the archiver and by `archive
    # import`; the parser stops at the next one, and what follows is kept in the source only.
    max_message_parts: int = _setting(1000, _integer(1, 1_000_000))
    # mbox exports (`…/export/<name>.mbox.gz`) streamed at once by one process; beyond: 503 with
    # Retry-After. Each holds a worker thread while it reads a chunk, and a client's bandwidth.
    max_exports: int = _setting(4, _integer(1, 1000))
    # Matches a search counts exactly; beyond, its answer says "more than" this many, and the count
    # stops there instead of reading every match (docs/archive-search.md, "Counts").
    search_count_limit: int = _setting(10_000, _integer(1))
    # Milliseconds a search's statements may take (JSON API and page) before the database stops
    # them and the search answers 400 (0: no deadline): about three times the slowest query of the
    # search mix at 1,000,000 messages (docs/archive-search.md, "Deadline").
    search_timeout_ms: int = _setting(2000, _integer(0))
    # Per client address (behind SATHUB_TRUSTED_PROXIES, X-Forwarded-For's), the searches (JSON,
    # page, feed) and the exports (a list's, a search's) allowed a minute, a minute's worth at once
    # (beyond: 429 with Retry-After; 0: no budget). Measured in docs/archive-crawlers.md, "Budgets".
    search_budget: int = _setting(60, _integer(0))
    export_budget: int = _setting(10, _integer(0))
    # A client address's reads (GET, HEAD) of the archive worked on at once by one process, half of
    # them while another address asks; its others wait their turn (archive/turns.py; 0: no limit).
    # Behind SATHUB_TRUSTED_PROXIES, by X-Forwarded-For. Measured in docs/archive-crawlers.md, "Turns".
    archive_turns: int = _setting(2, _integer(0, 1000))
    # Seconds an export's client may take none of its bytes before the export is cut and its slot
    # given back (archive/export/sending.py); one client address holds at most half the slots.
    export_write_timeout: int = _setting(30, _integer(1, 3600))
    # Cache-Control's max-age of the archive's answers, in seconds (archive/caching.py): a message
    # page, its raw source and a message's export; the index, list, month and thread pages, feeds,
    # the read API and exports, which caches may also serve stale for stale_while_revalidate while
    # they ask again; search answers (docs/archive-caching.md).
    archive_max_age_message: int = _setting(86400, _integer(0))
    archive_max_age_listing: int = _setting(60, _integer(0))
    archive_stale_while_revalidate: int = _setting(60, _integer(0))
    archive_max_age_search: int = _setting(60, _integer(0))
    # The file served as /robots.txt (archive/crawlers/robots.py); empty: the default, which keeps
    # crawlers out of searches, exports and administration and names each list's sitemap index.
    robots_txt: str = _setting(
        "", ("a readable file's path, or nothing", lambda value: value == "" or _readable_file(value))
    )
    # Mailman core's REST API (the root without a version, e.g. http://127.0.0.1:8001), where list
    # names, descriptions and archive policies come from; empty: lists are public unless --private.
    mailman_rest_url: str = _setting("", WEB_URL_OR_NOTHING)
    mailman_rest_user: str = _setting("", ANY_TEXT)
    mailman_rest_password: str = _setting("", ANY_TEXT)
    # The archive's read-only NNTP server (docs/archive-nntp.md): the TCP port `sathub serve` listens
    # on for it, on SATHUB_HOST (0: none); the seconds a connection may send nothing before it is
    # closed (RFC 3977 3.1: at least 3 minutes); the most articles one OVER, XOVER, HDR or XHDR
    # answers (the first ones of a larger range). Its connections are held to the HTTP limits'
    # counts (SATHUB_MAX_CONNECTIONS, SATHUB_MAX_CONNECTIONS_PER_CLIENT), counted apart.
    nntp_port: int = _setting(0, _integer(0, 65535), "--nntp-port")
    nntp_idle_timeout: int = _setting(180, _integer(180, 86400))
    nntp_max_range: int = _setting(10_000, _integer(1, 1_000_000))
    # `address=group,…` renames a public list's newsgroup from lore's name (its domain reversed,
    # then its local part).
    nntp_group_names: str = _setting("", ("comma-separated address=group pairs", _group_renames))
    # public-inbox's inbox names (docs/public-inbox.md): `address=name,…` renames a public list's
    # inbox from its default (its address's local part when unique among public lists, else the
    # address); a name is one path segment other than `all`, `r` and `_`.
    public_inbox_names: str = _setting("", ("comma-separated address=name pairs", _inbox_renames))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> Settings:
        """The settings of the flags given (`overrides`, None: not given), else of SATHUB_*, else
        the defaults. Raises SettingError for a value a setting does not accept."""
        values = {f.name: setting(f.name, overrides.get(f.name), environ) for f in fields(cls)}
        settings = cls(**values)
        return replace(settings, base_url=settings.base_url.rstrip("/"))

    def to_env(self) -> dict[str, str]:
        """The environment that makes from_env() rebuild these settings (for worker processes)."""
        return {env_name(f.name): str(getattr(self, f.name)) for f in fields(self)}

    @property
    def connection_share(self) -> int:
        """The connections one client address may hold in a process (0: no share): its setting,
        but never more than 1/CLIENT_SHARE_DIVISOR of the process's, so that one address never
        holds every connection (a share of 512 beside SATHUB_MAX_CONNECTIONS=300 once let 320 slow
        bodies from one address keep every other client waiting)."""
        if not self.max_connections_per_client:
            return 0
        return min(self.max_connections_per_client, max(1, self.max_connections // CLIENT_SHARE_DIVISOR))

    @property
    def prefix(self) -> str:
        """Path prefix of the public base URL, '' or '/something' without a trailing slash."""
        return urlsplit(self.base_url).path.rstrip("/") if self.base_url else ""


def setting(name: str, flag_value: Any = None, environ: Mapping[str, str] | None = None) -> Any:
    """One setting: the flag's value when given (not None), else its SATHUB_* variable, else its
    default; SettingError for a value it does not accept."""
    environ = os.environ if environ is None else environ
    described = _FIELDS[name]
    if flag_value is not None:
        return _parsed(described, flag_value, flag=True)
    if (raw := environ.get(env_name(name))) is not None:
        return _parsed(described, raw, flag=False)
    return described.default


_FIELDS = {f.name: f for f in fields(Settings)}


def env_name(name: str) -> str:
    return f"SATHUB_{name.upper()}"


def describe(name: str) -> str:
    """How a setting is given: `SATHUB_PORT (--port)`."""
    flag = _FIELDS[name].metadata["flag"]
    return env_name(name) + (f" ({flag})" if flag else "")


def accepts(name: str) -> str:
    """What a setting accepts, in words ("" for any text)."""
    check = _FIELDS[name].metadata["accepts"]
    return check[0] if check else ""


def _parsed(setting, raw: Any, *, flag: bool) -> Any:
    check = setting.metadata["accepts"]
    value = raw
    if setting.type == "int" and not isinstance(raw, int):
        try:
            value = int(str(raw).strip())
        except ValueError:
            value = None
    if value is None or (check is not None and not check[1](value)):
        given = setting.metadata["flag"] if flag else env_name(setting.name)
        raise SettingError(f"{describe(setting.name)} must be {check[0]}; {given} is {str(raw)!r}")
    return value
