"""`sathub serve` and the other commands check every setting before they act (issue 23, point 5):
a value a setting does not accept is one line naming it and what it accepts, exit status 2, from
the flag or the environment alike; an unsupported backend is refused before it is touched; the
listening address is checked before "Serving on" is printed; X-Forwarded-For is believed only
from SATHUB_TRUSTED_PROXIES."""

import os
import socket
import subprocess
import sys

import httpx
import pytest
from click.testing import CliRunner

from sathub.cli import main
from sathub.config import Settings, env_name
from tests.live_server import free_port, sathub_server, serving

pytestmark = pytest.mark.slow


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    """The real command, in a process of its own, with only these SATHUB_* variables."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SATHUB_")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "sathub", *args], env=environ, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize(
    ("env", "args", "line"),
    [
        ({"SATHUB_MAX_CONNECTIONS": "abc"}, [], "SATHUB_MAX_CONNECTIONS must be an integer from 1 to 1048576; "),
        ({"SATHUB_MAX_CONNECTIONS": "0"}, [], "SATHUB_MAX_CONNECTIONS must be an integer from 1"),
        ({"SATHUB_HEADER_TIMEOUT": "0"}, [], "SATHUB_HEADER_TIMEOUT must be an integer from 1 to 3600; "),
        (
            {"SATHUB_PORT": "70000"},
            [],
            "SATHUB_PORT (--port) must be an integer from 1 to 65535; SATHUB_PORT is '70000'",
        ),
        ({}, ["--port", "abc"], "SATHUB_PORT (--port) must be an integer from 1 to 65535; --port is 'abc'"),
        ({"SATHUB_DATABASE_URL": "garbage"}, [], "SATHUB_DATABASE_URL (--database-url) must be a sqlite:///PATH or"),
        ({"SATHUB_ARCHIVER_FROM": "10.0.0.0/99"}, [], "SATHUB_ARCHIVER_FROM must be comma-separated addresses"),
        ({"SATHUB_LOG_LEVEL": "loud"}, [], "SATHUB_LOG_LEVEL (--log-level) must be one of critical, error"),
    ],
)
def test_a_setting_it_does_not_accept_is_one_line_and_exit_2(tmp_path, env, args, line):
    answer = run("serve", *args, env={"SATHUB_DATABASE_URL": f"sqlite:///{tmp_path}/s.db", **env})
    assert answer.returncode == 2, answer.stderr
    assert answer.stdout == ""
    assert answer.stderr.startswith("Error: " + line) and answer.stderr.count("\n") == 1
    assert not (tmp_path / "s.db").exists()  # nothing was touched


def test_a_flag_wins_over_a_bad_variable_and_workers_get_the_flag(tmp_path):
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SATHUB_")}
    environ |= {"SATHUB_PORT": "abc", "SATHUB_DATABASE_URL": f"sqlite:///{tmp_path}/s.db"}
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "sathub", "serve", "--port", str(port), "--workers", "2"],
            env=environ,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    with serving(server, f"http://127.0.0.1:{port}", log.read_text):
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/health.php").status_code == 200


def test_an_unsupported_backend_is_refused_before_it_is_touched():
    """A mysql:// URL once crashed half-way through the migration and left tables behind."""
    answer = run("db", "upgrade", env={"SATHUB_DATABASE_URL": "mysql://root@127.0.0.1:1/nowhere"})
    assert answer.returncode == 2
    assert answer.stderr == (
        "Error: SATHUB_DATABASE_URL (--database-url) must be a sqlite:///PATH or postgresql://… URL; "
        "SATHUB_DATABASE_URL is 'mysql://root@127.0.0.1:1/nowhere'\n"
    )


def test_a_port_taken_is_said_before_anything_claims_to_serve(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        answer = run("serve", "--port", str(port), env={"SATHUB_DATABASE_URL": f"sqlite:///{tmp_path}/s.db"})
    assert answer.returncode == 1
    assert "Serving on" not in answer.stdout
    assert answer.stderr.startswith(f"Error: Cannot listen on 127.0.0.1:{port} (SATHUB_HOST (--host), SATHUB_PORT")
    assert not (tmp_path / "s.db").exists()


def test_serve_help_names_every_settings_variable():
    text = CliRunner().invoke(main, ["serve", "--help"], terminal_width=200).output
    for name in Settings.__dataclass_fields__:
        assert env_name(name) in text, name


def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(tmp_path):
    """Any local client could once rotate X-Forwarded-For past the per-address limits."""
    report = {"name": "AO-91", "report": "Heard", "callsign": "W1AW", "reported_at": "-1 hour"}

    def statuses(root: str) -> list[int]:
        return [
            httpx.post(
                f"{root}/api/v1/reports.php", json=report, headers={"X-Forwarded-For": f"192.0.2.{n}"}
            ).status_code
            for n in range(4)
        ]

    limited = {"SATHUB_API_RATE_PER_MINUTE": "3"}
    with sathub_server(f"sqlite:///{tmp_path}/a.db", env=limited) as root:
        assert statuses(root) == [201, 201, 201, 429]  # one address: the connection's
    # Read as parse_networks reads it: a range with host bits set is its network.
    trusted = {**limited, "SATHUB_TRUSTED_PROXIES": "192.0.2.1, 127.0.0.9/8"}
    with sathub_server(f"sqlite:///{tmp_path}/b.db", env=trusted) as root:
        assert statuses(root) == [201, 201, 201, 201]  # four clients behind the proxy
