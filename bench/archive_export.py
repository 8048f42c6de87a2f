"""Archive sources and mbox export (issue 27): what keeping sources costs, how fast the export
goes at each gzip level, its memory on a large export, and its time to first byte.

    python -m bench.archive_export sources                   # per-message compression: zlib levels (zstd if installed)
    python -m bench.archive_export import [--database-url URL]   # corpus import with and without keeping sources
    python -m bench.archive_export levels [--database-url URL]   # export of the corpus: ISA-L levels 0-3, zlib 1, 6
    python -m bench.archive_export compare [--before COMMIT]     # the export's code at COMMIT and now, alternated
    python -m bench.archive_export large [--count 1000000]   # peak RSS of one export of COUNT messages
    python -m bench.archive_export first-byte [--database-url URL]  # time to first byte through `sathub serve`

`levels` reads the rows as the export door does (store/email_sources.export_chunks) from a database
holding the corpus (imported first when empty) and counts the CPU time of this process: MB of
uncompressed mbox per CPU second is the figure per core. `large` generates COUNT emails straight
into the tables (bench/archive_dataset.py: no sources, so every message is rebuilt, the slower
path) and samples the RSS while the export runs. The machine is shared: CPU seconds are the
steadier figure; each run writes bench/out/archive_export_<what>.md. `compare` runs `levels`'
measure (level 1, every corpus list) in child processes, alternately with the `src/` of COMMIT
(extracted by `git archive` under /tmp) and with this tree's, so that both face the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import zlib
from functools import partial
from pathlib import Path

import sqlalchemy as sa

from bench.clients import timed_download
from bench.common import OUT, Server, label, recreate_database, write_out
from bench.corpus import BIG_LIST, CORPUS_LISTS, corpus_engine
from sathub import db
from sathub.archive.export.mbox import gzip_stream
from sathub.archive.ingest.archive_files import RawMessage, read_archives
from sathub.archive.ingest.importer import import_archive
from sathub.archive.mail import kept_source
from sathub.archive.store import email_sources, lists
from sathub.archive.tables import mailing_lists, threads
from sathub.db.engines import connect


def backend(url: str) -> str:
    return db.normalize_url(url).get_backend_name()


def corpus_messages() -> list[bytes]:
    return [m.data for m in read_archives(CORPUS_LISTS) if isinstance(m, RawMessage)]


def cmd_sources(_args) -> None:
    messages = corpus_messages()
    total = sum(map(len, messages))
    codecs = [(f"zlib level {level}", partial(zlib.compress, level=level)) for level in (1, 3, 6, 9)]
    try:
        import zstandard  # type: ignore[import-not-found]

        for level in (3, 19):
            codecs.append((f"zstd level {level}", zstandard.ZstdCompressor(level=level).compress))
        dictionary = zstandard.train_dictionary(110_000, messages[::10])
        codecs.append(("zstd 3 + dictionary", zstandard.ZstdCompressor(level=3, dict_data=dictionary).compress))
    except ImportError:
        pass
    rows = [f"{len(messages):,} messages, {total / len(messages):,.0f} bytes each on average", ""]
    rows += ["| codec | bytes a message | ratio | µs a message (CPU) |", "|---|---|---|---|"]
    for name, compress in codecs:
        started = time.process_time()
        size = sum(len(compress(m)) for m in messages)
        seconds = time.process_time() - started
        rows.append(
            f"| {name} | {size / len(messages):,.0f} | {size / total:.3f} | {seconds * 1e6 / len(messages):.0f} |"
        )
    write_out("archive_export_sources.md", label("archive_export sources") + "\n\n" + "\n".join(rows))


def _import_corpus(url: str) -> tuple[float, float]:
    recreate_database(url)
    engine = db.create_engine(url)
    db.upgrade(engine)
    wall, cpu = time.monotonic(), time.process_time()
    for path in CORPUS_LISTS:
        import_archive(engine, path.name.removesuffix(".mbox.gz"), [path], parse_processes=0)
    result = time.monotonic() - wall, time.process_time() - cpu
    engine.dispose()
    return result


def cmd_import(args) -> None:
    """Parsing in this process (parse_processes=0) so that its CPU time is all of the import's."""
    url = args.database_url or f"sqlite:///{OUT / 'archive_export_import.db'}"
    kept = kept_source.compress
    runs: dict[str, list[tuple[float, float]]] = {"with sources": [], "without sources": []}
    for _ in range(args.repeat):
        for name in runs:  # alternated, so that a noisy moment hits both
            kept_source.compress = kept if name == "with sources" else (lambda data: None)  # type: ignore[assignment]
            runs[name].append(_import_corpus(url))
    kept_source.compress = kept
    count = sum(1 for m in read_archives(CORPUS_LISTS) if isinstance(m, RawMessage))
    rows = ["| import of the corpus | wall s (median) | CPU s (median) | messages / CPU s |", "|---|---|---|---|"]
    for name, values in runs.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        rows.append(f"| {name} | {wall:.1f} | {cpu:.1f} | {count / cpu:,.0f} |")
    write_out(
        "archive_export_import.md",
        label(f"archive_export import ({db.normalize_url(url).get_backend_name()}, {args.repeat} runs each)")
        + "\n\n"
        + "\n".join(rows),
    )


