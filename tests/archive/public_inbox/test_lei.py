"""lei (Debian's 1.9, `make lei`) against a real `sathub serve`: `lei q --only <inbox URL>` POSTs
`<inbox>/?x=m&q=…` (with `t=1` for `--threads`) with an empty body and reads the mboxrd.gz; it
finds the same messages as sathub's own JSON search for the same query.

lei is given a home of its own (HOME and the XDG folders in tmp_path: its configuration, its
store and its daemon's socket) and its daemon is stopped at the end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.archive.corpus import CORPUS_GROUP
from tests.archive.public_inbox.test_b4 import UNBUDGETED
from tests.live_server import sathub_server

LIST = "python-committers@python.org"
# python-committers' "Azure build operations": eight messages (tests/archive/public_inbox/test_b4.py).
AZURE_ROOT = "bd505a47-28e6-d6ba-4e86-ce0c65a51558@python.org"
# Each query as lei takes it on its command line, then in sathub's own language (lei rewrites
# `d:2019-05-01..2019-05-31` as `d:20190501..20190531` before sending it).
# A word, a phrase (one argument with a space: lei quotes it), f:, s:, and a d: range.
QUERIES = [
    (["azure"], "azure"),
    (["build operations"], '"build operations"'),
    (["f:dower"], "f:dower"),
    (["s:azure"], "s:azure"),
    (["azure", "d:2019-05-01..2019-05-31"], "azure d:2019-05-01..2019-05-31"),
]


def lei_binary() -> str:
    found = shutil.which("lei")
    assert found, "Debian's lei is missing: `make lei` installs it (apt-get install lei)"
    return found


def lei_env(home: Path) -> dict[str, str]:
    runtime = home / "run"
    runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
    folders = {"XDG_CONFIG_HOME": "config", "XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache"}
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        **{name: str(home / folder) for name, folder in folders.items()},
    }


def lei_found(inbox_url: str, home: Path, *arguments: str) -> set[str]:
    """The Message-IDs `lei q --only inbox_url` finds for `arguments` (its JSON output)."""
    done = subprocess.run(
        [lei_binary(), "q", "--only", inbox_url, "-f", "json", *arguments],
        env=lei_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return {found["m"] for found in json.loads(done.stdout) if found}


def sathub_found(site: str, query: str) -> set[str]:
    """The Message-IDs sathub's JSON search finds for `query` on the list, every page."""
    found: set[str] = set()
    url: str | None = f"{site}/archive/api/search/"
    params: dict | None = {"q": query, "mlist": LIST, "limit": 100, "sort": "date-asc"}
    while url:
        answer = httpx.get(url, params=params, timeout=60)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert page["count_exact"]
        found |= {result["message_id"] for result in page["results"]}
        url, params = page["next"], None
    return found


@pytest.fixture
def lei_home(tmp_path):
    home = tmp_path / "lei"
    home.mkdir()
    yield home
    subprocess.run([lei_binary(), "daemon-kill"], env=lei_env(home), capture_output=True, timeout=60)


@CORPUS_GROUP
def test_lei_finds_what_sathub_search_finds(corpus, lei_home):
    with sathub_server(corpus.engine.url.render_as_string(hide_password=False), env=UNBUDGETED) as site:
        inbox_url = f"{site}/pi/python-committers/"
        for arguments, query in QUERIES:
            expected = sathub_found(site, query)
            assert expected, query
            assert lei_found(inbox_url, lei_home, *arguments) == expected, query


@CORPUS_GROUP
def test_lei_threads_gives_each_match_whole_thread(corpus, lei_home):
    with sathub_server(corpus.engine.url.render_as_string(hide_password=False), env=UNBUDGETED) as site:
        inbox_url = f"{site}/pi/python-committers/"
        alone = lei_found(inbox_url, lei_home, f"m:{AZURE_ROOT}")
        threads = lei_found(inbox_url, lei_home, "--threads", f"m:{AZURE_ROOT}")
        azure = sathub_found(site, 's:"azure build operations"')
    assert alone == {AZURE_ROOT}
    assert len(azure) == 8 and threads == azure
