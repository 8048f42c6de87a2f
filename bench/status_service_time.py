"""Service time of one interface A read, without concurrency: the app in-process (Starlette's
TestClient, which itself adds ~0.8 ms), median of 30 sequential requests per endpoint, with the
answer cache on (hits) and off (every request queries and renders).

    .venv/bin/python bench/status_service_time.py sqlite:///bench/out/status.db postgresql://postgres@127.0.0.1:5432/sathub_bench

With W workers each serving one request at a time (the handlers block their event loop), W /
service time bounds the req/s of the load test.
"""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "bench")]

import status_nocache_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from status_load import ENDPOINTS  # noqa: E402

from sathub.app import create_app  # noqa: E402
from sathub.config import Settings  # noqa: E402


def main() -> None:
    print("| backend | cache | " + " | ".join(label for label, m, _ in ENDPOINTS if m == "GET") + " |")
    print("|---|---|" + "---:|" * sum(m == "GET" for _, m, _ in ENDPOINTS))
    for url in sys.argv[1:]:
        for cache in (True, False):
            app = create_app(Settings.from_env(database_url=url))
            if not cache:  # reuse the load test's switch-off on this app
                status_nocache_app.create.__globals__["app_from_env"] = lambda: app
                status_nocache_app.create()
            cells = []
            with TestClient(app) as client:
                for _, method, path in ENDPOINTS:
                    if method != "GET":
                        continue
                    client.get(path)  # warm-up (and fills the cache)
                    took = []
                    for _ in range(30):
                        began = time.perf_counter()
                        client.get(path)
                        took.append((time.perf_counter() - began) * 1000)
                    cells.append(f"{statistics.median(took):.1f} ms")
            print(f"| {url.split(':')[0]} | {'hit' if cache else 'miss'} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
