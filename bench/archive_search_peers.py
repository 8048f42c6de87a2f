"""Issue 24's search mix on public-inbox 1.9 and HyperKitty 1.3.12 (Whoosh) beside sathub, in one run:

    python -m bench.archive_search_peers setup [--peers public-inbox,hyperkitty] [--database-url URL] [--if-missing]
    python -m bench.archive_search --scratch NAME     # sathub's databases of the corpus, indexed
    python -m bench.archive_search_peers run --scratch NAME [--order date|relevance] [--repeat 20] [--peers ...]

`setup` gives each peer the corpus as sathub exports it (bench/peers.py), once, and records in
bench/out/peers/<peer>.json how long that took and how big the indexes are; the table reuses it:
- public-inbox: one v2 inbox per corpus list, `public-inbox-index` (Xapian, level full: phrases
  need its positions), served by `public-inbox-httpd -W0` (one process, as sathub's one worker);
  a search is `GET /<inbox>/?q=…&l=10` (its HTML page; without `l` it shows 200), newest first,
  its default order, or with `&r=1` by relevance (`--order`: sathub is asked for the same order);
- HyperKitty: `hyperkitty_import` of each list into its test settings on SQLite, then Whoosh's
  index built by haystack's `update_index`; served by gunicorn (1 gthread worker, 1 thread, so
  keep-alive) in its own venv; a search is `GET /search?q=…&mlist=<list>` (HTML: HyperKitty has
  no JSON search), 10 results a page by default.

public-inbox searches one inbox a request, so the peers and sathub's second column are all asked
of one list (--peer-list, gpsd-dev by default, the biggest); sathub's first column searches all
lists. Each query is translated into each peer's language (PEER_QUERIES); a query a peer cannot
express is "—". All targets are up at once and asked round-robin, request by request, one
keep-alive connection each, so that a noisy moment of the shared machine hits all of them."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import quote

from starlette.testclient import TestClient

from bench.archive_search import scratch_url
from bench.common import OUT, Server, code_version, database_exists, free_port, label, postgres_running, write_out
from bench.corpus import BIG_LIST, CORPUS_LISTS, corpus_engine
from bench.peers import (
    HYPERKITTY_VENV,
    TIMEOUT,
    django_admin,
    export_mbox,
    hyperkitty,
    hyperkitty_env,
    hyperkitty_import,
    public_inbox,
    versions,
)
from bench.search_mix import MIX, Target, round_robin, sathub_count
from sathub import db
from sathub.app import create_app
from sathub.archive.store.search_index import index_sizes
from sathub.config import Settings

PEERS = ("public-inbox", "hyperkitty")
SETUP_COMMAND = "python -m bench.archive_search_peers setup"
INSTALL_COMMAND = "python -m bench.peers install"
FOLDER = OUT / "peers"
PI_FOLDER = FOLDER / "public-inbox"
HK_WORK = FOLDER / "hyperkitty"
NAMES = [path.name.removesuffix(".mbox.gz") for path in CORPUS_LISTS]
# The mix of bench/archive_search.py (by name) in each peer's language; None: not expressible.
# public-inbox's Xapian parser has s:, f:, d:YYYYMMDD..YYYYMMDD, phrases, OR, -word and word*; its
# f: searches the From: header as stored, which pipermail wrote "esr at thyrsus.com".
# HyperKitty hands the text to haystack's auto_query: words, "phrases" and -word; it escapes
# field prefixes, `*` and ranges, and lowercases OR into a plain word, so those have no peer.
PEER_QUERIES: dict[str, dict[str, str | None]] = {
    "public-inbox": {
        "common word": "gpsd",
        "rare word": "ephemeris",
        "two words": "gps time",
        "phrase": '"release candidate"',
        "f:": 'f:"esr at thyrsus.com"',  # the From: as the pipermail archives (and sathub's export) have it
        "s:": "s:release",
        "date range + word": "d:20100101..20101231 gps",
        "prefix": "satel*",
        "OR": "ntp OR chrony",
        "-word": "gpsd -python",
    },
    "hyperkitty": {
        "common word": "gpsd",
        "rare word": "ephemeris",
        "two words": "gps time",
        "phrase": '"release candidate"',
        "f:": None,
        "s:": None,
        "date range + word": None,
        "prefix": None,
        "OR": None,
        "-word": "gpsd -python",
    },
}


def inbox(address: str) -> str:
    return address.split("@")[0]


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def pi_env() -> dict[str, str]:
    return {**os.environ, "PI_CONFIG": str(PI_FOLDER / "config")}


def installed(peer: str) -> str | None:
    """Why `peer` cannot be measured here, or None when it can."""
    if peer == "public-inbox" and not shutil.which("public-inbox-httpd"):
        return "public-inbox: not installed (apt-get install public-inbox), skipped."
    if peer == "hyperkitty" and not (HYPERKITTY_VENV / "bin" / "gunicorn").exists():
        return f"HyperKitty: no venv at {HYPERKITTY_VENV} ({INSTALL_COMMAND}), skipped."
    return None


def setup_public_inbox(mboxes: dict[str, Path]) -> dict:
    PI_FOLDER.mkdir(parents=True, exist_ok=True)
    (PI_FOLDER / "config").unlink(missing_ok=True)
    started, taken = time.monotonic(), {}
    for name, mbox in mboxes.items():
        taken[name] = public_inbox(PI_FOLDER, inbox(name), name, mbox, pi_env(), level="full")
    seconds = time.monotonic() - started
    # The external index over all inboxes: public-inbox's one way to search all lists at once (/all/).
    shutil.rmtree(PI_FOLDER / "all", ignore_errors=True)
    subprocess.run(
        ["public-inbox-extindex", "--all", str(PI_FOLDER / "all")], env=pi_env(), check=True, timeout=TIMEOUT
    )
    subprocess.run(
        ["git", "config", "-f", str(PI_FOLDER / "config"), "extindex.all.topdir", str(PI_FOLDER / "all")], check=True
    )
    return {
        "seconds": seconds,
        "messages": taken,
        "xapian_bytes": sum(du(PI_FOLDER / inbox(name) / "xap15") for name in mboxes),
        "inbox_bytes": sum(du(PI_FOLDER / inbox(name)) for name in mboxes),
        "extindex_seconds": time.monotonic() - started - seconds,
        "extindex_xapian_bytes": du(PI_FOLDER / "all" / "ei15"),
    }


def setup_hyperkitty(mboxes: dict[str, Path]) -> dict:
    whoosh = HK_WORK / "whoosh"
    python, env = hyperkitty(HYPERKITTY_VENV, HK_WORK, whoosh=whoosh)
    imported = sum(hyperkitty_import(HYPERKITTY_VENV, env, name, mbox) for name, mbox in mboxes.items())
    indexed = django_admin(HYPERKITTY_VENV, env, "update_index", log=HK_WORK / "update_index.log")
    counted = subprocess.run(
        [
            str(python),
            "-c",
            "import django; django.setup(); from hyperkitty.models import Email; print(Email.objects.count())",
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return {
        "import_seconds": imported,
        "index_seconds": indexed,
        "messages": int(counted.stdout),
        "whoosh_bytes": du(whoosh),
        "database_bytes": (HK_WORK / "hyperkitty.db").stat().st_size,
    }


def setup(peers: list[str], database_url: str, if_missing: bool = False) -> None:
    """Each peer in `peers` given the corpus as exported from sathub's database at `database_url`
    (with `if_missing`, only a peer whose earlier setup did not finish)."""
    if if_missing:
        peers = [peer for peer in peers if setup_facts(peer) is None]
        if not peers:
            print("every peer is set up (bench/out/peers/*.json; delete them to set up again)")
            return
    FOLDER.mkdir(parents=True, exist_ok=True)
    engine = corpus_engine(database_url)
    # One client exporting every list: the export budget is for crawlers (docs/archive-crawlers.md).
    settings = Settings(database_url=database_url, base_url="http://bench.test", secret_key="bench", export_budget=0)
    with TestClient(create_app(settings, engine=engine), base_url="http://bench.test") as client:
        mboxes = {name: export_mbox(client, name, FOLDER / f"{name}.mbox") for name in NAMES}
    engine.dispose()
    for peer in peers:
        if (why := installed(peer)) and peer == "public-inbox":
            print(why)
            continue
        facts = setup_public_inbox(mboxes) if peer == "public-inbox" else setup_hyperkitty(mboxes)
        facts["version"] = versions().get(peer, "?")
        setup_file(peer).write_text(json.dumps(facts, indent=1))
        print(peer, facts)


def setup_file(peer: str) -> Path:
    """Where `setup` keeps what it measured of `peer`'s setup (a file each: they may run at once)."""
    return FOLDER / f"{peer}.json"