def _export(engine, list_id: int, level: int, codec=None) -> tuple[int, int, float, float]:
    """(mbox bytes, gzip bytes, CPU s, wall s) of one export, the mbox measured by decompressing;
    `codec` the export's (ISA-L) when None, else zlib."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    raw = packed = 0
    cpu = 0.0
    wall = time.monotonic()
    chunks = email_sources.export_chunks(partial(connect, engine), list_id)
    stream = gzip_stream(chunks, level) if codec is None else gzip_stream(chunks, level, codec)
    while True:
        started = time.process_time()
        piece = next(stream, None)
        cpu += time.process_time() - started
        if piece is None:
            break
        packed += len(piece)
        raw += len(inflate.decompress(piece))  # not counted in `cpu`
    return raw, packed, cpu, time.monotonic() - wall


LEVELS = [("ISA-L", level) for level in (0, 1, 2, 3)] + [("zlib", 1), ("zlib", 6)]


def _corpus_export(engine, list_ids: list[int], level: int, codec=None) -> tuple[int, int, float, float]:
    totals = [_export(engine, list_id, level, codec) for list_id in list_ids]
    return (sum(t[0] for t in totals), sum(t[1] for t in totals), sum(t[2] for t in totals), sum(t[3] for t in totals))


def _corpus_list_ids(engine) -> list[int]:
    with engine.connect() as conn:
        return [lists.find_list(conn, path.name.removesuffix(".mbox.gz")).id for path in CORPUS_LISTS]


def cmd_levels(args) -> None:
    url = args.database_url or f"sqlite:///{OUT / 'archive_export_corpus.db'}"
    engine = corpus_engine(url)
    list_ids = _corpus_list_ids(engine)
    rows = [
        "| gzip | mbox MB | .gz MB | ratio | MB/s per core (CPU, median) | MB/s wall (median) |",
        "|---|---|---|---|---|---|",
    ]
    for name, level in LEVELS:
        codec = None if name == "ISA-L" else zlib
        runs = [_corpus_export(engine, list_ids, level, codec) for _ in range(args.repeat)]
        raw, packed = runs[0][0], runs[0][1]
        cpu = statistics.median(r[2] for r in runs)
        wall = statistics.median(r[3] for r in runs)
        rows.append(
            f"| {name} level {level} | {raw / 1e6:.1f} | {packed / 1e6:.1f} | {packed / raw:.3f} "
            f"| {raw / 1e6 / cpu:.0f} | {raw / 1e6 / wall:.0f} |"
        )
    engine.dispose()
    write_out(
        "archive_export_levels.md",
        label(
            f"archive_export levels (every corpus list, {db.normalize_url(url).get_backend_name()}, {args.repeat} runs)"
        )
        + "\n\n"
        + "\n".join(rows),
    )


def cmd_measure(args) -> None:
    """One export of every corpus list at level 1 by whichever sathub this process imports (the
    child of `compare`): one JSON line (mbox bytes, gzip bytes, CPU s, wall s)."""
    engine = corpus_engine(args.database_url)
    codec = zlib if args.zlib else None
    print(json.dumps(_corpus_export(engine, _corpus_list_ids(engine), 1, codec)))
    engine.dispose()


def cmd_compare(args) -> None:
    url = args.database_url or f"sqlite:///{OUT / 'archive_export_corpus.db'}"
    corpus_engine(url).dispose()
    root = Path(__file__).resolve().parent.parent
    before = Path(f"/tmp/sathub_export_before_{args.before}")
    if not before.exists():
        before.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", args.before, "src"], cwd=root, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
    variants = {
        f"before ({args.before}: zlib level 1)": (before / "src", False),
        "after, with zlib level 1 (the Python changes alone)": (root / "src", True),
        "after (ISA-L level 1, the export as it runs)": (root / "src", False),
    }
    runs: dict[str, list[list[float]]] = {name: [] for name in variants}
    for _ in range(args.repeat):
        for name, (src, with_zlib) in variants.items():  # alternated: a noisy moment hits all
            env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{root}"}
            command = [sys.executable, "-m", "bench.archive_export", "measure", "--database-url", url]
            child = subprocess.run(command + (["--zlib"] if with_zlib else []), env=env, cwd=root, capture_output=True)
            if child.returncode:
                raise SystemExit(child.stderr.decode())
            runs[name].append(json.loads(child.stdout.decode().strip().splitlines()[-1]))
    rows = ["| export code | mbox MB | .gz MB | MB/s per core (CPU, median) | CPU s (each run) |"]
    rows.append("|---|---|---|---|---|")
    for name, values in runs.items():
        cpu = statistics.median(v[2] for v in values)
        rows.append(
            f"| {name} | {values[0][0] / 1e6:.1f} | {values[0][1] / 1e6:.1f} | {values[0][0] / 1e6 / cpu:.0f} "
            f"| {', '.join(f'{v[2]:.2f}' for v in values)} |"
        )
    write_out(
        "archive_export_compare.md",
        label(f"archive_export compare (every corpus list, {backend(url)}, {args.repeat} rounds, alternated)")
        + "\n\n"
        + "\n".join(rows),
    )


def _rss() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("RssAnon"))


def cmd_large(args) -> None:
    from bench.archive_dataset import PROBE_LIST, fresh_database, generate

    url = args.database_url or f"sqlite:///{OUT / f'archive_export_{args.count}.db'}"
    engine = db.create_engine(url)
    db.upgrade(engine)
    with engine.connect() as conn:
        found = lists.find_list(conn, PROBE_LIST)
    if found is None:
        engine.dispose()
        engine = fresh_database(url)
        generate(engine, args.count)
    samples: list[tuple[float, int]] = []
    done = threading.Event()
    started = time.monotonic()

    def sample() -> None:
        while not done.wait(1.0):
            samples.append((time.monotonic() - started, _rss()))

    # Every list, one after the other, as one export would stream them: the count is the archive's.
    with engine.connect() as conn:
        list_ids = [row.id for row in conn.execute(mailing_lists.select())]
    before = _rss()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    messages = raw = 0
    cpu = time.process_time()
    for list_id in list_ids:
        chunks = email_sources.export_chunks(partial(connect, engine), list_id)

        def counted(chunks=chunks):
            nonlocal messages
            for chunk in chunks:
                messages += len(chunk[0])
                yield chunk

        for piece in gzip_stream(counted()):
            raw += len(piece)
    cpu = time.process_time() - cpu
    done.set()
    sampler.join()
    wall = time.monotonic() - started
    peak = max([rss for _, rss in samples] + [before])
    series = ", ".join(f"{t:.0f}s {rss / 2**20:.0f}" for t, rss in samples[:: max(1, len(samples) // 12)])
    write_out(
        f"archive_export_large_{args.count}.md",
        label(f"archive_export large ({messages:,} messages rebuilt from their fields, {backend(url)})")
        + "\n\n"
        + f"- {messages:,} messages, {raw / 1e6:.0f} MB of gzip, {wall:.0f} s wall, {cpu:.0f} s CPU "
        f"({messages / cpu:,.0f} messages per CPU second)\n"
        + f"- RSS (anonymous) before {before / 2**20:.0f} MiB, peak during the export {peak / 2**20:.0f} MiB\n"
        + f"- RSS over time (s, MiB): {series}",
    )
    engine.dispose()


def _biggest_thread(url: str) -> tuple[str, str, int]:
    """(list, thread id, emails) of the corpus's biggest thread."""
    engine = db.create_engine(url)
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(mailing_lists.c.name, threads.c.thread_id, threads.c.emails_count)
            .join(mailing_lists, mailing_lists.c.id == threads.c.list_id)
            .order_by(threads.c.emails_count.desc())
            .limit(1)
        ).one()
    engine.dispose()
    return row.name, row.thread_id, row.emails_count


