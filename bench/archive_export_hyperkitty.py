"""sathub's exports into real HyperKitty 1.3.12, and HyperKitty's own export beside sathub's.

    python -m bench.archive_export_hyperkitty [--database-url URL] [--venv /tmp/sathub-hyperkitty] [--repeat 3]

1. HyperKitty 1.3.12 (Django 5.0.14) from PyPI in a virtual environment of its own (created on
   first use, never in sathub's), its test settings on a SQLite file beside it, migrated;
2. every corpus list exported through sathub's door (in-process) from a database holding the
   corpus (imported first when empty), decompressed to `<list>.mbox`;
3. `hyperkitty_import --no-sync-mailman --ignore-mtime -l <list> <list>.mbox` for each, then the
   number of emails HyperKitty archived per list, beside sathub's;
4. HyperKitty's export of python-committers and of the 3GPP list (its Django test client, the
   streamed body read) timed beside sathub's (in-process client): wall, CPU, first byte.
Writes bench/out/archive_export_hyperkitty.md. Takes ~20 min on a loaded 2-core machine
(hyperkitty_import runs at ~20 messages/s).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
from pathlib import Path

import sqlalchemy as sa
from starlette.testclient import TestClient

from bench.common import OUT, label, write_out
from bench.corpus import CORPUS_LISTS, corpus_engine
from bench.peers import HYPERKITTY_VENV, export_mbox, hyperkitty, hyperkitty_import, sathub_export
from sathub.app import create_app
from sathub.archive.store import lists
from sathub.archive.tables import emails
from sathub.config import Settings

COUNT = """import django
django.setup()
from hyperkitty.models import MailingList
for mlist in MailingList.objects.order_by("name"):
    print(mlist.name, mlist.emails.count())
"""
# HyperKitty's export timed as sathub's is below: the whole streamed body read, medians of N runs.
TIME_EXPORT = """import statistics, sys, time
import django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()  # the test client's host allowed
client, runs = Client(), []
for _ in range(int(sys.argv[2])):
    wall, cpu, first, size = time.monotonic(), time.process_time(), None, 0
    response = client.get(f"/list/{sys.argv[1]}/export/x.mbox.gz")
    for piece in response.streaming_content:
        if first is None and piece:
            first = time.monotonic() - wall
        size += len(piece)
    runs.append((time.monotonic() - wall, time.process_time() - cpu, first))
print(size, *(statistics.median(r[i] for r in runs) for i in range(3)))
"""
TIMED_LISTS = ("python-committers@python.org", "3gpp_tsg_sa_wg4_evs@list.etsi.org")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=f"sqlite:///{OUT / 'archive_export_corpus.db'}")
    parser.add_argument("--venv", type=Path, default=HYPERKITTY_VENV)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    python, env = hyperkitty(args.venv, args.venv / "work")
    engine = corpus_engine(args.database_url)
    names = [path.name.removesuffix(".mbox.gz") for path in CORPUS_LISTS]
    settings = Settings(database_url=args.database_url, base_url="http://bench.test", secret_key="bench")
    rows = ["| list | sathub emails | HyperKitty emails after importing sathub's export | import s |"]
    rows.append("|---|---|---|---|")
    timed: dict[str, list[tuple[bytes, float, float, float]]] = {}
    with TestClient(create_app(settings, engine=engine), base_url="http://bench.test") as client:
        ours = {}
        for name in names:
            export_mbox(client, name, args.venv / "work" / f"{name}.mbox")
            with engine.connect() as conn:
                list_id = lists.find_list(conn, name).id
                ours[name] = conn.execute(
                    sa.select(sa.func.count()).select_from(emails).where(emails.c.list_id == list_id)
                ).scalar_one()
        for name in TIMED_LISTS:
            timed[name] = [sathub_export(client, name) for _ in range(args.repeat)]
    seconds = {name: hyperkitty_import(args.venv, env, name, args.venv / "work" / f"{name}.mbox") for name in names}
    counted = subprocess.run([str(python), "-c", COUNT], env=env, check=True, capture_output=True, text=True)
    theirs = dict(line.rsplit(" ", 1) for line in counted.stdout.split("\n") if line.strip())
    for name in names:
        rows.append(f"| {name} | {ours[name]:,} | {int(theirs.get(name, 0)):,} | {seconds[name]:.0f} |")
    rows += ["", "| export of | sathub wall / CPU / first byte | HyperKitty wall / CPU / first byte | .gz bytes |"]
    rows.append("|---|---|---|---|")
    for name in TIMED_LISTS:
        hk = subprocess.run(
            [str(python), "-c", TIME_EXPORT, name, str(args.repeat)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        mine = timed[name]
        wall, cpu, first = (statistics.median(run[i] for run in mine) for i in (1, 2, 3))
        rows.append(
            f"| {name} | {wall:.2f} s / {cpu:.2f} s / {first * 1000:.0f} ms "
            f"| {float(hk[1]):.2f} s / {float(hk[2]):.2f} s / {float(hk[3]) * 1000:.0f} ms "
            f"| {len(mine[0][0]):,} / {int(hk[0]):,} |"
        )
    engine.dispose()
    write_out("archive_export_hyperkitty.md", label("archive_export_hyperkitty") + "\n\n" + "\n".join(rows))


if __name__ == "__main__":
    main()
