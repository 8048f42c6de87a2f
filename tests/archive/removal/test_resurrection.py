"""Never resurrected (planted.py's archive, both backends): an import of the same mbox again and
Mailman's archiver POST of the same message, after hide and after delete, bring nothing back;
Mailman is answered 200 (it stops retrying) and the archive says so in one log line; unhide then
restores every answer exactly, counts included."""

from __future__ import annotations

import dataclasses
import logging

import pytest
from starlette.testclient import TestClient

from sathub.app import create_app
from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE
from tests.archive.removal.planted import (
    LIST,
    T,
    answers,
    api_doors,
    msgid,
    planted,
    planted_message,
    reference,
    remove,
    web_doors,
)

KEY = "k3y-for-removal-tests"
DOORS = api_doors() + web_doors()


@pytest.fixture
def mailman(engine, settings):
    """The app as Mailman's archiver reaches it: with its key, from a local address."""
    keyed = dataclasses.replace(settings, archiver_key=KEY)
    with TestClient(
        create_app(keyed, engine=engine), base_url="http://sathub.test", client=("127.0.0.1", 50000)
    ) as client:
        yield client


def archive_again(mailman):
    return mailman.post(
        "/archive/api/mailman/archive",
        data={"mlist": LIST},
        files={"message": ("message.txt", planted_message(envelope=False).encode())},
        headers={"Authorization": f"Token {KEY}"},
    )


def bodies(found) -> dict[str, tuple]:
    return {path: (answer.status, answer.body, answer.location) for path, answer in found.items()}


@pytest.mark.parametrize("action", [HIDE, DELETE])
def test_removed_mail_is_never_archived_again(mailman, engine, tmp_path, caplog, action):
    reference(engine, tmp_path)
    planted(engine, tmp_path)
    shown = bodies(answers(mailman, DOORS))
    remove(engine, action)
    gone = bodies(answers(mailman, DOORS))

    summary = planted(engine, tmp_path)
    assert (summary.imported, summary.duplicates, summary.removed) == (0, 4, 1)
    assert bodies(answers(mailman, DOORS)) == gone

    with caplog.at_level(logging.INFO, logger="sathub"):
        answer = archive_again(mailman)
    assert answer.status_code == 200  # Mailman stops retrying
    assert answer.json() == {  # no URL of a page that is gone
        "url": "",
        "archived": False,
        "detail": f"Not archived: removed from the archive of {LIST}.",
    }
    said = [record.getMessage() for record in caplog.records if record.name.startswith("sathub.archive")]
    assert len(said) == 1 and (T in said[0] or msgid("T") in said[0]), said
    assert bodies(answers(mailman, DOORS)) == gone

    if action == HIDE:
        remove(engine, UNHIDE)
        assert bodies(answers(mailman, DOORS)) == shown
