"""The archive call's parsing in a helper process (mailman/parser_process.py): what the serving
process would have parsed, its refusals, and a helper that dies."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import logging
import os
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from sathub.archive.mailman import live_ingest, parser_process
from tests.archive.messages import many_parts_message
from tests.conftest import SHARED_DATA
from tests.live_server import free_port, serving


def corpus_messages(count: int) -> list[bytes]:
    """The first `count` messages of a real list, as Mailman would hand them over."""
    path = SHARED_DATA / "mail" / "python-committers@python.org.mbox.gz"
    with gzip.open(path, "rb") as source:
        data = source.read(4_000_000)
    return [chunk.partition(b"\n")[2] for chunk in data.split(b"\nFrom ")[1 : count + 1]]  # without From_ lines


def fields(email) -> dict:
    found = dataclasses.asdict(email)
    found.pop("archived_date")  # the time of each parse
    return found


def test_a_real_message_parsed_in_the_helper_equals_the_parse_in_place():
    for data in [*corpus_messages(20), many_parts_message("many@example.org", 300)]:
        apart = asyncio.run(parser_process.parsed(data, 100))
        assert fields(apart) == fields(live_ingest.parse(data, 100))
    assert parser_process.helper_pid() not in (None, os.getpid())


def test_the_helpers_refusal_is_the_parses():
    with pytest.raises(live_ingest.UnreadableMessage, match="does not start with a header field"):
        asyncio.run(parser_process.parsed(b"no header here\n\nbody\n", 100))


def test_a_helper_found_dead_is_started_again():
    data = many_parts_message("after-death@example.org", 10)
    asyncio.run(parser_process.parsed(data, 100))
    dead = parser_process.helper_pid()
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    _gone(dead)
    assert asyncio.run(parser_process.parsed(data, 100)).message_id == "after-death@example.org"
    assert parser_process.helper_pid() not in (None, dead, os.getpid())


def test_a_helper_that_dies_during_a_parse_costs_no_message(caplog):
    asyncio.run(parser_process.parsed(b"Subject: warm\n\nup\n", 10))  # a helper running
    dying = parser_process.helper_pid()
    data = many_parts_message("during-death@example.org", 20_000)
    threading.Timer(0.05, os.kill, (dying, signal.SIGKILL)).start()
    with caplog.at_level(logging.WARNING, logger="sathub.archive.mailman"):
        email = asyncio.run(parser_process.parsed(data, 30_000))
    assert (email.message_id, len(email.attachments)) == ("during-death@example.org", 20_000)
    assert "parsing process died" in caplog.text
    _gone(dying)
    assert asyncio.run(parser_process.parsed(data, 10)).attachments  # in a new helper
    assert parser_process.helper_pid() not in (None, dying)


def _gone(pid: int) -> None:
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ")[1][0] != "Z"


def test_stopping_the_server_by_its_process_group_stops_the_helper_cleanly(tmp_path):
    """Ctrl-C (SIGINT) and a service manager's stop (SIGTERM) reach the helper too: it leaves them
    to the serving process and ends when that process does, with nothing printed about it."""
    for stop in (signal.SIGINT, signal.SIGTERM):
        port, log = free_port(), tmp_path / f"serve-{stop.name}.log"
        env = {
            **os.environ,
            "SATHUB_DATABASE_URL": f"sqlite:///{tmp_path / f'{stop.name}.db'}",
            "SATHUB_PORT": str(port),
            "SATHUB_ARCHIVER_KEY": "k",
            "SATHUB_BASE_URL": "",
            "SATHUB_LOG_LEVEL": "warning",
        }
        with log.open("wb") as output:
            server = subprocess.Popen(
                [sys.executable, "-m", "sathub", "serve"],
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        root = f"http://127.0.0.1:{port}"
        with serving(server, root, log.read_text):
            answer = httpx.post(
                f"{root}/archive/api/mailman/archive",
                data={"mlist": "dev@example.org"},
                files={"message": ("m.txt", many_parts_message("stop@example.org", 3))},
                headers={"Authorization": "Token k"},
            )
            assert answer.status_code == 200, answer.text
            helpers = _children(server.pid)
            assert helpers
            os.killpg(server.pid, stop)
            assert server.wait(15) in (0, -stop)  # uvicorn ends by the signal it caught, once shut down
        for pid in helpers:
            _gone(pid)
        assert "Traceback" not in log.read_text() and "Warning" not in log.read_text(), log.read_text()


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(child) for child in found]
