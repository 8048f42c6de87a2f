"""Webhooks: how long after a report's commit each of 100 hooks has it, and whether receivers that
never answer slow the others.

    python -m bench.status_webhooks --backend sqlite|postgresql [--hooks 100] [--reports 20] [--dead 10]

Each round: a `sathub serve` (one worker, SATHUB_WEBHOOKS_ALLOW_PRIVATE=1: the receiver is on
127.0.0.1) on a fresh database, --hooks webhooks to one local receiver (the standard library's
http.server, a thread per connection; each hook its own path), subscribed to every report. This
process stores --reports reports one at a time, as the API stores them (store_submitted), and
takes the time each transaction's commit returned; the receiver takes the time it read each POST.
Latency = read - commit, over every (hook, report): p50, p99, max; the target is a p99 within 1 s.
Rounds: a report a second (100 POSTs a second: a busy pass); the same beside --dead hooks to a
server that accepts connections and never answers (each attempt lasts SATHUB_WEBHOOK_TIMEOUT,
10 s, then waits its retry); ten reports a second (1,000 POSTs a second: a stress, beyond any
pass we know of).

Writes bench/out/status_webhooks_<backend>.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import threading
import time
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench.common import Server, label, percentile, scratch_postgres, scratch_sqlite, write_out
from sathub import db
from sathub.status.rules import period_of_minute
from sathub.status.store import writes
from sathub.status.store.webhooks import add_webhook

SATELLITE = "AO-91"  # in the default catalog `sathub serve` loads into an empty database


class Receiver(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default listen backlog is 5: the deliverer's concurrent connections overflowed
    # it, and each refused SYN cost the 1 s, 3 s, 7 s … of TCP's retransmissions (a p99 of 24 s)
    request_queue_size = 1024

    def __init__(self) -> None:
        self.read_at: dict[tuple[str, str], float] = {}  # (path, callsign) -> time.time() of the read
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        read = time.time()
        self.server.read_at.setdefault((self.path, json.loads(body)["report"]["callsign"]), read)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def store_one(engine, number: int) -> tuple[str, float]:
    callsign = f"K{number // 26}{chr(65 + number % 26)}AA"
    when = datetime.now(UTC) - timedelta(minutes=15 * (number + 1))
    row = dict(
        name=SATELLITE,
        day=when.date(),
        hour=when.hour,
        period=period_of_minute(when.minute),
        callsign=callsign,
        report="Heard",
        grid_square="FN31",
    )
    with db.connect(engine, write=True) as conn:
        writes.store_submitted(conn, [row])
    return callsign, time.time()


def one_round(url: str, hooks: int, dead: int, reports: int, interval: float) -> dict:
    receiver = Receiver()
    with contextlib.closing(socket.create_server(("127.0.0.1", 0), backlog=1024)) as silent:
        engine = db.create_engine(url)
        db.upgrade(engine)
        with db.connect(engine, write=True) as conn:
            for number in range(hooks):
                add_webhook(conn, f"{receiver.url}/hook/{number}", "bench-secret-0123456789", {"report"}, ())
            for number in range(dead):
                add_webhook(
                    conn, f"http://127.0.0.1:{silent.getsockname()[1]}/{number}", "bench-secret-012345", {"report"}, ()
                )
        env = {"SATHUB_WEBHOOKS_ALLOW_PRIVATE": "1"}
        with Server.sathub(url, workers=1, log="status_webhooks", env=env):
            time.sleep(1.0)  # the first claim of the hooks, at start
            committed = {}
            for number in range(reports):
                callsign, at = store_one(engine, number)
                committed[callsign] = at
                time.sleep(interval)
            deadline = time.monotonic() + 30
            while len(receiver.read_at) < hooks * reports and time.monotonic() < deadline:
                time.sleep(0.05)
        engine.dispose()
    receiver.shutdown()
    receiver.server_close()
    latencies = [(read - committed[callsign]) * 1000 for (_, callsign), read in receiver.read_at.items()]
    return {
        "hooks": hooks,
        "dead": dead,
        "delivered": f"{len(latencies)} of {hooks * reports}",
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "max": max(latencies, default=float("nan")),
    }


ROUNDS = ((1.0, False), (1.0, True), (0.1, False))  # (seconds between reports, with the dead hooks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--hooks", type=int, default=100)
    parser.add_argument("--reports", type=int, default=20)
    parser.add_argument("--dead", type=int, default=10)
    args = parser.parse_args()
    rows = []
    for interval, with_dead in ROUNDS:
        if args.backend == "sqlite":
            url, drop = scratch_sqlite("webhooks"), (lambda: None)
        else:
            url, drop = scratch_postgres("webhooks")
        try:
            dead = args.dead if with_dead else 0
            rows.append({"interval": interval, **one_round(url, args.hooks, dead, args.reports, interval)})
        finally:
            drop()
    lines = [
        label(f"Webhooks, {args.backend}: latency from a report's commit to each hook's receiver"),
        "",
        "| s between reports (POSTs/s) | hooks | dead hooks beside them | delivered | p50 ms | p99 ms | max ms |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        *(
            f"| {r['interval']} ({r['hooks'] / r['interval']:,.0f}) | {r['hooks']} | {r['dead']} | {r['delivered']} "
            f"| {r['p50']:.0f} | {r['p99']:.0f} | {r['max']:.0f} |"
            for r in rows
        ),
    ]
    write_out(f"status_webhooks_{args.backend}.md", "\n".join(lines))


if __name__ == "__main__":
    main()