ALL = "all lists"
# The order the results are asked in: newest first (public-inbox's default, sathub's
# sort=date-desc) or by relevance (public-inbox's `r=1`, sathub's default). HyperKitty's search
# has one order (haystack's relevance), asked alike in both.
ORDERS = ("date", "relevance")
RELEVANCE = {"date": "", "relevance": "&r=1"}


def public_inbox_server(address: str, order: str) -> tuple[Server, list[Target]]:
    """public-inbox-httpd, and its search of the one inbox of `address` and, when the external
    index over all inboxes was built, of all of them (`/all/`)."""
    port = free_port()
    server = Server(
        ["public-inbox-httpd", "-W0", "-l", f"http://127.0.0.1:{port}"], port, OUT / "archive_search_pi.log", pi_env()
    )
    queries = PEER_QUERIES["public-inbox"]
    scopes = {inbox(address): inbox(address), **({ALL: "all"} if (PI_FOLDER / "all").exists() else {})}
    return server, [
        Target(
            f"public-inbox {scope}",
            port,
            {name: (f"/{where}/?q={quote(q)}&l=10{RELEVANCE[order]}" if q else None) for name, q in queries.items()},
            pi_count,
            (200, 404),  # 404: nothing found
        )
        for scope, where in scopes.items()
    ]


