"""Archive search at 1,000,000 messages (issue 24, "Speed and size"): the query mix of
bench/search_mix.py over HTTP with limit=10, the count included, on an archive generated from
the real corpus's text (bench/archive_import.py's CorpusText: words, phrases, senders, subjects
and dates at their real frequencies, so common words are common).

    python -m bench.archive_search_scale generate [--count 1000000]
    python -m bench.archive_search_scale import [--count 1000000] [--database-url URL]
    python -m bench.archive_search_scale run [--count 1000000] [--database-url URL]... [--repeat 20] [--sort S]

`generate` writes bench/out/archive_search_<count>.mbox.gz (kept: the later steps reuse it).
`import` imports it with `sathub archive import`'s code into a fresh database (SQLite
bench/out/archive_search_<count>.db unless --database-url names another; it is dropped first):
the search triggers index as it goes, so its msg/s is the import's speed with the index at that
size (bench/out/archive_import_search_<count>_<backend>.md); the planner statistics are then
refreshed (ANALYZE, not timed), as autovacuum or an operator would.
`run` times the mix on each database given (default: the SQLite one) and prints, beside each
query's median and p95, its result count and the issue's targets (median <= 20 ms, p95 <= 100
ms), then the index's size beside the text's (bench/out/archive_search_scale.md). Its servers
answer a statement for up to SATHUB_DB_TIMEOUT=120 s unless the environment says otherwise: at
this size PostgreSQL's common words took seconds before migration 0013, and the default 10 s cut
answered 503 instead of a figure."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import sqlalchemy as sa

import sathub
from bench.archive_import import fresh_database, generate, measure
from bench.common import OUT, backend_of, label, write_out
from bench.search_mix import timed_mix
from sathub import db
from sathub.archive.store.search_index import index_sizes

LIST = "bench@lists.example.org"
TARGET_MEDIAN_MS, TARGET_P95_MS = 20, 100
TABLE_HEAD = ["| query | q | results | median ms | p95 ms | target |", "|---|---|---:|---:|---:|---|"]


def mbox(count: int) -> Path:
    return OUT / f"archive_search_{count}.mbox.gz"


def default_url(count: int) -> str:
    return f"sqlite:///{OUT / f'archive_search_{count}.db'}"


def generated(count: int) -> Path:
    path = mbox(count)
    if path.exists():
        print(f"{path} exists: reused (delete it to generate again)")
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    generate(path, count, text_kind="corpus")
    seconds = time.monotonic() - started
    print(f"{count} messages written to {path} ({path.stat().st_size / 2**20:.0f} MB gzip) in {seconds:.0f} s")
    return path


def imported(url: str, count: int) -> None:
    path = generated(count)
    url = fresh_database(url, f"archive_search_{count}")
    measure(url, [(LIST, [path])], f"search_{count}")
    engine = db.create_engine(url)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("ANALYZE")
    engine.dispose()


def sizes_line(url: str) -> str:
    engine = db.create_engine(url)
    with engine.connect() as conn:
        sizes = index_sizes(conn)
        emails = conn.scalar(sa.text("SELECT count(*) FROM emails"))
        table = (
            conn.scalar(sa.text("SELECT pg_total_relation_size('email_search')")) if backend_of(url) != "sqlite" else 0
        )
    engine.dispose()
    return (
        f"{emails:,} emails. Index: {sizes['index_bytes'] / 1e6:,.0f} MB for {sizes['text_bytes'] / 1e6:,.0f} MB of "
        f"text ({sizes['index_bytes'] / sizes['text_bytes']:.2f}x)"
        + (f"; with its table of tsvectors {table / 1e6:,.0f} MB." if table else ".")
    )


def run(urls: list[str], repeat: int, sort: str) -> None:
    lines = [f"# Archive search at scale, {label(f'query mix with limit=10, sort={sort}, count included')}", ""]
    lines.append(f"Targets: median <= {TARGET_MEDIAN_MS} ms, p95 <= {TARGET_P95_MS} ms per query.")
    # The code label names this checkout; a run may import sathub from elsewhere (PYTHONPATH=a
    # snapshot of the committed tree, while others' uncommitted changes sit in this one).
    lines.append(f"sathub imported from {Path(sathub.__file__).parent} (the server inherits the environment).")
    for url in urls:
        lines += [
            "",
            f"## {backend_of(url)}",
            "",
            sizes_line(url),
            "",
            *TABLE_HEAD,
        ]
        for name, query, found, median, p95 in timed_mix(url, repeat, sort):
            met = "met" if median <= TARGET_MEDIAN_MS and p95 <= TARGET_P95_MS else "**missed**"
            results = f"{found:,}" if isinstance(found, int) else found
            lines.append(f"| {name} | `{query}` | {results} | {median:.1f} | {p95:.1f} | {met} |")
    write_out("archive_search_scale.md", "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="write the generated archive (kept and reused)")
    load = commands.add_parser("import", help="import it into a fresh database, the index kept as it goes")
    timing = commands.add_parser("run", help="time the query mix on imported databases")
    for command in (gen, load, timing):
        command.add_argument("--count", type=int, default=1_000_000)
    load.add_argument("--database-url", help="default: SQLite bench/out/archive_search_<count>.db")
    timing.add_argument("--database-url", action="append", help="repeatable; default: the SQLite one")
    timing.add_argument("--repeat", type=int, default=20, help="timed requests per query, after 5 warm-ups")
    timing.add_argument("--sort", default="relevance", help="the API's order: relevance (default), date-desc, date-asc")
    args = parser.parse_args()
    if args.command == "generate":
        generated(args.count)
    elif args.command == "import":
        imported(args.database_url or default_url(args.count), args.count)
    else:
        os.environ.setdefault("SATHUB_DB_TIMEOUT", "120")  # the servers inherit the environment
        run(args.database_url or [default_url(args.count)], args.repeat, args.sort)


if __name__ == "__main__":
    main()
