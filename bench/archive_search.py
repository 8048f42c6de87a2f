"""Archive search (issue 24) on the real corpus, on each backend given:

    python -m bench.archive_search [--backends sqlite,postgresql] [--repeat 50] [--mix-only]
                                   [--peers public-inbox,hyperkitty] [--peer-list ADDRESS] [--scratch NAME]
                                   [--order date|relevance]

For each backend, in one run:
1. the corpus of shared/data/mail imported into a fresh database twice, once as migrated (the
   search triggers on) and once with the search triggers dropped: messages per second of each,
   and the ratio (the cost of indexing in the import's transactions);
2. the on-disk size of the index (SQLite: the FTS5 table's pages, from dbstat; PostgreSQL: the
   GIN index, and the table of tsvectors it is built from) beside the bytes of text it indexes;
3. `sathub serve --workers 1` on the indexed database, and the fixed query mix below over HTTP on
   one keep-alive connection (`/archive/api/search/?q=…&limit=10`, the count included): each query
   warmed up, then timed --repeat times; median and 95th percentile, and the result count.

With --peers public-inbox,hyperkitty, then, the same mix on those peers beside sathub (results asked
newest first, public-inbox's default, or with --order relevance by relevance), all servers
up at once and asked round-robin (bench/archive_search_peers.py; its `setup` first). Not measured
here: the 1,000,000-message archive."""

from __future__ import annotations

import argparse
import http.client
import re
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import quote

import sqlalchemy as sa

from bench.archive_export import BIG_LIST
from bench.common import (
    MAIL,
    OUT,
    Server,
    label,
    percentile,
    pg_url,
    postgres_running,
    recreate_database,
    scratch_sqlite,
    write_out,
)
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
# The mix: a common word, a rare word, two words, a phrase, f:, s:, a date range with a
# word, a prefix, an OR, a -word.
MIX = [
    ("common word", "gpsd"),
    ("rare word", "ephemeris"),
    ("two words", "gps time"),
    ("phrase", '"release candidate"'),
    ("f:", "f:esr@thyrsus.com"),
    ("s:", "s:release"),
    ("date range + word", "d:2010-01-01..2010-12-31 gps"),
    ("prefix", "satel*"),
    ("OR", "ntp OR chrony"),
    ("-word", "gpsd -python"),
]
WARM_UP = 5  # requests of each query before the timed ones
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


@dataclass
class Target:
    """A server asked the mix on one keep-alive connection: its path for each query of the mix (by
    name; None where it cannot express the query), and how its answer tells the number of results."""

    name: str
    port: int
    paths: Mapping[str, str | None]
    count: Callable[[bytes], int]
    answers: tuple[int, ...] = (200,)  # the statuses of a search that worked


def sathub_count(body: bytes) -> int:
    return int(body.split(b'"count":', 1)[1].split(b",", 1)[0])


def asked_once(connection: http.client.HTTPConnection, path: str) -> tuple[http.client.HTTPResponse, bytes, float]:
    """(response, body, ms) of one GET; asked again on a new connection when the server had
    closed the idle one (HTTP allows it: gunicorn does after its keep-alive time)."""
    try:
        return _get(connection, path)
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        connection.close()  # the next request opens a new connection
        return _get(connection, path)


def _get(connection: http.client.HTTPConnection, path: str) -> tuple[http.client.HTTPResponse, bytes, float]:
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    return response, body, (time.perf_counter() - started) * 1000


def round_robin(
    targets: list[Target], repeat: int, every_time: list[float] | None = None
) -> dict[tuple[str, str], tuple[int, float, float]]:
    """(results, median ms, p95 ms) of each target and query name: each query warmed up on each
    target, then asked `repeat` times of each in turn, request by request, so that a noisy moment
    of the machine hits every target alike. Every timed request's ms also go to `every_time`."""
    connections = {t.name: http.client.HTTPConnection("127.0.0.1", t.port, timeout=60) for t in targets}
    found, counts = {}, {}
    for name, _ in MIX:
        asked = [(t, path) for t in targets if (path := t.paths.get(name))]
        samples: dict[str, list[float]] = {t.name: [] for t, _ in asked}
        for i in range(WARM_UP + repeat):
            for target, path in asked:
                response, body, elapsed = asked_once(connections[target.name], path)
                if i < WARM_UP:
                    assert response.status in target.answers, (target.name, name, response.status, body[:300])
                    counts[target.name] = target.count(body)
                else:
                    samples[target.name].append(elapsed)
                    if every_time is not None:
                        every_time.append(elapsed)
        for target, _ in asked:
            times = samples[target.name]
            found[(target.name, name)] = (counts[target.name], statistics.median(times), percentile(times, 95))
    for connection in connections.values():
        connection.close()
    return found


def timed_mix(url: str, repeat: int) -> list[tuple[str, str, int | str, float, float]]:
    """Each query's (name, q, results, median ms, p95 ms), then the whole mix's: the median and
    95th percentile of all its requests together (the issue's "median per search for a mix")."""
    every_time: list[float] = []
    with Server.sathub(url, workers=1, log="archive_search") as server:
        paths = {name: f"/archive/api/search/?q={quote(query)}&limit=10" for name, query in MIX}
        found = round_robin([Target("sathub", server.port, paths, sathub_count)], repeat, every_time)
    whole = ("**the whole mix**", "(all requests above)", "", statistics.median(every_time), percentile(every_time, 95))
    return [*((name, query, *found[("sathub", name)]) for name, query in MIX), whole]


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
        "--peers", default="", help="public-inbox,hyperkitty: the mix on them too, side by side (archive_search_peers)"
    )
    parser.add_argument("--peer-list", default=BIG_LIST, help="the one list the peers search, a request each")
    parser.add_argument(
        "--order", choices=("date", "relevance"), default="date", help="peers: newest first, or by relevance"
    )
    parser.add_argument(
        "--scratch",
        default="search",
        help="the scratch databases' name: scratch_<name>.db, and sathub_bench_<name> or, for h<N>_…, <name>",
    )
    args = parser.parse_args()
    lines = [f"# Archive search, {label('the real corpus')}", ""]
    urls = {}
    for backend in args.backends.split(","):
        if backend == "postgresql" and not postgres_running():
            lines.append("PostgreSQL: not running, skipped.")
            continue
        urls[backend] = url = scratch_url(backend, args.scratch)
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
    if args.peers:
        # Imported here: archive_search_peers imports this module's mix and timing.
        from bench.archive_search_peers import compare

        lines += [f"## Beside public-inbox and HyperKitty ({args.order} order)", ""]
        lines += compare(urls, args.peers.split(","), args.peer_list, args.repeat, args.order)
    text = "\n".join(lines)
    peers = f"_{args.peers.replace(',', '_')}" if args.peers else ""
    write_out(f"archive_search_{args.backends.replace(',', '_')}{peers}.md", text)


if __name__ == "__main__":
    main()
