"""The archive's NNTP server beside public-inbox-nntpd 1.9 on the same mail (issue 39, section 3,
"Speed"): OVER of 10,000 articles, ARTICLE by number, and 1,000 idle connections' memory.

    python -m bench.archive_nntp --database-url URL [--repeat 20] [--articles 200] [--idle 1000]

No list of the corpus holds 10,000 messages, so the group is every corpus list imported into one
list (GROUP_LIST) of the database at URL (imported when missing, never written after).
public-inbox is given the same mail as sathub exports it (bench/peers.py): one v2 inbox whose
`newsgroup` is sathub's name of the group, indexed at level basic (its nntpd reads over.sqlite3
alone), kept in bench/out/peers/nntp/ and reused. Both servers run at once, one process each
(`sathub serve --workers 1 --nntp-port`, `public-inbox-nntpd -W0`), over one connection each:

1. idle: the server's RSS (/proc) after the greeting of one connection, then with `--idle` more
   connections open that read their greeting and wait; first, before anything else grows its heap.
2. `OVER 1-10000`: wall ms from sending the command to reading the block's last line, the two
   servers asked in turn, `--repeat` times after 2 warm-ups.
3. `ARTICLE n` for `--articles` numbers spread over the group, in turn, by number."""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import time
from pathlib import Path

import sqlalchemy as sa

from bench.common import (
    OUT,
    Server,
    database_exists,
    free_port,
    label,
    percentile,
    recreate_database,
    vacuum_analyze,
    write_out,
)
from bench.corpus import CORPUS_LISTS
from bench.peers import export_mbox, public_inbox, versions
from sathub import db
from sathub.archive.ingest.importer import import_archive
from sathub.archive.nntp.groups import group_name
from sathub.archive.store import lists
from sathub.archive.tables import emails

GROUP_LIST = "corpus@bench.example"
GROUP = group_name(GROUP_LIST)
OVER_RANGE = 10_000
PI_FOLDER = OUT / "peers" / "nntp"
PI_INBOX = "corpus"


# The group on each side ----------------------------------------------------------------------------


def group_engine(url: str) -> sa.Engine:
    """The database at `url` with the corpus imported into GROUP_LIST (when it is not there)."""
    if not database_exists(url):
        recreate_database(url)
    engine = db.create_engine(url)
    db.upgrade(engine)
    with engine.connect() as conn:
        found = lists.find_list(conn, GROUP_LIST)
    if found is None:
        print(import_archive(engine, GROUP_LIST, CORPUS_LISTS).describe(), flush=True)
        vacuum_analyze(engine)
    return engine


def pi_env() -> dict[str, str]:
    return {**os.environ, "PI_CONFIG": str(PI_FOLDER / "config")}


def set_up_public_inbox(url: str, engine: sa.Engine) -> int:
    """public-inbox's inbox of the group (set up once): the messages it holds."""
    done = PI_FOLDER / "messages"
    if done.exists():
        return int(done.read_text())
    from starlette.testclient import TestClient

    from sathub.app import create_app
    from sathub.config import Settings

    PI_FOLDER.mkdir(parents=True, exist_ok=True)
    (PI_FOLDER / "config").unlink(missing_ok=True)
    settings = Settings(database_url=url, base_url="http://bench.test", export_budget=0)
    with TestClient(create_app(settings, engine=engine), base_url="http://bench.test") as client:
        mbox = export_mbox(client, GROUP_LIST, PI_FOLDER / "corpus.mbox")
    env = pi_env()
    taken = public_inbox(PI_FOLDER, PI_INBOX, GROUP_LIST, mbox, env, level="basic")
    config = ["git", "config", "-f", env["PI_CONFIG"]]
    subprocess.run([*config, f"publicinbox.{PI_INBOX}.newsgroup", GROUP], check=True)
    mbox.unlink()
    done.write_text(str(taken))
    return taken


# A bare NNTP client ----------------------------------------------------------------------------------


