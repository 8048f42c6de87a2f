"""The NNTP listener started with the app (archive/nntp/listening.py, as `sathub serve
--nntp-port` runs it): it listens while the app serves, mail archived by Mailman's call is in
GROUP's high water mark and readable by number as soon as the call has answered, and it is gone
when the app stops. On SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import socket
import warnings

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.nntp.listening import server_name
from sathub.cli import main
from sathub.config import Settings
from tests.archive.messages import raw_message

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import nntplib

KEY = "k3y-for-tests"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def archive_call(client, data: bytes):
    return client.post(
        "/archive/api/mailman/archive",
        data={"mlist": "dev@example.org"},
        files={"message": ("message.txt", data)},
        headers={"Authorization": f"Token {KEY}"},
    )


def test_mail_archived_by_mailman_is_readable_by_number_when_the_call_answers(engine, settings):
    port = free_port()
    chosen = dataclasses.replace(settings, archiver_key=KEY, nntp_port=port)
    with TestClient(create_app(chosen, engine=engine), client=("127.0.0.1", 50000)) as client:
        assert archive_call(client, raw_message("one@x")).status_code == 200
        with nntplib.NNTP("127.0.0.1", port, timeout=10) as news:
            assert news.group("org.example.dev")[1:4] == (1, 1, 1)
            assert archive_call(client, raw_message("two@x", reply_to="one@x")).status_code == 200
            assert news.group("org.example.dev")[1:4] == (2, 1, 2)
            _, info = news.article(2)
            assert info.message_id == "<two@x>" and b"Xref: sathub.test org.example.dev:2" in info.lines
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_no_port_no_listener(engine, settings):
    assert settings.nntp_port == 0  # the default
    with TestClient(create_app(settings, engine=engine)) as client:
        assert client.app.state.engine is engine


def test_the_server_name_is_the_public_hosts():
    assert server_name(Settings(base_url="https://lists.example.org/archive")) == "lists.example.org"
    assert server_name(Settings(base_url="")) == socket.gethostname()


def test_serve_takes_the_port_as_a_flag_and_a_variable():
    assert "--nntp-port" in CliRunner().invoke(main, ["serve", "--help"]).output
    assert Settings.from_env({"SATHUB_NNTP_PORT": "1119"}).nntp_port == 1119
