"""Every ETag and Last-Modified a removal changes changes (planted.py's doors, both backends): a
cache or feed reader that asks again with what it holds gets the new answer, never a 304."""

from __future__ import annotations

import time

import pytest

from sathub.archive.removal.operations import DELETE, HIDE, UNHIDE
from tests.archive.removal.planted import answers, api_doors, fetch, planted, reference, remove, web_doors

DOORS = api_doors() + web_doors()


@pytest.mark.parametrize("actions", [(HIDE, UNHIDE), (DELETE,)], ids=["hide-unhide", "delete"])
def test_a_removal_changes_every_validator_it_changes(client, engine, tmp_path, actions):
    reference(engine, tmp_path)
    planted(engine, tmp_path)
    before = answers(client, DOORS)
    stale, checked = [], 0
    for action in actions:
        time.sleep(1.05)  # Last-Modified counts seconds: the removal falls in a later one
        remove(engine, action)
        after = answers(client, DOORS)
        for path, then in before.items():
            if then.status != 200 or then.etag is None or (after[path].body, after[path].status) == (then.body, 200):
                continue
            checked += 1
            again = fetch(client, path, **{"If-None-Match": then.etag})
            if again.status == 304 or again.etag == then.etag:
                stale.append(f"{action} {path}: ETag")
            if then.last_modified is not None:
                since = fetch(client, path, **{"If-Modified-Since": then.last_modified})
                if since.status == 304 or since.last_modified == then.last_modified:
                    stale.append(f"{action} {path}: Last-Modified")
        before = after
    assert stale == []
    assert checked > len(DOORS) // 2 * len(actions)  # most doors change with T: the probes reached them