def cmd_first_byte(args) -> None:
    """Through `sathub serve`: the biggest list (first byte, whole answer), python-committers whole
    and the corpus's biggest thread (public-inbox's two measured cases in issue 27)."""
    url = args.database_url or f"sqlite:///{OUT / 'archive_export_corpus.db'}"
    corpus_engine(url).dispose()
    thread_list, thread_id, thread_size = _biggest_thread(url)
    cases = [
        (f"{BIG_LIST} (9,567 messages)", f"/archive/list/{BIG_LIST}/export/gpsd-dev.mbox.gz"),
        (
            "python-committers@python.org (6,777 messages)",
            "/archive/list/python-committers@python.org/export/python-committers.mbox.gz",
        ),
        (
            f"the biggest thread ({thread_size} messages, {thread_list})",
            f"/archive/list/{thread_list}/export/thread.mbox.gz?thread={thread_id}",
        ),
    ]
    rows = [f"`sathub serve` (1 worker), {args.repeat} requests each, medians:", ""]
    rows += ["| export | first byte (max) | whole answer | gzip bytes |", "|---|---|---|---|"]
    with Server.sathub(url, workers=1, log="archive_export_server") as server:
        server.wait_up("/archive/api/lists/")
        for name, path in cases:
            timings = timed_download(server.base + path, args.repeat)
            first = statistics.median(t[0] for t in timings) * 1000
            rows.append(
                f"| {name} | {first:.0f} ms ({max(t[0] for t in timings) * 1000:.0f} ms) "
                f"| {statistics.median(t[1] for t in timings) * 1000:.0f} ms | {timings[0][2]:,} |"
            )
    write_out("archive_export_first_byte.md", label("archive_export first-byte") + "\n\n" + "\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sources")
    for name in ("import", "levels", "first-byte"):
        sub = commands.add_parser(name)
        sub.add_argument("--database-url")
        sub.add_argument("--repeat", type=int, default=3)
    compare = commands.add_parser("compare")
    compare.add_argument("--before", default="5a793b5", help="the commit to compare with (default: before ISA-L)")
    compare.add_argument("--database-url")
    compare.add_argument("--repeat", type=int, default=5)
    measure = commands.add_parser("measure")
    measure.add_argument("--database-url", required=True)
    measure.add_argument("--zlib", action="store_true")
    large = commands.add_parser("large")
    large.add_argument("--count", type=int, default=1_000_000)
    large.add_argument("--database-url")
    args = parser.parse_args()
    {
        "sources": cmd_sources,
        "import": cmd_import,
        "levels": cmd_levels,
        "large": cmd_large,
        "first-byte": cmd_first_byte,
        "compare": cmd_compare,
        "measure": cmd_measure,
    }[args.command](args)


if __name__ == "__main__":
    main()