class Connection:
    """One NNTP connection: a command sent, its whole answer read (a block to its last line)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.greeting = self._line()

    def _line(self) -> bytes:
        data = b""
        while not data.endswith(b"\r\n"):
            data += self.sock.recv(4096)
        return data

    def ask(self, command: str, *, block: bool) -> bytes:
        self.sock.sendall(command.encode() + b"\r\n")
        data = self.sock.recv(1 << 16)
        if not block or not data.startswith((b"2", b"1")):
            while not data.endswith(b"\r\n"):
                data += self.sock.recv(1 << 16)
            return data
        chunks = [data]
        while not (data.endswith(b"\r\n.\r\n") or (len(chunks) == 1 and data.endswith(b"\n.\r\n"))):
            data = self.sock.recv(1 << 16)
            assert data, "connection closed mid-answer"
            chunks.append(data)
            if len(data) < 5:  # the terminator split across reads
                data = b"".join(chunks[-2:])
        return b"".join(chunks)

    def close(self) -> None:
        self.sock.close()


def wait_nntp(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        assert process.poll() is None, f"the NNTP server on {port} exited {process.returncode}"
        try:
            Connection(port).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"no NNTP server on {port} within {timeout} s")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no RSS for {pid}")


# The measurements ------------------------------------------------------------------------------------


def idle_growth(port: int, pid: int, count: int) -> tuple[int, int]:
    """(RSS KiB with one connection, growth KiB with `count` more, idle)."""
    first = Connection(port)
    first.ask(f"GROUP {GROUP}", block=False)
    time.sleep(1)
    before = rss_kib(pid)
    idle = [Connection(port) for _ in range(count)]
    assert all(connection.greeting.startswith(b"20") for connection in idle), {c.greeting for c in idle}
    time.sleep(1)
    after = rss_kib(pid)
    for connection in [first, *idle]:
        connection.close()
    return before, after - before


def timed(connection: Connection, command: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    answer = connection.ask(command, block=True)
    return (time.perf_counter() - started) * 1000, answer


def in_turn(connections: dict[str, Connection], commands: list[str], warm: int) -> dict[str, list[float]]:
    """Wall ms of each command on each server, the servers asked in turn (which first alternating)."""
    samples: dict[str, list[float]] = {name: [] for name in connections}
    names = list(connections)
    for number, command in enumerate(commands):
        for name in names if number % 2 else reversed(names):
            ms, answer = timed(connections[name], command)
            assert answer[:3] in (b"224", b"220"), (name, command, answer[:200])
            if number >= warm:
                samples[name].append(ms)
    return samples


def over_lines(connection: Connection) -> int:
    return connection.ask(f"OVER 1-{OVER_RANGE}", block=True).count(b"\r\n") - 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--repeat", type=int, default=20, help="OVER 1-10000 on each server")
    parser.add_argument("--articles", type=int, default=200, help="ARTICLE by number on each server")
    parser.add_argument("--idle", type=int, default=1000, help="idle connections opened on each server")
    args = parser.parse_args()
    engine = group_engine(args.database_url)
    backend = engine.dialect.name
    with engine.connect() as conn:
        count = conn.scalar(sa.select(sa.func.max(emails.c.article_number)))
    pi_messages = set_up_public_inbox(args.database_url, engine) if shutil.which("public-inbox-nntpd") else None
    engine.dispose()
    nntp_port = free_port()
    env = {"SATHUB_NNTP_PORT": str(nntp_port), "SATHUB_MAX_CONNECTIONS_PER_CLIENT": "0"}
    servers = {"sathub": Server.sathub(args.database_url, workers=1, log="archive_nntp_server", env=env)}
    ports = {"sathub": nntp_port}
    if pi_messages is not None:
        ports["public-inbox"] = free_port()
        command = ["public-inbox-nntpd", "-W0", "-l", f"nntp://127.0.0.1:{ports['public-inbox']}"]
        servers["public-inbox"] = Server(command, ports["public-inbox"], OUT / "archive_nntp_pi.log", pi_env())
    rows = {}
    try:
        for name, server in servers.items():
            server.start()
            wait_nntp(ports[name], server.process)
            rows[name] = {"idle": idle_growth(ports[name], server.pid, args.idle)}
        connections = {name: Connection(port) for name, port in ports.items()}
        for name, connection in connections.items():
            connection.ask(f"GROUP {GROUP}", block=False)
            rows[name]["over lines"] = over_lines(connection)
        over = in_turn(connections, [f"OVER 1-{OVER_RANGE}"] * (args.repeat + 2), warm=2)
        numbers = [1 + i * (count - 1) // max(args.articles - 1, 1) for i in range(args.articles)]
        article = in_turn(connections, [f"ARTICLE {n}" for n in numbers[:5] + numbers], warm=5)
        for connection in connections.values():
            connection.close()
    finally:
        for server in servers.values():
            server.stop()
    write_out(f"archive_nntp_{backend}.md", table(backend, args, count, pi_messages, rows, over, article))


def table(backend: str, args, count: int, pi_messages: int | None, rows: dict, over: dict, article: dict) -> str:
    def spread(samples: list[float]) -> str:
        return f"{statistics.median(samples):.2f} / {percentile(samples, 95):.2f}"

    peer = "public-inbox" in rows
    version = versions().get("public-inbox", "?")
    lines = [
        label(
            f"**archive_nntp** ({backend}) — group {GROUP} ({count:,} articles; public-inbox "
            f"{version}: {pi_messages or 0:,} messages), {args.repeat} OVERs, "
            f"{args.articles} ARTICLEs, {args.idle:,} idle connections, one process each"
        ),
        "",
        "| measurement | sathub | public-inbox-nntpd | target |",
        "|---|---|---|---|",
    ]

    def row(what: str, sathub: str, pi: str, target: str) -> None:
        lines.append(f"| {what} | {sathub} | {pi if peer else 'not installed'} | {target} |")

    other = rows.get("public-inbox", {})
    row(
        f"`OVER 1-{OVER_RANGE}`, median / p95 ms (lines)",
        f"**{spread(over['sathub'])}** ({rows['sathub']['over lines']:,})",
        f"{spread(over['public-inbox'])} ({other['over lines']:,})" if peer else "",
        "≤ 100",
    )
    row(
        "`ARTICLE n`, median / p95 ms",
        f"**{spread(article['sathub'])}**",
        spread(article["public-inbox"]) if peer else "",
        "≤ 2 (median)",
    )

    def idle(found: tuple[int, int]) -> str:
        return f"{found[0] / 1024:.1f} → +**{found[1] / 1024:.1f}** MB ({found[1] / args.idle:.1f} KiB each)"

    growth = f"RSS with 1 connection → growth with {args.idle:,} idle more"
    row(growth, idle(rows["sathub"]["idle"]), idle(other["idle"]) if peer else "", "≤ 50 MB")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
