"""Where a render of the status page (/) goes: each step of status_page._status_page timed alone,
in-process on one connection, median of N renders (the grid window of today's six days).

    .venv/bin/python bench/status_page_breakdown.py sqlite:///bench/out/status_live.db [--repeat 20]

Steps, in the page's order: the window's query (grid_window, rows fetched), building the grid from
its rows, printing the blocks (reusing the markup of the previous render, as after a write that
touched none of them, and with nothing to reuse, as after a restart), the catalog query, the
template, encoding to UTF-8, gzip and the ETag's hash of the gzip bytes. Also prints the window's
row count, the page's size, and the query once more with Python's garbage collector off.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import statistics
import sys
import time
import warnings
from pathlib import Path

warnings.simplefilter("ignore")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from sathub.db import create_engine  # noqa: E402
from sathub.status import times  # noqa: E402
from sathub.status.pages import grid, grid_html, status_page  # noqa: E402
from sathub.status.pages.submit_rules import FORM_REPORT_LABELS  # noqa: E402
from sathub.status.store import catalog, reports  # noqa: E402
from sathub.status.templating import _compress, environment  # noqa: E402


def timed(function, repeat: int, before=None) -> tuple[float, object]:
    """Median ms of `repeat` calls (each after `before()`, untimed) and the last result."""
    took = []
    for _ in range(repeat):
        if before:
            before()
        began = time.perf_counter()
        result = function()
        took.append((time.perf_counter() - began) * 1000)
    return statistics.median(took), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    n = args.repeat
    engine = create_engine(args.url)
    now = times.utc_now()
    today, site = now.date(), "http://x"
    with engine.connect() as conn:
        window = lambda: reports.grid_window(conn, grid.first_day(today), today)  # noqa: E731
        window()  # warm-up
        query_ms, rows = timed(window, n)
        gc.disable()
        query_nogc_ms, _ = timed(window, n)
        gc.enable()
        build_ms, status_grid = timed(lambda: grid.build_grid(today, map(grid.Report._make, rows)), n)
        grid_html.render(status_grid, site)
        reused_ms, markup = timed(lambda: grid_html.render(status_grid, site), n)
        fresh_ms, _ = timed(lambda: grid_html.render(status_grid, site), n, before=lambda: grid_html._printed.clear())
        catalog_ms, sats = timed(lambda: catalog.catalog(conn), n)
    context = dict(site=site, grid=status_grid, markup=markup, day_headers=grid.day_headers(today),
                   legend=grid.LEGEND, catalog=sats, form=status_page.form_choices(now), footer=None,
                   report_labels=FORM_REPORT_LABELS)
    template = environment.get_template("status.html")
    template_ms, text = timed(lambda: template.render(**context), n)
    encode_ms, body = timed(text.encode, n)
    gzip_ms, gzipped = timed(lambda: _compress(body), n)
    etag_ms, _ = timed(lambda: hashlib.blake2b(gzipped, digest_size=12).hexdigest(), n)
    total = query_ms + build_ms + reused_ms + catalog_ms + template_ms + encode_ms + gzip_ms + etag_ms
    print(f"{args.url}: {len(rows):,} reports in the window ({grid.first_day(today)} to {today}), "
          f"{len(status_grid.rows)} grid rows; page {len(body):,} bytes, {len(gzipped):,} gzipped; median of {n}")
    for label, ms in (("window query (rows fetched)", query_ms), ("  same, garbage collector off", query_nogc_ms),
                      ("grid from rows", build_ms), ("blocks printed, all reused", reused_ms),
                      ("blocks printed, none reused", fresh_ms), ("catalog query", catalog_ms),
                      ("template", template_ms), ("encode", encode_ms), ("gzip", gzip_ms),
                      ("ETag hash", etag_ms), ("sum (blocks reused)", total)):
        print(f"{ms:10.2f} ms  {label}")


if __name__ == "__main__":
    main()
