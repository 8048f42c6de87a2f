"""Searches a second one `sathub serve` process answers on the corpus, with the per-client search
budget off and spent on every search (docs/archive-crawlers.md, "Budgets"):

    python -m bench.archive_budgets DATABASE_URL [--seconds 8] [--connections 4]

DATABASE_URL holds the corpus (bench/corpus.py imports it when it is missing). The server is
started twice, with SATHUB_SEARCH_BUDGET=0 and with a budget too large to refuse, and asked the
mix of bench/search_mix.py round-robin on `--connections` keep-alive connections for `--seconds`."""

from __future__ import annotations

import argparse
import http.client
import threading
import time
from urllib.parse import quote, urlsplit

from bench.corpus import corpus_engine
from bench.search_mix import MIX
from tests.live_server import sathub_server

NEVER_REFUSED = "100000000"


def searches_per_second(url: str, budget: str, seconds: float, connections: int) -> float:
    env = {"SATHUB_SEARCH_BUDGET": budget, "SATHUB_ARCHIVE_MAX_AGE_SEARCH": "0"}
    with sathub_server(url, env=env) as root:
        address = urlsplit(root)
        paths = [f"/archive/api/search/?q={quote(query)}&limit=10" for _, query in MIX]
        answered: list[int] = []

        def ask(first: int, until: float) -> None:
            connection = http.client.HTTPConnection(address.hostname, address.port)
            count = 0
            while time.monotonic() < until:
                connection.request("GET", paths[(first + count) % len(paths)])
                response = connection.getresponse()
                response.read()
                assert response.status == 200, response.status
                count += 1
            answered.append(count)

        ask(0, time.monotonic() + 1)  # warm-up
        answered.clear()
        until = time.monotonic() + seconds
        threads = [threading.Thread(target=ask, args=(n, until)) for n in range(connections)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return sum(answered) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database_url")
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--connections", type=int, default=4)
    args = parser.parse_args()
    corpus_engine(args.database_url).dispose()
    for budget in ("0", NEVER_REFUSED):
        rate = searches_per_second(args.database_url, budget, args.seconds, args.connections)
        print(f"search budget {'off' if budget == '0' else 'spent'}: {rate:.0f} searches/s", flush=True)


if __name__ == "__main__":
    main()
