"""The one door to the benchmarks: `make bench SUITE=status|archive|faults|peers|scale|micro|all`, or

    python -m bench.run --suite status [--backends sqlite,postgresql] [--quick]

Each step is `python -m bench.<module> ...` in a process of its own, on SQLite and, when it
answers, PostgreSQL (SATHUB_BENCH_PG, a server URL without database name; default
postgresql://postgres@127.0.0.1:5432). Datasets are built when missing and kept in bench/out/;
the PostgreSQL databases are named sathub_bench*. At the end the tables this run wrote are
gathered into bench/out/summary_<suite>.md and printed. What each suite measures, and the last
figures: bench/README.md.

`all` is status, archive and faults. peers (beside public-inbox and HyperKitty, which it needs
installed: --install-peers installs them), scale (search at 1,000,000 messages) and micro (SQLite's
event triggers, the idle penalty) run when named.

--quick runs every step at its smallest: a check that the door works, not figures to quote.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from bench.common import OUT, pg_url, postgres_running, require_wrk
from bench.peers import install, missing

SUITES = ("status", "archive", "faults", "peers", "scale", "micro")
ALL = ("status", "archive", "faults")  # `--suite all`; the others take hours, or measure one detail


def status_steps(backend: str, quick: bool, duration: int, rounds: int) -> list[list[str]]:
    if backend == "sqlite":
        large, small, live = (f"sqlite:///{OUT / name}.db" for name in ("status", "status_1k", "status_live"))
        walk = f"sqlite:///{OUT / 'status_walk'}.db"
    else:
        large, small, live = (pg_url(name) for name in ("sathub_bench", "sathub_bench_1k", "sathub_bench_live"))
        walk = pg_url("sathub_bench_walk")
    seconds = "3" if quick else "6"
    return [
        ["status_dataset", "--database-url", large, "--reports", "1000000", "--days", "30", "--if-missing"],
        ["status_dataset", "--database-url", small, "--reports", "1000", "--days", "30", "--if-missing"],
        # A live service's density (~330 reports a day): the status page's window as deployed.
        ["status_dataset", "--database-url", live, "--reports", "100000", "--days", "300", "--if-missing"],
        ["status_sql", "--small", small, "--large", large],
        ["status_load", "--database-url", large, "--duration", str(duration), "--rounds", str(rounds)],
        ["status_after_write", "--database-url", large, "--duration", seconds],
        ["status_after_write", "--database-url", live, "--only", "page", "--duration", seconds],
        ["status_burst", "--database-url", large, "--duration", str(duration + 2), "--rounds", str(rounds)],
        # Every report checked against the sky: POSTs with elements loaded and without, alternated.
        [
            "status_visibility",
            "--database-url",
            f"sqlite:///{OUT / 'status_visibility'}.db" if backend == "sqlite" else pg_url("sathub_bench_visibility"),
            *(["--rounds", "1", "--duration", "1"] if quick else ["--rounds", str(2 * rounds + 2), "--duration", "5"]),
        ],
        # /api/v2: the keyset walk (8 years at a live density, 1M reports: page 10,000) and the 304 path.
        ["status_dataset", "--database-url", walk, "--reports", "1000000", "--days", "3000", "--if-missing"],
        ["status_v2", "--database-url", walk, "--duration", seconds],
        # /api/v2/passes: every satellite with elements over 24 h for one grid square, cold and cached.
        [
            "status_passes",
            "--database-url",
            walk.replace("status_walk", "status_passes").replace("_bench_walk", "_bench_passes"),
        ],
        # /api/v2/stream: delivery across 2 processes, 5,000 subscribers' memory, POST speed while they listen.
        ["status_stream", "--backend", backend, *(["--posts", "20", "--subscribers", "500"] if quick else [])],
        # webhooks: latency from a report's commit to each of 100 hooks, beside dead receivers, under a stress
        ["status_webhooks", "--backend", backend, *(["--reports", "5"] if quick else [])],
    ]


def archive_steps(backend: str, quick: bool) -> list[list[str]]:
    emails, repeat = (20_000, "20") if quick else (100_000, "100")
    if backend == "sqlite":
        corpus, generated, live, many_parts = (
            f"sqlite:///{OUT / name}.db"
            for name in ("archive_import_corpus", f"archive_{emails}", "archive_live", "archive_many_parts")
        )
    else:
        corpus, generated, live, many_parts = (
            pg_url(f"sathub_bench_archive_{name}") for name in ("corpus", f"generated_{emails}", "live", "many_parts")
        )
    steps = [
        ["archive_import", "corpus", "--database-url", corpus],
        ["archive_sql", corpus],
        ["archive_export", "levels", "--database-url", corpus],
        ["archive_export", "first-byte", "--database-url", corpus],
        ["archive_read", "existing", "--database-url", corpus, "--repeat", repeat],
        ["archive_pages", "--database-url", corpus, "--repeat", repeat],
        # a 304 (the revision alone) against a 200 of the largest thread and a message of it
        ["archive_conditional", "--database-url", corpus, "--repeat", "40" if quick else "200"],
        # searches a second with the per-client budget off and spent on every search
        ["archive_budgets", corpus, "--seconds", "3" if quick else "8"],
        # a 64-connection crawler beside a reader, then behind nginx, beside public-inbox when set up
        ["archive_crawler", "--database-url", corpus, "--seconds", "3" if quick else "20"],
        ["archive_search", "--backends", backend, "--repeat", "10" if quick else "40"],
        [
            "archive_read",
            "generated",
            "--emails",
            str(emails),
            "--keep",
            "--database-url",
            generated,
            "--repeat",
            repeat,
        ],
        [
            "archive_live",
            "--database-url",
            live,
            "--keep",
            "--emails",
            str(emails),
            "--seconds",
            "3" if quick else "10",
            "--idle-seconds",
            "3" if quick else "5",
        ],
        [
            "archive_many_parts",
            "--database-url",
            many_parts,
            *(["--seconds", "2", "--rounds", "1"] if quick else []),
        ],
        # hide and delete one message, one sender's 1,000 beside a reader, reads with 2 % removed
        # (on two copies of the corpus: the corpus itself is left as it is)
        [
            "archive_removal",
            "--database-url",
            corpus,
            *(["--messages", "30", "--rounds", "1", "--repeat", "5"] if quick else []),
        ],
        # OVER of 10,000 articles, ARTICLE by number and 1,000 idle connections beside
        # public-inbox-nntpd (when installed), on the corpus as one group
        [
            "archive_nntp",
            "--database-url",
            f"sqlite:///{OUT / 'archive_nntp'}.db" if backend == "sqlite" else pg_url("sathub_bench_archive_nntp"),
            *(["--repeat", "3", "--articles", "20", "--idle", "100"] if quick else []),
        ],
    ]
    if backend == "sqlite":  # the import of a generated archive: the rate target is SQLite's
        mbox = OUT / f"archive_import_{emails}.mbox.gz"
        if not mbox.exists():
            steps.append(["archive_import", "generate", "--count", str(emails), "--out", str(mbox)])
        steps.append(["archive_import", "run", str(mbox)])
    return steps


def faults_steps(postgres: bool, quick: bool) -> list[list[str]]:
    steps = [
        ["faults.crash", "--backend", "both" if postgres else "sqlite", "--kills", "2" if quick else "5"],
        ["faults.slow_clients", *(["--sockets", "50", "--seconds", "1", "--watch", "11"] if quick else [])],
        ["faults.soak", "--cases", "300" if quick else "5000"],
    ]
    if postgres:
        steps[:0] = [
            ["faults.multiprocess", "--posts", "2000" if quick else "20000"],
            ["faults.outage", *(["--outage", "2", "--warm", "1", "--after", "2"] if quick else ["--outage", "5"])],
        ]
    return steps


def peers_steps(backends: list[str], quick: bool) -> list[list[str]]:
    """The search mix and the export beside public-inbox and HyperKitty. The peers' setup is kept
    in bench/out/peers/ and reused (its first run takes ~2 h, mostly HyperKitty's import and Whoosh
    index); the export comparison imports the corpus into a fresh HyperKitty each time (~15 min)."""
    search = ["--backends", ",".join(backends), "--scratch", "peers", "--repeat", "3" if quick else "20"]
    return [
        ["archive_search_peers", "setup", "--if-missing"],
        ["archive_search", *search],
        ["archive_search_peers", "run", *search, "--order", "date"],
        ["archive_search_peers", "run", *search, "--order", "relevance"],
        ["archive_export_hyperkitty", "--repeat", "1" if quick else "3"],
        ["archive_export_public_inbox", "--repeat", "1" if quick else "5"],
    ]


def scale_steps(backends: list[str], quick: bool) -> list[list[str]]:
    """The search mix at 1,000,000 messages generated from the corpus's text: ~3 min to generate
    (kept), 3-7 min per backend to import on a quiet machine."""
    count = "20000" if quick else "1000000"
    urls = {"sqlite": f"sqlite:///{OUT / f'archive_search_{count}.db'}", "postgresql": pg_url(f"sathub_bench_{count}")}
    return [
        ["archive_search_scale", "generate", "--count", count],
        *(["archive_search_scale", "import", "--count", count, "--database-url", urls[b]] for b in backends),
        [
            "archive_search_scale",
            "run",
            "--count",
            count,
            "--repeat",
            "3" if quick else "10",
            *(option for b in backends for option in ("--database-url", urls[b])),
        ],
    ]


def micro_steps(quick: bool) -> list[list[str]]:
    """One detail each: SQLite's stream event triggers per report, and a server's idle penalty."""
    return [
        ["status_stream_triggers", *(["--reports", "200", "--rounds", "1"] if quick else ["--rounds", "9"])],
        ["idle_penalty", *(["--requests", "5"] if quick else [])],
    ]


def gather(since: float, suite: str) -> str:
    """The result tables written during this run, in the order they were written (query plans left
    out: they stay in their own files)."""
    written = sorted(
        (path for path in OUT.glob("*.md") if path.stat().st_mtime >= since and not path.name.startswith("summary_")),
        key=lambda path: path.stat().st_mtime,
    )
    parts = [path.read_text(encoding="utf-8").split("\n### Query plans")[0].strip() for path in written]
    text = "\n\n".join(f"<!-- bench/out/{path.name} -->\n{part}" for path, part in zip(written, parts, strict=True))
    (OUT / f"summary_{suite}.md").write_text(text + "\n", encoding="utf-8")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=[*SUITES, "all"], default="all")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--duration", type=int, default=3, help="seconds per wrk run of status_load")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of status_load and status_burst")
    parser.add_argument("--quick", action="store_true", help="every step at its smallest (a smoke run)")
    parser.add_argument(
        "--install-peers", action="store_true", help="peers: install HyperKitty's venv (pip) and public-inbox (apt-get)"
    )
    args = parser.parse_args()
    if args.quick:
        args.duration, args.rounds = 1, 1
    backends = args.backends.split(",")
    if "postgresql" in backends and not postgres_running():
        print("PostgreSQL does not answer: its steps are skipped", flush=True)
        backends.remove("postgresql")
    suites = ALL if args.suite == "all" else (args.suite,)
    if "status" in suites:
        require_wrk()
    if "peers" in suites:
        if args.install_peers:
            install()
        if lacking := missing():
            print("The peers suite needs what this machine lacks:\n  " + "\n  ".join(lacking), file=sys.stderr)
            print("(make bench SUITE=peers BENCH_ARGS=--install-peers installs them; apt-get as root)", file=sys.stderr)
            return 1
    steps: list[list[str]] = []
    for suite in suites:
        if suite == "faults":
            steps += faults_steps("postgresql" in backends, args.quick)
        elif suite == "peers":
            steps += peers_steps(backends, args.quick)
        elif suite == "scale":
            steps += scale_steps(backends, args.quick)
        elif suite == "micro":
            steps += micro_steps(args.quick)
        else:
            for backend in backends:
                steps += (
                    status_steps(backend, args.quick, args.duration, args.rounds)
                    if suite == "status"
                    else archive_steps(backend, args.quick)
                )

    OUT.mkdir(parents=True, exist_ok=True)
    began, failed = time.time(), []
    for number, (module, *options) in enumerate(steps, 1):
        command = [sys.executable, "-m", f"bench.{module}", *options]
        print(f"\n[{number}/{len(steps)}] python -m bench.{module} {' '.join(options)}", flush=True)
        started = time.monotonic()
        if subprocess.run(command).returncode:
            failed.append(" ".join(command[2:]))
        print(f"[{number}/{len(steps)}] {time.monotonic() - started:.0f} s", flush=True)
    print(f"\n\n# Summary ({args.suite}, {(time.time() - began) / 60:.1f} min)\n", flush=True)
    print(gather(began, args.suite))
    if failed:
        print("\nFailed (a fault check, or an error):\n  " + "\n  ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
