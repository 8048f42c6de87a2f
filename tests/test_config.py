"""Settings (config.py): the defaults README.md documents, SATHUB_* variables and command-line
values over them, a value a setting does not accept refused in one line that names it, the public
base URL without its trailing slash (status-api.md 13, `539dcba`), and the environment that hands
the same settings to every worker process."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sathub import config
from sathub.config import SettingError, Settings

# README.md, "Configuration" (the secret key's default, a random key per start, is made by the CLI
# from this empty one).
DOCUMENTED_DEFAULTS = {
    "database_url": "sqlite:///var/sathub.db",
    "base_url": "",
    "host": "127.0.0.1",
    "port": 8000,
    "workers": 1,
    "log_level": "info",
    "access_log": 1,
    "secret_key": "",
    "commit": "",
    "deployed_at": "",
    "allowed_hosts": "",
    "db_pool_size": 5,
    "db_max_overflow": 5,
    "db_timeout": 10,
    "max_header_bytes": 65536,
    "header_timeout": 10,
    "max_connections": 4096,
    "max_connections_per_client": 512,
    "submit_rate_per_minute": 30,
    "archiver_key": "",
    "archiver_from": "127.0.0.1/32,::1/128",
    "archiver_max_bytes": 26214400,
    "max_message_parts": 1000,
    "max_exports": 4,
    "export_write_timeout": 30,
    "archive_turns": 2,
    "mailman_rest_url": "",
    "mailman_rest_user": "",
    "mailman_rest_password": "",
    "stream_max_subscribers": 2000,
    "stream_retention_hours": 48,
    "status_implausible": "mark",
    "elements_url": "",
    "elements_refresh": 21600,
    "elements_max_age_days": 7,
    "webhooks_allow_private": 0,
    "webhook_timeout": 10,
    "webhook_retry_hours": 24,
    "webhook_delivery": 1,
    "robots_txt": "",
}
FIELDS = {field.name: field for field in dataclasses.fields(Settings)}
# Values that settings which check their values may accept (each setting takes those it accepts).
CANDIDATES = [
    "",
    "sqlite:///other.db",
    "postgresql://sathub@db.example.org/sathub",
    "https://www.amsat.org/status",
    "http://127.0.0.1:8001",
    "0.0.0.0",
    "::1",
    "debug",
    "warning",
    "10.0.0.0/8, 192.0.2.7",
    "*",
    "mark",
    "exclude",
    __file__,  # a readable file (SATHUB_ROBOTS_TXT)
    "dev@example.org=kernel",  # SATHUB_PUBLIC_INBOX_NAMES
]


def accepted(name: str, value) -> bool:
    try:
        config.setting(name, value, {})
    except SettingError:
        return False
    return True


def test_the_documented_defaults():
    defaults = Settings.from_env({})
    assert {name: getattr(defaults, name) for name in DOCUMENTED_DEFAULTS} == DOCUMENTED_DEFAULTS
    assert defaults == Settings()


def test_every_setting_has_its_variable():
    def other_value(name: str):
        default = FIELDS[name].default
        if isinstance(default, int):
            return default + 1 if accepted(name, default + 1) else default - 1
        return next(value for value in [*CANDIDATES, f"{name} value"] if value != default and accepted(name, value))

    values = {name: other_value(name) for name in FIELDS}
    settings = Settings.from_env({config.env_name(name): str(value) for name, value in values.items()})
    assert dataclasses.asdict(settings) == values
    assert config.env_name("db_pool_size") == "SATHUB_DB_POOL_SIZE"


def test_command_line_values_win_over_the_environment():
    environ = {"SATHUB_PORT": "9000", "SATHUB_HOST": "0.0.0.0", "SATHUB_WORKERS": "4"}
    settings = Settings.from_env(environ, port=8080, host=None, workers=None)  # None: the option was not given
    assert (settings.port, settings.host, settings.workers) == (8080, "0.0.0.0", 4)
    assert Settings.from_env({}, database_url="sqlite:///x.db").database_url == "sqlite:///x.db"


def test_the_process_environment_is_read_when_none_is_given(monkeypatch):
    monkeypatch.setenv("SATHUB_LOG_LEVEL", "debug")
    monkeypatch.setenv("SATHUB_DB_POOL_SIZE", "12")
    settings = Settings.from_env()
    assert (settings.log_level, settings.db_pool_size) == ("debug", 12)


def test_variables_of_no_setting_are_ignored():
    assert Settings.from_env({"SATHUB_NO_SUCH": "1", "PORT": "1"}) == Settings()


@pytest.mark.parametrize(
    "name, value",
    [
        ("port", "abc"),
        ("port", "0"),
        ("port", "65536"),
        ("port", ""),
        ("workers", "0"),
        ("db_pool_size", "-1"),
        ("database_url", "mysql://root@127.0.0.1/sathub"),  # neither SQLite nor PostgreSQL
        ("database_url", "var/sathub.db"),
        ("base_url", "www.amsat.org/status"),
        ("base_url", "ftp://www.amsat.org/"),
        ("log_level", "verbose"),
        ("access_log", "2"),
        ("access_log", "on"),
        ("archiver_from", "10.0.0.0/33"),
        ("archiver_from", "localhost"),
        ("status_implausible", "hide"),
    ],
)
def test_a_value_a_setting_does_not_accept_is_one_line_naming_it(name, value):
    variable = config.env_name(name)
    with pytest.raises(SettingError) as from_variable:
        Settings.from_env({variable: value})
    message = str(from_variable.value)
    assert "\n" not in message and variable in message and repr(value) in message
    flag = FIELDS[name].metadata["flag"]
    if flag:
        with pytest.raises(SettingError) as from_flag:
            Settings.from_env({}, **{name: value})
        assert flag in str(from_flag.value) and repr(value) in str(from_flag.value)


@pytest.mark.parametrize(
    "given_url, base_url, prefix",
    [
        ("", "", ""),
        ("https://www.amsat.org", "https://www.amsat.org", ""),
        ("https://www.amsat.org/", "https://www.amsat.org", ""),
        ("https://www.amsat.org/status", "https://www.amsat.org/status", "/status"),
        ("https://www.amsat.org/status/", "https://www.amsat.org/status", "/status"),
        ("http://127.0.0.1:8000/a/b/", "http://127.0.0.1:8000/a/b", "/a/b"),
    ],
)
def test_the_base_url_loses_its_trailing_slash(given_url, base_url, prefix):
    for settings in (Settings.from_env({"SATHUB_BASE_URL": given_url}), Settings.from_env({}, base_url=given_url)):
        assert (settings.base_url, settings.prefix) == (base_url, prefix)


def test_the_prefix_has_no_trailing_slash_even_in_settings_made_directly():
    assert Settings(base_url="https://www.amsat.org/status/").prefix == "/status"
    assert Settings(base_url="https://www.amsat.org/").prefix == ""


@pytest.mark.parametrize(
    "connections, share, effective",
    [
        (4096, 512, 512),  # the defaults: within a quarter
        (300, 512, 75),  # issue 40: a quarter of 300, not every one of them
        (300, 50, 50),
        (2, 512, 1),  # one connection at least
        (300, 0, 0),  # no share
    ],
)
def test_a_client_addresss_share_is_at_most_a_quarter_of_the_connections(connections, share, effective):
    settings = Settings(max_connections=connections, max_connections_per_client=share)
    assert settings.connection_share == effective


def _accepted_range(name: str) -> tuple[int, int]:
    """The integers an integer setting accepts, an interval around its default (found by bisection)."""

    def edge(inside: int, outside: int) -> int:
        while abs(outside - inside) > 1:
            middle = (inside + outside) // 2
            inside, outside = (middle, outside) if accepted(name, middle) else (inside, middle)
        return inside

    default = FIELDS[name].default
    return edge(default, -(2**31)), edge(default, 2**31)


def _accepted_values(name: str):
    if FIELDS[name].type == "int":
        return st.integers(*_accepted_range(name))
    if not config.accepts(name):  # any text
        return st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=12)
    return st.sampled_from([value for value in CANDIDATES if accepted(name, value)])


@given(st.fixed_dictionaries({name: _accepted_values(name) for name in FIELDS}))
def test_workers_rebuild_the_same_settings_from_the_environment(values):
    settings = Settings(**values)
    environ = settings.to_env()
    assert set(environ) == {f"SATHUB_{name.upper()}" for name in FIELDS}
    assert Settings.from_env(environ) == settings


def test_nntp_group_names_are_address_group_pairs_of_rfc_3977s_names():
    assert config.parse_group_renames(" Dev@a.org = kernel.dev , x@y.org=x_y+1 ") == {
        "dev@a.org": "kernel.dev",
        "x@y.org": "x_y+1",
    }
    # no pair, no address, a wildmat's characters, an empty part, a space, one group for two lists
    for wrong in ("dev@a.org", "dev=kernel", "dev@a.org=k*", "dev@a.org=a..b", "dev@a.org=a b", "a@x=n,b@x=n"):
        with pytest.raises(SettingError):
            Settings.from_env({"SATHUB_NNTP_GROUP_NAMES": wrong})
