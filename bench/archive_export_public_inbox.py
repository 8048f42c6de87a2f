"""sathub's mbox export beside public-inbox 1.9's, side by side in one run, over HTTP.

    apt-get install public-inbox     # Debian's package (1.9 on bookworm)
    python -m bench.archive_export_public_inbox [--database-url URL] [--repeat 5]

python-committers is exported through sathub's door (mboxrd), imported into a public-inbox v2
inbox with public-inbox's own reader (PublicInbox::MboxReader->mboxrd, the check that it reads
sathub's mboxrd) and indexed at level medium (Xapian: `?x=m` needs search). Then, alternating
request by request, against `public-inbox-httpd` and `sathub serve` (1 worker each): the whole
inbox (public-inbox: POST `/pc/?q=d:19700101..&x=m`; sathub: `…/export/<name>.mbox.gz`) and the
109-message thread "Transfer of power" (public-inbox: `/pc/<root Message-ID>/t.mbox.gz`; sathub:
`?thread=<id>`): first byte and whole answer, medians. The inbox and its PI_CONFIG live under
bench/out/public-inbox/ (the user's ~/.public-inbox is not touched). Writes
bench/out/archive_export_public_inbox.md.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import time
import urllib.request

from starlette.testclient import TestClient

from bench.clients import timed_download
from bench.common import OUT, Server, free_port, label, write_out
from bench.corpus import corpus_engine
from bench.peers import public_inbox
from sathub.app import create_app
from sathub.config import Settings

LIST = "python-committers@python.org"
THREAD_ROOT = "CAP7+vJ+oK5q8a3kxizcbgUrrhwhOBbDj9VhSSNwZ0XgiOuBztQ@mail.gmail.com"  # "Transfer of power"
THREAD_ID = "GQONAGWBBFRHVRUPU7RNBM75MHKGUFJN"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=f"sqlite:///{OUT / 'archive_export_corpus.db'}")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not shutil.which("public-inbox-httpd"):
        raise SystemExit("public-inbox is not installed (apt-get install public-inbox)")
    folder = OUT / "public-inbox"
    env = {**os.environ, "PI_CONFIG": str(folder / "config")}
    engine = corpus_engine(args.database_url)
    settings = Settings(
        database_url=args.database_url, base_url="http://bench.test", secret_key="bench", export_budget=0
    )
    with TestClient(create_app(settings, engine=engine), base_url="http://bench.test") as client:
        body = client.get(f"/archive/list/{LIST}/export/python-committers.mbox.gz").content
    engine.dispose()
    mbox = OUT / "archive_export_public_inbox.mbox"
    mbox.write_bytes(gzip.decompress(body))
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    taken = public_inbox(folder, "pc", LIST, mbox, env)
    port = free_port()
    inbox = subprocess.Popen(
        ["public-inbox-httpd", "-l", f"http://127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    pi_base = f"http://127.0.0.1:{port}"
    cases = {
        "whole list (6,777 messages)": (
            lambda base: timed_download(base + "/pc/?q=d:19700101..&x=m", 1, post=True),
            lambda base: timed_download(f"{base}/archive/list/{LIST}/export/python-committers.mbox.gz", 1),
        ),
        "thread of 109 messages": (
            lambda base: timed_download(f"{base}/pc/{THREAD_ROOT}/t.mbox.gz", 1),
            lambda base: timed_download(f"{base}/archive/list/{LIST}/export/thread.mbox.gz?thread={THREAD_ID}", 1),
        ),
    }
    results: dict[tuple[str, str], list] = {}
    try:
        for _ in range(50):  # public-inbox-httpd up
            try:
                urllib.request.urlopen(pi_base + "/pc/").read()
                break
            except OSError:
                time.sleep(0.2)
        with Server.sathub(args.database_url, workers=1, log="archive_export_public_inbox") as server:
            server.wait_up("/archive/api/lists/")
            for _ in range(args.repeat):  # alternated, request by request
                for case, (theirs, ours) in cases.items():
                    results.setdefault((case, "public-inbox"), []).extend(theirs(pi_base))
                    results.setdefault((case, "sathub"), []).extend(ours(server.base))
    finally:
        os.killpg(inbox.pid, 15)
        inbox.wait()
    rows = [
        f"public-inbox took {taken:,} of the 6,777 messages of sathub's mboxrd export of {LIST}.",
        "",
        "| export | public-inbox first byte / whole | sathub first byte / whole | .gz bytes public-inbox / sathub |",
        "|---|---|---|---|",
    ]
    for case in cases:
        pi, ours = results[(case, "public-inbox")], results[(case, "sathub")]
        rows.append(
            f"| {case} | {statistics.median(t[0] for t in pi) * 1000:.0f} / "
            f"{statistics.median(t[1] for t in pi) * 1000:.0f} ms "
            f"| {statistics.median(t[0] for t in ours) * 1000:.0f} / "
            f"{statistics.median(t[1] for t in ours) * 1000:.0f} ms "
            f"| {pi[0][2]:,} / {ours[0][2]:,} |"
        )
    write_out(
        "archive_export_public_inbox.md",
        label(f"archive_export_public_inbox ({args.repeat} rounds, alternated)") + "\n\n" + "\n".join(rows),
    )


if __name__ == "__main__":
    main()