def hyperkitty_server(address: str, order: str) -> tuple[Server, list[Target]]:
    """gunicorn serving HyperKitty, and its search of the list `address` and of all lists."""
    port = free_port()
    server = Server(
        [
            str(HYPERKITTY_VENV / "bin" / "gunicorn"),
            *("--workers", "1", "--worker-class", "gthread", "--threads", "1", "--keep-alive", "600"),
            *("--bind", f"127.0.0.1:{port}", "--log-level", "warning", "hk_wsgi:application"),
        ],
        port,
        OUT / "archive_search_hk.log",
        hyperkitty_env(HK_WORK),
    )
    queries = PEER_QUERIES["hyperkitty"]
    return server, [
        Target(
            f"HyperKitty {scope}",
            port,
            {name: (f"/search?q={quote(q)}{limit}" if q else None) for name, q in queries.items()},
            hk_count,
        )
        for scope, limit in ((inbox(address), f"&mlist={quote(address)}"), (ALL, ""))
    ]


def pi_count(body: bytes) -> int:
    """The matches public-inbox's page says it found ("Results 1-10 of ~N", Xapian's estimate)."""
    found = re.search(rb"Results \d+-\d+ of ~?(\d+)", body)
    return int(found[1]) if found else 0


def hk_count(body: bytes) -> int:
    """The matches HyperKitty's page counts ("N messages", its paginator's count)."""
    found = re.search(rb"</span>\s*(\d+) messages", body)
    return int(found[1]) if found else 0


def sathub_targets(backend: str, port: int, address: str, order: str) -> list[Target]:
    """sathub's search API over all lists, and over the one list the peers search, in `order`."""
    api = "/archive/api/search/?q={}&limit=10" + ("&sort=date-desc" if order == "date" else "")
    return [
        Target(f"sathub {backend} {scope}", port, {name: api.format(quote(q)) + limit for name, q in MIX}, sathub_count)
        for scope, limit in ((ALL, ""), (inbox(address), f"&mlist={quote(address)}"))
    ]


