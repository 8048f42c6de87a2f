"""GET /api/v2/stream: delivery latency across processes, fan-out and memory per subscriber, and
what listening subscribers cost report POSTs. On a fresh database of the backend given.

    python -m bench.status_stream --backend sqlite|postgresql [--subscribers 5000]

1. latency: two `sathub serve` processes (one worker each) on the database, --listeners
   subscribers on each; --posts reports POSTed one at a time, alternately to each process. For
   every subscriber of the *other* process, the time from the POST's 201 (read by the client) to
   the report's event (read by the subscriber): p50, p99, max.
2. fan-out: one process; --subscribers streams opened from this process; the server's RSS
   before and with them (RSS per subscriber); then --fanout-posts POSTs and, for each, the time
   until every subscriber had its event (p50/p99 over subscribers, and the slowest).
3. POST speed: --posters connections POST as fast as they are answered for --seconds, rounds
   alternating between: a twin database without migration 0009's triggers (today's speed), this
   one without subscribers, and with --subscribers idle ones (filtered on a satellite nobody
   posts; each still gets a heartbeat every 15 s; the round starts once they have had their
   first). Reports go to nine satellites, at times of the last 24 hours, so that a two-hour cell
   holds tens of reports, as a busy one does. Each round gives the rate and the server's CPU time
   per report (its process, with its PostgreSQL backends), which a machine shared with other
   jobs disturbs far less than the rate.

On fresh scratch databases (bench/out/scratch_stream*.db, or sathub_bench_stream_* on PostgreSQL).

Writes bench/out/status_stream_<backend>.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import string
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import uvloop

from bench.clients import HttpConnection, HttpError
from bench.common import Server, backend_of, label, percentile, scratch_postgres, scratch_sqlite, write_out
from sathub import db

# Idle subscribers are measured listening, not connecting: the round starts after the first
# heartbeat each gets (15 s of silence), once the work of 5,000 connections opening (their
# requests, the cyclic GC's full collections of what they left) is over. One second, as before,
# measured that transient and no heartbeat at all.
SETTLE_SECONDS = 17
REPORT_ID = re.compile(rb'"report":\{"id":(\d+)')


PREFIXES = ("K1", "W2", "G4", "F5", "I2", "M0", "N3", "E7")


def callsign(n: int) -> str:
    """A valid callsign of its own for each n (prefix and four letters: within the 6 characters
    a piece may have), so that each POST fills a slot of its own."""
    n, letters = n % (len(PREFIXES) * 26**4), ""
    prefix, n = PREFIXES[n // 26**4], n % 26**4
    for _ in range(4):
        n, digit = divmod(n, 26)
        letters += string.ascii_uppercase[digit]
    return prefix + letters


# Reports go to these satellites in turn, each at a time of the last 24 hours, so that a two-hour cell
# holds what a busy one holds (tens of reports), not every report of the run. FO-29 gets none: the
# idle subscribers listen to it.
NAMES = ("AO-91", "ISS-FM", "SO-50", "RS-44", "AO-123_[FM]", "AO-7_[U/v]", "AO-73_[U/v]", "IO-86_[FM]", "JO-97_[U/v]")
VALUES = ("Heard", "Heard", "Telemetry Only", "Not Heard")


def report_body(n: int) -> bytes:
    when = datetime.now(UTC) - timedelta(minutes=(n * 7919) % (24 * 60))
    fields = {
        "name": NAMES[n % len(NAMES)],
        "report": VALUES[n % len(VALUES)],
        "callsign": callsign(n),
        "grid_square": "FN31",
        "reported_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    return json.dumps(fields).encode()


class Subscriber:
    """One stream on its own connection; `seen[report id]` = when its event was read."""

    def __init__(self, port: int, query: str = ""):
        self.port, self.query = port, query
        self.seen: dict[int, float] = {}
        self.task: asyncio.Task | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self, attempts: int = 20) -> None:
        """Opened; a 503 is tried again after a pause, as EventSource does (a burst of thousands
        of opens on a loaded machine can outlast the database watchdog's probe deadline, and the
        process answers 503 database_unavailable until it has checked the server again)."""
        for attempt in range(attempts):
            reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
            self.writer.write(f"GET /api/v2/stream{self.query} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
            status = (await reader.readuntil(b"\r\n")).split()[1]
            if status == b"200":
                break
            self.writer.close()
            if status != b"503" or attempt == attempts - 1:
                raise HttpError(f"stream answered {status.decode()}")
            await asyncio.sleep(0.5)
        while await reader.readuntil(b"\r\n") != b"\r\n":
            pass
        self.task = asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while data := await reader.read(1 << 16):
                now = time.monotonic()
                for match in REPORT_ID.finditer(data):
                    self.seen.setdefault(int(match.group(1)), now)
        except (OSError, asyncio.CancelledError):
            pass

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.writer is not None:
            self.writer.close()


async def post(connection: HttpConnection, n: int) -> tuple[int, float]:
    """POST one report; (its id, when the 201 was read). Sent again, once, on a new connection
    when the server had closed this one (its keep-alive ran out while the bench waited, on a
    loaded machine: the POST was not read)."""
    sent = ("POST", "/api/v1/reports.php", report_body(n), {"Content-Type": "application/json"})
    try:
        status, _, body = await connection.request(*sent)
    except HttpError as error:
        if "IncompleteReadError: 0 bytes" not in str(error):
            raise
        status, _, body = await connection.request(*sent)
    if status != 201:
        raise HttpError(f"POST answered {status}: {body[:200]!r}")
    return json.loads(body)["data"]["id"], time.monotonic()


async def wait_seen(subscribers: list[Subscriber], report_id: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while any(report_id not in s.seen for s in subscribers):
        if time.monotonic() > deadline:
            missing = sum(report_id not in s.seen for s in subscribers)
            raise RuntimeError(f"{missing} subscribers did not get report {report_id} within {timeout} s")
        await asyncio.sleep(0.002)


async def open_all(subscribers: list[Subscriber], at_once: int = 200) -> None:
    for start in range(0, len(subscribers), at_once):
        await asyncio.gather(*(s.open() for s in subscribers[start : start + at_once]))


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def latency(url: str, listeners: int, posts: int) -> dict:
    env = {"SATHUB_MAX_CONNECTIONS_PER_CLIENT": "0"}
    first, second = (Server.sathub(url, workers=1, log=f"stream_{name}", env=env) for name in "ab")
    with first as a, second as b:
        servers = (a, b)
        subs = {server.port: [Subscriber(server.port) for _ in range(listeners)] for server in servers}
        for group in subs.values():
            await open_all(group)
        await asyncio.sleep(0.5)
        connections = {server.port: HttpConnection(server.port) for server in servers}
        across: list[float] = []
        same: list[float] = []
        for n in range(posts):
            target, other = servers[n % 2], servers[1 - n % 2]
            report_id, answered = await post(connections[target.port], n)
            await wait_seen(subs[other.port] + subs[target.port], report_id)
            across += [(s.seen[report_id] - answered) * 1000 for s in subs[other.port]]
            same += [(s.seen[report_id] - answered) * 1000 for s in subs[target.port]]
            await asyncio.sleep(0.02)
        for connection in connections.values():
            await connection.close()
        for group in subs.values():
            for subscriber in group:
                subscriber.close()
    return {"across": across, "same": same}


def drop_event_triggers(url: str) -> None:
    """The database as it was before migration 0009: no event is recorded."""
    engine = db.create_engine(url)
    with engine.begin() as conn:
        if backend_of(url) == "postgresql":
            conn.exec_driver_sql("DROP FUNCTION record_report_events() CASCADE")
        else:
            for event in ("insert", "update"):
                conn.exec_driver_sql(f"DROP TRIGGER reports_{event}_events")
    engine.dispose()


async def fanout(
    url: str, twin: str, subscribers: int, fanout_posts: int, posters: int, seconds: float, rounds: int
) -> dict:
    env = {
        "SATHUB_MAX_CONNECTIONS": str(subscribers + 1000),
        "SATHUB_MAX_CONNECTIONS_PER_CLIENT": "0",
        "SATHUB_STREAM_MAX_SUBSCRIBERS": str(subscribers + 100),
    }
    result: dict = {"post_rates": {}, "cpu_ms": {}}
    with Server.sathub(url, workers=1, log="stream_fanout", env=env) as server:
        connection = HttpConnection(server.port)
        await post(connection, 10**6)  # the hub's first reader, the caches, the writer thread: warm
        idle = Subscriber(server.port)
        await idle.open()
        await asyncio.sleep(1)
        base = rss_kib(server.pid)
        subs = [Subscriber(server.port) for _ in range(subscribers)]
        started = time.monotonic()
        await open_all(subs)
        result["open_seconds"] = time.monotonic() - started
        await asyncio.sleep(2)
        result["rss_before_kib"], result["rss_with_kib"] = base, rss_kib(server.pid)
        await connection.close()  # idle past uvicorn's keep-alive while they opened: a new one
        spreads: list[float] = []
        each: list[float] = []
        for n in range(fanout_posts):
            report_id, answered = await post(connection, 2 * 10**6 + n)
            await wait_seen(subs, report_id, timeout=60)
            arrivals = [(s.seen[report_id] - answered) * 1000 for s in subs]
            each += arrivals
            spreads.append(max(arrivals))
            await asyncio.sleep(0.2)
        result["rss_after_posts_kib"] = rss_kib(server.pid)
        result["each"], result["all"] = each, spreads
        for subscriber in subs:
            subscriber.close()
        idle.close()
        await connection.close()
        await asyncio.sleep(2)
        # POST speed: rounds alternating between the database as it was before migration 0009 (a twin
        # with the event triggers dropped), this one without subscribers, and with idle ones.
        with Server.sathub(twin, workers=1, log="stream_twin", env=env) as before:
            drop_event_triggers(twin)
            for round_ in range(rounds):
                for mode in ("before 0009", "without", "with"):
                    target, target_url = (before, twin) if mode == "before 0009" else (server, url)
                    listening = []
                    if mode == "with":
                        listening = [Subscriber(server.port, "?name=FO-29") for _ in range(subscribers)]
                        await open_all(listening)
                        await asyncio.sleep(SETTLE_SECONDS)
                    first = 3 * 10**6 + round_ * 10**5 + len(mode) * 10**4
                    cpu = ServerCpu(target.pid, target_url)
                    rate, posted = await post_rate(target.port, posters, seconds, first)
                    result["post_rates"].setdefault(mode, []).append(rate)
                    result["cpu_ms"].setdefault(mode, []).append(cpu.seconds() * 1000 / posted)
                    for subscriber in listening:
                        subscriber.close()
                    await asyncio.sleep(1)
    return result


async def post_rate(port: int, posters: int, seconds: float, first: int) -> tuple[float, int]:
    """Reports POSTed a second, and how many."""
    done = 0
    stop = time.monotonic() + seconds
    counter = iter(range(first, first + 10**6))

    async def poster() -> None:
        nonlocal done
        connection = HttpConnection(port)
        while time.monotonic() < stop:
            await post(connection, next(counter))
            done += 1
        await connection.close()

    started = time.monotonic()
    await asyncio.gather(*(poster() for _ in range(posters)))
    return done / (time.monotonic() - started), done


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServerCpu:
    """The CPU time a server spends from now, with its PostgreSQL backends' (where the triggers
    run). Throughput on two cores shared with other jobs moves by half from one minute
    to the next; the CPU time a report costs the server moves far less."""

    def __init__(self, pid: int, url: str):
        self.pid, self.url = pid, url
        self.start = self._now()

    def _now(self) -> dict[int, float]:
        now = {self.pid: cpu_seconds(self.pid)}
        if backend_of(self.url) == "postgresql":
            engine = db.create_engine(self.url)
            with engine.connect() as conn:
                pids = conn.exec_driver_sql(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ).scalars()
                for pid in pids:
                    try:
                        now[pid] = cpu_seconds(pid)
                    except FileNotFoundError:  # gone meanwhile
                        pass
            engine.dispose()
        return now

    def seconds(self) -> float:
        """Spent since made (a backend that came meanwhile counts whole)."""
        return sum(spent - self.start.get(pid, 0.0) for pid, spent in self._now().items())


def ms(values: list[float]) -> str:
    return f"{percentile(values, 50):.1f} / {percentile(values, 99):.1f} / {max(values):.1f}"


def report(url: str, args, lat: dict, fan: dict) -> str:
    backend = backend_of(url)
    per = (fan["rss_with_kib"] - fan["rss_before_kib"]) / args.subscribers
    rates, cpu = fan["post_rates"], fan["cpu_ms"]
    medians = {mode: sorted(values)[len(values) // 2] for mode, values in rates.items()}
    cpu_medians = {mode: sorted(values)[len(values) // 2] for mode, values in cpu.items()}
    today, today_cpu = medians["before 0009"], cpu_medians["before 0009"]
    lines = [
        f"### stream on {backend} ({label('status_stream')})",
        "",
        f"Delivery, POST 201 read → event read, 2 processes, {args.listeners} subscribers on each, "
        f"{args.posts} POSTs alternating (ms, p50 / p99 / max):",
        "",
        "| subscriber on | deliveries | p50 / p99 / max |",
        "|---|---|---|",
        f"| the other process | {len(lat['across'])} | {ms(lat['across'])} |",
        f"| the process POSTed to | {len(lat['same'])} | {ms(lat['same'])} |",
        "",
        f"Fan-out, one process, {args.subscribers} subscribers (opened in {fan['open_seconds']:.1f} s):",
        "",
        "| measure | value |",
        "|---|---|",
        f"| server RSS without / with them | {fan['rss_before_kib'] / 1024:.1f} MiB / "
        f"{fan['rss_with_kib'] / 1024:.1f} MiB |",
        f"| RSS per subscriber | {per:.1f} KiB |",
        f"| RSS after {args.fanout_posts} POSTs fanned out | {fan['rss_after_posts_kib'] / 1024:.1f} MiB |",
        f"| POST 201 → event, each subscriber (p50 / p99 / max ms) | {ms(fan['each'])} |",
        f"| POST 201 → the last subscriber has it (p50 / max ms) | "
        f"{percentile(fan['all'], 50):.1f} / {max(fan['all']):.1f} |",
        "",
        f"POST speed, {args.posters} connections, {args.seconds:.0f} s rounds alternating: reports/s, and "
        "the CPU time of the server (and its PostgreSQL backends) per report, each round then the median "
        "(in brackets, the speed as a share of before 0009's: its rate, and its CPU time per report, over this one's):",
        "",
        "| subscribers | reports/s | median | server CPU ms / report | median |",
        "|---|---|---|---|---|",
        *(
            f"| {described} | {', '.join(f'{r:.0f}' for r in rates[mode])} | {medians[mode]:.0f} "
            f"({medians[mode] / today * 100:.0f} %) | {', '.join(f'{c:.2f}' for c in cpu[mode])} | "
            f"{cpu_medians[mode]:.2f} ({today_cpu / cpu_medians[mode] * 100:.0f} %) |"
            for mode, described in (
                ("before 0009", "none; the database before migration 0009 (a twin without the event triggers)"),
                ("without", "none"),
                ("with", f"{args.subscribers} idle (`?name=FO-29`, which no POST names)"),
            )
        ),
    ]
    return "\n".join(lines)


async def main(args) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    drops = []
    if args.backend == "sqlite":
        url, twin = scratch_sqlite("stream"), scratch_sqlite("stream_twin")
    else:
        (url, drop), (twin, drop_twin) = scratch_postgres("stream"), scratch_postgres("stream_twin")
        drops = [drop, drop_twin]
    try:
        lat = await latency(url, args.listeners, args.posts)
        fan = await fanout(url, twin, args.subscribers, args.fanout_posts, args.posters, args.seconds, args.rounds)
    finally:
        for drop in drops:
            drop()
    write_out(f"status_stream_{backend_of(url)}.md", report(url, args, lat, fan))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--listeners", type=int, default=10)
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--subscribers", type=int, default=5000)
    parser.add_argument("--fanout-posts", type=int, default=10)
    parser.add_argument("--posters", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    uvloop.run(main(parser.parse_args()))
