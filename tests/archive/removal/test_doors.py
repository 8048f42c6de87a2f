"""Every door after hide, unhide and delete of one message, both backends, through the real app, on
an archive where the message carries planted tokens (planted.py): gone from every answer and
every count as if it had never been archived, back exactly after unhide.

The reference is the archive imported without the message: what each door answered before the
message was ever archived, not what the code under test says it should answer."""

from __future__ import annotations

import pytest

from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE
from tests.archive.removal.planted import (
    API_PREFIXES,
    GONE,
    LIST,
    LW,
    Answer,
    T,
    answers,
    api_doors,
    planted,
    public_inbox_doors,
    reference,
    remove,
    web_doors,
)

DOORS = api_doors() + web_doors() + public_inbox_doors()
# The doors whose answer does not depend on T at all: HyperKitty's list objects hold no count, and
# a pipermail month's mbox link only redirects to the export (probed itself).
BLIND_TO_T = {
    *(prefix + path for prefix in API_PREFIXES for path in ("lists/", f"list/{LIST}/")),
    "/archive/pipermail/doors/2024-March.txt.gz",
}


def shown(answer: Answer, path: str) -> list[str]:
    """The words of T the answer shows, leaving out those the request itself names (a search
    page shows its query; the 404 of T's own page may name its address)."""
    return [word for word in answer.holds(GONE) if word.lower() not in path.lower()]


def differences(now: dict[str, Answer], then: dict[str, Answer]) -> list[str]:
    return [
        f"{path}: {then[path].status} -> {now[path].status}"
        for path in now
        if (now[path].status, now[path].body, now[path].location)
        != (then[path].status, then[path].body, then[path].location)
    ]


@pytest.fixture
def states(client, engine, tmp_path):
    """The answers of every door: without T ever, with T, then after each of hide, unhide, delete."""
    reference(engine, tmp_path)
    found = {"reference": answers(client, DOORS)}
    assert planted(engine, tmp_path).imported == 1
    found["with"] = answers(client, DOORS)
    for action in (HIDE, UNHIDE, DELETE):
        assert remove(engine, action).messages == 1
        found[action] = answers(client, DOORS)
    return found


def test_the_probes_see_the_message_where_it_is(states):
    # Each door shows T or counts it, else it probes nothing.
    blind = [path for path in DOORS if not differences({path: states["with"][path]}, {path: states["reference"][path]})]
    assert set(blind) == BLIND_TO_T & set(DOORS)
    assert states["with"][f"{LW}message/{T}/"].status == 200
    assert all(states["with"][f"{prefix}list/{LIST}/email/{T}/"].status == 200 for prefix in API_PREFIXES)


@pytest.mark.parametrize("action", [HIDE, DELETE])
def test_after_a_removal_no_door_shows_any_of_its_words(states, action):
    leaks = {path: words for path in DOORS if (words := shown(states[action][path], path))}
    assert leaks == {}


@pytest.mark.parametrize("action", [HIDE, DELETE])
def test_after_a_removal_every_door_answers_as_if_it_was_never_archived(states, action):
    # Listings, every count (thread, list, sender, month, participants), thread dates, searches,
    # feeds, exports, sitemaps; its own doors as an unknown message's; its pipermail number as an
    # unknown number (the 404 page, not a redirect to a page that is gone).
    assert differences(states[action], states["reference"]) == []


def test_unhide_brings_back_every_answer_exactly(states):
    assert differences(states[UNHIDE], states["with"]) == []


@pytest.mark.parametrize("action", [HIDE, DELETE])
def test_the_message_answers_as_hyperkitty_answers_a_deleted_email(states, action):
    # HyperKitty 1.3.12's answer for an email deleted or unknown (docs/archive-removal-hyperkitty.md).
    for prefix in API_PREFIXES:
        answer = states[action][f"{prefix}list/{LIST}/email/{T}/"]
        assert (answer.status, answer.body) == (404, '{"detail":"No Email matches the given query."}')
    for path in (f"{LW}message/{T}/", f"{LW}message/{T}/raw", f"{LW}message/{T}/attachment/2/zqxfiletoken.txt"):
        assert states[action][path].status == 404
    assert states[action]["/archive/pipermail/doors/2024-March/000004.html"].status == 404