def set_up(peer: str) -> bool:
    """Whether `setup` gave `peer` the corpus (its facts are written when it ends; HyperKitty's
    Whoosh index, built last, answers while it grows)."""
    return (PI_FOLDER / "config").exists() if peer == "public-inbox" else (HK_WORK / "whoosh").exists()


def setup_facts(peer: str) -> dict | None:
    path = setup_file(peer)
    return json.loads(path.read_text()) if path.exists() else None


def compare(urls: dict[str, str], peers: list[str], address: str, repeat: int, order: str = "date") -> list[str]:
    """The markdown of the mix on sathub (each backend's database in `urls`) beside `peers`, all
    asked for the results in `order` (ORDERS)."""
    lines: list[str] = []
    targets: list[Target] = []
    for peer in peers:
        why = installed(peer) or (None if set_up(peer) else f"{peer}: not set up ({SETUP_COMMAND}), skipped.")
        if why:
            print(why, flush=True)
            lines += [why, ""]
    ready = [peer for peer in peers if not installed(peer) and set_up(peer)]
    with ExitStack() as stack:
        for backend, url in urls.items():
            server = stack.enter_context(Server.sathub(url, workers=1, log=f"archive_search_peers_{backend}"))
            server.wait_up("/archive/api/lists/")
            targets += sathub_targets(backend, server.port, address, order)
        for peer in ready:
            server, theirs = (public_inbox_server if peer == "public-inbox" else hyperkitty_server)(address, order)
            stack.enter_context(server)  # up when it answers HTTP at all
            targets += theirs
        targets.sort(key=lambda t: not t.name.endswith(ALL))  # the all-lists columns first
        found = round_robin(targets, repeat)
    return lines + mix_table(found, targets, list(urls), ready) + sizes_table(urls, ready)


PEER_NAMES = {"public-inbox": "public-inbox", "hyperkitty": "HyperKitty"}


def cell(found: dict, target: str, name: str) -> str:
    if (target, name) not in found:
        return "—"
    count, median, p95 = found[(target, name)]
    return f"{median:.1f} / {p95:.1f} ({count:,})"


def ratio(found: dict, peer: str, backend: str, name: str) -> str:
    """The peer's median over sathub's on `backend`, for the same query and the same lists."""
    scope = peer.split(" ", 1)[1]
    theirs, mine = found.get((peer, name)), found.get((f"sathub {backend} {scope}", name))
    return f"{theirs[1] / mine[1]:.2f}" if theirs and mine else "—"


def mix_table(found: dict, targets: list[Target], backends: list[str], peers: list[str]) -> list[str]:
    """Median / p95 of each target, then each peer's median over sathub's (below 1: the peer is
    faster), and the mix as each peer was asked it."""
    names = [t.name for t in targets]
    peer_names = [n for n in names if not n.startswith("sathub ")]
    head = ["query", "q", *names, *(f"{n} / sathub {', '.join(backends)}" for n in peer_names)]
    lines = [
        "Median / p95 ms (results) of each query, then the peers' medians over sathub's on the same lists",
        "(below 1: the peer is faster). The results are counts; public-inbox's is Xapian's estimate.",
        "",
        "| " + " | ".join(head) + " |",
        "|---|---|" + "---:|" * (len(head) - 2),
    ]
    for name, query in MIX:
        row = [name, f"`{query}`", *(cell(found, n, name) for n in names)]
        row += [" / ".join(ratio(found, n, b, name) for b in backends) for n in peer_names]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "The mix in each peer's language (— : the peer cannot express it):", ""]
    lines += ["| query | sathub | " + " | ".join(PEER_NAMES[p] for p in peers) + " |"]
    lines += ["|---|---|" + "---|" * len(peers)]
    for name, query in MIX:
        translated = [PEER_QUERIES[p][name] for p in peers]
        lines.append(f"| {name} | `{query}` | " + " | ".join(f"`{q}`" if q else "—" for q in translated) + " |")
    return [*lines, ""]


