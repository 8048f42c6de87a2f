"""b4 (Debian's 0.12, `make b4`) against a real `sathub serve`: `b4 mbox` of a corpus thread by any
of its Message-IDs gives each message as archived, and `b4 am` of a series made here with `git
format-patch`, archived through Mailman's archiver endpoint, gives an mbox `git am` applies.

b4 is pointed at sathub by its midmask (docs/public-inbox.md): `<site>/pi/all/%s`. b4 0.12 sends
a HEAD there (with the Message-ID escaped by quote_plus), takes the 301's Location for the inbox,
and fetches `…/t.mbox.gz`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import httpx

from sathub.archive.mail.kept_source import source_of
from sathub.archive.public_inbox.mboxrd import FROM_LINE
from sathub.archive.store import email_sources, public_inbox
from tests.archive.corpus import CORPUS_GROUP
from tests.live_server import sathub_server

# The clients fetch more threads and searches a minute than a reader's budget holds; the budgets
# are tested in test_search.py.
UNBUDGETED = {"SATHUB_EXPORT_BUDGET": "0", "SATHUB_SEARCH_BUDGET": "0"}

KEY = "k3y-for-b4"
# python-committers' "Azure build operations", eight messages: its root, a reply, the last one.
AZURE = [
    "bd505a47-28e6-d6ba-4e86-ce0c65a51558@python.org",
    "CACac1F-y=9gpxEjDtLTsLjoh=nzrGS2eFd8wRTGB+CLoz0PvFQ@mail.gmail.com",
    "94e51f71-576d-d739-0cde-d6cfe42ad838@python.org",
]


def b4_binary() -> str:
    found = shutil.which("b4")
    assert found, "Debian's b4 is missing: `make b4` installs it (apt-get install b4)"
    return found


def run_b4(site: str, home: Path, *arguments: str) -> subprocess.CompletedProcess:
    """b4 with a configuration of its own in `home` (never the user's), its midmask on `site`."""
    home.mkdir(exist_ok=True)
    config = home / "gitconfig"
    config.write_text(
        f"[b4]\n\tmidmask = {site}/pi/all/%s\n\tlinkmask = {site}/pi/all/%s\n"
        "[user]\n\tname = Reviewer\n\temail = reviewer@example.org\n"  # b4 am adds trailers in this name
    )
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(config), "XDG_CACHE_HOME": str(home / "cache")}
    done = subprocess.run([b4_binary(), *arguments], cwd=home, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def entries(mbox: bytes) -> list[bytes]:
    """The messages of b4's mbox (b4 writes them unquoted, each followed by the blank line)."""
    return mbox.split(FROM_LINE + b"\n")[1:]


def archived_sources(engine, message_ids) -> dict[str, bytes]:
    """Message-ID -> the source as archived, of every public list."""
    found = {}
    with engine.connect() as conn:
        list_ids = [row.id for row in public_inbox.public_lists(conn)]
        for message_id in message_ids:
            email = public_inbox.find_message(conn, list_ids, message_id)
            found[message_id] = source_of(email_sources.email_source(conn, email.list_id, email.message_id_hash), ())
    return found


def message_id_of(entry: bytes) -> str:
    line = next(line for line in entry.splitlines() if line.lower().startswith(b"message-id:"))
    return line.split(b"<")[1].split(b">")[0].decode()


@CORPUS_GROUP
def test_b4_mbox_gives_each_message_as_archived(corpus, tmp_path):
    with sathub_server(corpus.engine.url.render_as_string(hide_password=False), env=UNBUDGETED) as site:
        for n, message_id in enumerate(AZURE):
            run_b4(site, tmp_path / f"run{n}", "mbox", "-n", "thread.mbox", message_id)
            got = {
                message_id_of(entry): entry for entry in entries((tmp_path / f"run{n}" / "thread.mbox").read_bytes())
            }
            assert len(got) == 8 and set(AZURE) <= set(got)
            for found, source in archived_sources(corpus.engine, list(got)).items():
                assert got[found] == source + b"\n", found


def git(folder: Path, *arguments: str) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "Ann Example",
        "GIT_AUTHOR_EMAIL": "ann@example.org",
        "GIT_COMMITTER_NAME": "Ann Example",
        "GIT_COMMITTER_EMAIL": "ann@example.org",
    }
    done = subprocess.run(["git", *arguments], cwd=folder, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_b4_am_of_an_archived_series_applies(database_url, engine, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "greeting.txt").write_text("hello\n")
    git(work, "add", "greeting.txt")
    git(work, "commit", "-q", "-m", "base")
    base = git(work, "rev-parse", "HEAD").strip()
    for n, text in enumerate(("hello, world\n", "hello, world\nFrom the list\n"), 1):
        (work / "greeting.txt").write_text(text)
        git(work, "commit", "-q", "-am", f"greeting: step {n}")
    git(work, "format-patch", "-q", "--cover-letter", "--thread", "-o", str(tmp_path / "series"), base)
    patches = sorted((tmp_path / "series").glob("*.patch"))
    assert len(patches) == 3
    env = {"SATHUB_ARCHIVER_KEY": KEY, **UNBUDGETED}
    with sathub_server(database_url, env=env) as site:
        for patch in patches:
            message = patch.read_bytes().split(b"\n", 1)[1]  # without format-patch's mbox From line
            answer = httpx.post(
                f"{site}/archive/api/mailman/archive",
                data={"mlist": "dev@example.org"},
                files={"message": ("patch.eml", message)},
                headers={"Authorization": f"Token {KEY}"},
            )
            assert answer.status_code == 200, answer.text
        cover = patches[0].read_text()
        cover_id = next(line for line in cover.splitlines() if line.lower().startswith("message-id:")).split("<")[1][
            :-1
        ]
        (tmp_path / "am").mkdir()
        run_b4(site, tmp_path / "b4", "am", "-o", str(tmp_path / "am"), cover_id)
    series = list((tmp_path / "am").glob("*.mbx"))
    assert len(series) == 1
    git(work, "checkout", "-q", "-b", "applied", base)
    git(work, "am", str(series[0]))
    assert (work / "greeting.txt").read_text() == "hello, world\nFrom the list\n"
    assert git(work, "log", "--format=%s", f"{base}..HEAD").splitlines() == ["greeting: step 2", "greeting: step 1"]
