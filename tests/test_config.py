"""Settings (config.py): the defaults README.md documents, SATHUB_* variables and command-line
values over them, the public base URL without its trailing slash (status-api.md 13, `539dcba`),
and the environment that hands the same settings to every worker process."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sathub.config import Settings

# README.md, "Configuration", and docs/pages.md for the form's rate (the secret key's default, a
# random key per start, is made by the CLI from this empty one).
DOCUMENTED_DEFAULTS = {
    "database_url": "sqlite:///var/sathub.db", "base_url": "", "host": "127.0.0.1", "port": 8000, "workers": 1,
    "log_level": "info", "secret_key": "", "commit": "", "deployed_at": "", "allowed_hosts": "",
    "db_pool_size": 5, "db_max_overflow": 5, "db_timeout": 10, "max_header_bytes": 65536, "header_timeout": 10,
    "max_connections": 4096, "submit_rate_per_minute": 30, "archiver_key": "", "archiver_from": "127.0.0.1/32,::1/128",
    "archiver_max_bytes": 26214400, "mailman_rest_url": "", "mailman_rest_user": "", "mailman_rest_password": "",
}


def test_the_documented_defaults():
    assert dataclasses.asdict(Settings.from_env({})) == DOCUMENTED_DEFAULTS


def test_every_setting_has_its_variable():
    environ = {f"SATHUB_{name.upper()}": "7" if isinstance(value, int) else f"{name} value"
               for name, value in DOCUMENTED_DEFAULTS.items()}
    settings = Settings.from_env(environ)
    for name, value in DOCUMENTED_DEFAULTS.items():
        assert getattr(settings, name) == (7 if isinstance(value, int) else f"{name} value"), name


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


@pytest.mark.parametrize("given_url, base_url, prefix", [
    ("", "", ""),
    ("https://www.amsat.org", "https://www.amsat.org", ""),
    ("https://www.amsat.org/", "https://www.amsat.org", ""),
    ("https://www.amsat.org/status", "https://www.amsat.org/status", "/status"),
    ("https://www.amsat.org/status/", "https://www.amsat.org/status", "/status"),
    ("http://127.0.0.1:8000/a/b/", "http://127.0.0.1:8000/a/b", "/a/b"),
])
def test_the_base_url_loses_its_trailing_slash(given_url, base_url, prefix):
    for settings in (Settings.from_env({"SATHUB_BASE_URL": given_url}), Settings.from_env({}, base_url=given_url)):
        assert (settings.base_url, settings.prefix) == (base_url, prefix)


def _field_values():
    strategies = {}
    text = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=12)
    for field in dataclasses.fields(Settings):
        strategies[field.name] = st.integers(0, 2**31) if field.type == "int" else text
    strategies["base_url"] = text.filter(lambda url: not url.endswith("/"))
    return st.fixed_dictionaries(strategies)


@given(_field_values())
def test_workers_rebuild_the_same_settings_from_the_environment(values):
    settings = Settings(**values)
    environ = settings.to_env()
    assert set(environ) == {f"SATHUB_{name.upper()}" for name in DOCUMENTED_DEFAULTS}
    assert Settings.from_env(environ) == settings


def test_the_prefix_has_no_trailing_slash_even_in_settings_made_directly():
    assert Settings(base_url="https://www.amsat.org/status/").prefix == "/status"
    assert Settings(base_url="https://www.amsat.org/").prefix == ""
