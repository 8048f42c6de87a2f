"""Archive search (issue 24) on the real corpus, on each backend given:

    python -m bench.archive_search [--backends sqlite,postgresql] [--repeat 50] [--mix-only] [--scratch NAME]

For each backend, in one run:
1. the corpus of shared/data/mail imported into a fresh database twice, once as migrated (the
   search triggers on) and once with the search triggers dropped: messages per second of each,
   and the ratio (the cost of indexing in the import's transactions);
2. the on-disk size of the index (SQLite: the FTS5 table's pages, from dbstat; PostgreSQL: the
   GIN index, and the table of tsvectors it is built from) beside the bytes of text it indexes;
3. `sathub serve --workers 1` on the indexed database, and the fixed query mix (bench/search_mix.py)
   over HTTP on one keep-alive connection (`/archive/api/search/?q=…&limit=10`, the count
   included): each query warmed up, then timed --repeat times; median and 95th percentile, and
   the result count; then the whole mix's median and p95.

The same mix beside public-inbox and HyperKitty, on the databases this left: bench/archive_search_peers.py
(`--suite peers`); at 1,000,000 messages: bench/archive_search_scale.py (`--suite scale`)."""

from __future__ import annotations

import argparse
import re

import sqlalchemy as sa

from bench.common import (
    MAIL,
    OUT,
    label,
    pg_url,
    postgres_running,
    recreate_database,
    scratch_sqlite,
    write_out,
)
from bench.search_mix import timed_mix
from sathub import db
from sathub.archive.ingest.importer import import_archive
from sathub.archive.store.search_index import index_sizes

LISTS = {
    "gpsd-dev@lists.berlios.de": [MAIL / "gpsd-dev@lists.berlios.de.mbox.gz"],
    "gpsd-users@lists.berlios.de": [MAIL / "gpsd-users@lists.berlios.de.mbox.gz"],
    "python-committers@python.org": [MAIL / "python-committers@python.org.mbox.gz"],
    "3gpp_tsg_sa_wg4_evs@list.etsi.org": [MAIL / "3gpp_tsg_sa_wg4_evs@list.etsi.org.mbox.gz"],
    "edge@example.com": [MAIL / "edge"],
}
SQLITE_TRIGGERS = [
    "emails_search_insert",
    "emails_search_update_forget",
    "emails_search_update_add",
    "emails_search_delete",
    "attachments_search_insert_forget",
    "attachments_search_insert_add",
    "attachments_search_delete_forget",
    "attachments_search_delete_add",
    "attachments_search_update_forget",
    "attachments_search_update_add",
    "attachments_search_move_forget",
    "attachments_search_move_add",
]
PG_TRIGGERS = [
    ("emails_search_insert", "emails"),
    ("emails_search_update", "emails"),
    ("attachments_search_insert", "attachments"),
    ("attachments_search_delete", "attachments"),
    ("attachments_search_update", "attachments"),
]


def fresh(backend: str, name: str) -> str:
    """An empty database `name` (the SQLite file scratch_<name>.db, the PostgreSQL database
    sathub_bench_<name>, or `name` itself when it carries the h<N>_ prefix of a scratch name)."""
    if backend == "sqlite":
        return scratch_sqlite(name)
    url = pg_url(pg_name(name))
    recreate_database(url)
    return url


def pg_name(name: str) -> str:
    return name if re.match(r"h\d+_", name) else f"sathub_bench_{name}"


def imported(url: str, *, indexed: bool) -> tuple[float, int]:
    """(messages per second, messages) of the whole corpus imported into `url`."""
    engine = db.create_engine(url)
    db.upgrade(engine)
    if not indexed:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                for trigger, table in PG_TRIGGERS:
                    conn.exec_driver_sql(f"DROP TRIGGER {trigger} ON {table}")
            else:
                for trigger in SQLITE_TRIGGERS:
                    conn.exec_driver_sql(f"DROP TRIGGER {trigger}")
    seconds = messages = 0
    for name, paths in LISTS.items():
        summary = import_archive(engine, name, paths)
        seconds += summary.seconds
        messages += summary.imported
    engine.dispose()
    return messages / seconds, messages


TABLE_HEAD = ["| query | q | results | median ms | p95 ms |", "|---|---|---:|---:|---:|"]


def scratch_url(backend: str, name: str = "search") -> str:
    return f"sqlite:///{OUT / f'scratch_{name}.db'}" if backend == "sqlite" else pg_url(pg_name(name))


def mix_rows(url: str, repeat: int) -> list[str]:
    return [
        f"| {name} | `{query}` | {found} | {median:.2f} | {p95:.2f} |"
        for name, query, found, median, p95 in timed_mix(url, repeat)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument(
        "--mix-only", action="store_true", help="time the query mix on the databases a previous run imported"
    )
    parser.add_argument(
        "--scratch",
        default="search",
        help="the scratch databases' name: scratch_<name>.db, and sathub_bench_<name> or, for h<N>_…, <name>",
    )
    args = parser.parse_args()
    lines = [f"# Archive search, {label('the real corpus')}", ""]
    for backend in args.backends.split(","):
        if backend == "postgresql" and not postgres_running():
            lines.append("PostgreSQL: not running, skipped.")
            continue
        url = scratch_url(backend, args.scratch)
        if args.mix_only:
            lines += [f"## {backend}", "", "(the query mix only, on the database of an earlier run)", ""]
            lines += [*TABLE_HEAD, *mix_rows(url, args.repeat), ""]
            continue
        plain, plain_count = imported(fresh(backend, f"{args.scratch}_plain"), indexed=False)
        fresh(backend, args.scratch)
        speed, count = imported(url, indexed=True)
        engine = db.create_engine(url)
        with engine.connect() as conn:
            sizes = index_sizes(conn)
            table = conn.scalar(sa.text("SELECT pg_total_relation_size('email_search')")) if backend != "sqlite" else 0
        engine.dispose()
        lines += [
            f"## {backend}",
            "",
            f"Import of {count} messages: {speed:,.0f} msg/s with the index, {plain:,.0f} msg/s without "
            f"({plain_count} messages); indexing costs {1 - speed / plain:.0%} of the import's speed.",
            f"Index: {sizes['index_bytes'] / 1e6:.1f} MB for {sizes['text_bytes'] / 1e6:.1f} MB of text "
            f"({sizes['index_bytes'] / sizes['text_bytes']:.2f}x)"
            + (f"; with its table of tsvectors {table / 1e6:.1f} MB." if table else "."),
            "",
            *TABLE_HEAD,
        ]
        lines += mix_rows(url, args.repeat)
        lines.append("")
    write_out(f"archive_search_{args.backends.replace(',', '_')}.md", "\n".join(lines))


if __name__ == "__main__":
    main()
