"""Micro-timings of interface A's read path, in-process, one call at a time (medians):

    .venv/bin/python bench/status_micro.py sqlite:///bench/out/status.db [postgresql://postgres@127.0.0.1:5432/sathub_bench]

Per database: the data-revision probe every cached read starts with (RevisionProbe.read, on its
dedicated connection). On the first database, for the 500 rows of reports.php?limit=500&hours=24:
the read form built by unpacking the rows (api.v1.report_read_forms) against attribute access on
each Row, and the body's pretty JSON by the app's printer (php_pretty_json) against
json.dumps(indent=4) and orjson (OPT_INDENT_2, then the indent doubled), with whether each gives
the same bytes.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
import warnings
from pathlib import Path

warnings.simplefilter("ignore")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from sathub.status import times  # noqa: E402
from sathub.status.api.php_json import php_pretty_json  # noqa: E402
from sathub.status.api.v1 import report_read_forms, window_since  # noqa: E402
from sathub.status.revision import RevisionProbe, create_engine  # noqa: E402
from sathub.status.store import reports  # noqa: E402


def median_ms(function, repeat: int) -> float:
    function()  # warm-up
    took = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        took.append((time.perf_counter() - began) * 1000)
    return statistics.median(took)


def attribute_forms(rows) -> list[dict]:
    """The read form through each Row's attributes (what report_read_forms replaced)."""
    return [{"id": r.id, "name": r.name, "satellite_display_name": r.satellite_display_name,
             "reported_time": times.read_form_time(r.day, r.hour), "callsign": r.callsign, "report": r.report,
             "grid_square": r.grid_square, "period": r.period} for r in rows]


def main() -> None:
    urls = sys.argv[1:] or ["sqlite:///bench/out/status.db"]
    for url in urls:
        engine = create_engine(url)
        probe = RevisionProbe(engine)
        print(f"{median_ms(probe.read, 2000) * 1000:8.1f} µs  revision probe, median of 2,000  ({engine.dialect.name})")
        engine.dispose()
    engine = create_engine(urls[0])
    since, window = window_since(24)
    with engine.connect() as conn:
        rows = reports.search_reports(conn, window=window, limit=500)
    forms = report_read_forms(rows)
    assert attribute_forms(rows) == forms
    print(f"{len(rows)} rows of reports.php?limit=500&hours=24 ({engine.dialect.name}), median of 200:")
    print(f"{median_ms(lambda: attribute_forms(rows), 200):8.2f} ms  read form, Row attribute access")
    print(f"{median_ms(lambda: report_read_forms(rows), 200):8.2f} ms  read form, rows unpacked (the app)")
    envelope = {"data": forms, "meta": {"count": len(forms), "limit": 500, "since": since, "hours": 24}}
    ours = php_pretty_json(envelope)
    print(f"{median_ms(lambda: php_pretty_json(envelope), 200):8.2f} ms  pretty JSON, php_pretty_json "
          f"(the app), {len(ours.encode()):,} bytes")
    same = json.dumps(envelope, indent=4) == ours
    print(f"{median_ms(lambda: json.dumps(envelope, indent=4), 200):8.2f} ms  pretty JSON, json.dumps(indent=4), "
          f"same bytes: {'yes' if same else 'no'}")
    try:
        import orjson
    except ImportError:
        print("orjson not installed: skipped")
        return
    indent = re.compile(rb"^( +)", re.M)

    def with_orjson() -> bytes:
        return indent.sub(lambda m: m.group(1) * 2, orjson.dumps(envelope, option=orjson.OPT_INDENT_2))

    same = with_orjson() == ours.encode()
    print(f"{median_ms(with_orjson, 200):8.2f} ms  pretty JSON, orjson OPT_INDENT_2 + indent doubled, "
          f"same bytes: {'yes' if same else 'no (non-ASCII left unescaped)'}")


if __name__ == "__main__":
    main()