def sizes_table(urls: dict[str, str], peers: list[str]) -> list[str]:
    lines = ["| system | version | setup | index on disk |", "|---|---|---|---|"]
    for backend, url in urls.items():
        engine = db.create_engine(url)
        with engine.connect() as conn:
            sizes = index_sizes(conn)
        engine.dispose()
        kind = "FTS5 tables" if backend == "sqlite" else "GIN index"
        lines.append(
            f"| sathub {backend} | code {code_version()} | (the import above) | {sizes['index_bytes'] / 1e6:.1f} MB "
            f"({kind}) for {sizes['text_bytes'] / 1e6:.1f} MB of text |"
        )
    for peer in peers:
        facts = setup_facts(peer)
        if facts is None:
            lines.append(f"| {PEER_NAMES[peer]} | | setup not finished: its figures are of the index so far | |")
        elif peer == "public-inbox":
            lines.append(
                f"| public-inbox | {facts['version']} | {sum(facts['messages'].values()):,} messages imported and "
                f"indexed (public-inbox-init, import, public-inbox-index) in {facts['seconds']:.0f} s | "
                f"{facts['xapian_bytes'] / 1e6:.1f} MB (Xapian); the inboxes with git and SQLite "
                f"{facts['inbox_bytes'] / 1e6:.1f} MB; the external index of all lists (/all/, "
                f"{facts['extindex_seconds']:.0f} s) {facts['extindex_xapian_bytes'] / 1e6:.1f} MB more |"
            )
        else:
            lines.append(
                f"| HyperKitty | {facts['version']} | {facts['messages']:,} messages: hyperkitty_import "
                f"{facts['import_seconds']:.0f} s, update_index {facts['index_seconds']:.0f} s | "
                f"{facts['whoosh_bytes'] / 1e6:.1f} MB (Whoosh); its SQLite database "
                f"{facts['database_bytes'] / 1e6:.1f} MB |"
            )
    return [*lines, ""]


def run(args: argparse.Namespace) -> None:
    urls = {}
    for backend in args.backends.split(","):
        url = scratch_url(backend, args.scratch)
        if backend == "postgresql" and not postgres_running():
            print("PostgreSQL: not running, skipped.")
        elif not database_exists(url):
            raise SystemExit(f"{url}: no such database (python -m bench.archive_search --scratch {args.scratch} first)")
        else:
            urls[backend] = url
    lines = [f"# Archive search beside public-inbox and HyperKitty, {args.order} order, {label('the real corpus')}", ""]
    lines += compare(urls, args.peers.split(","), args.peer_list, args.repeat, args.order)
    write_out(f"archive_search_peers_{args.order}.md", "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    set_up_peers = commands.add_parser("setup", help="give each peer the corpus, indexed (kept in bench/out/peers/)")
    set_up_peers.add_argument("--database-url", default=f"sqlite:///{OUT / 'archive_search_peers_corpus.db'}")
    set_up_peers.add_argument("--if-missing", action="store_true", help="skip a peer set up by an earlier run")
    timing = commands.add_parser("run", help="the mix on sathub and the peers, round-robin")
    timing.add_argument("--backends", default="sqlite,postgresql")
    timing.add_argument("--scratch", default="search", help="the databases of `bench.archive_search --scratch NAME`")
    timing.add_argument("--repeat", type=int, default=20)
    timing.add_argument("--order", choices=ORDERS, default="date", help="newest first, or by relevance")
    timing.add_argument("--peer-list", default=BIG_LIST, help="the one list the peers search, a request each")
    for command in (set_up_peers, timing):
        command.add_argument("--peers", default=",".join(PEERS))
    args = parser.parse_args()
    if args.command == "setup":
        setup(args.peers.split(","), args.database_url, args.if_missing)
    else:
        run(args)


if __name__ == "__main__":
    main()
