"""Hostile input soak (issue 14): schemathesis against the OpenAPI document
(src/sathub/status/api/openapi.json) and a live `sathub serve` on SQLite, until at least --cases
generated requests were sent (positive cases on every operation, negative ones on the GET
operations), counting server errors and each check's failures; then a fixed set of hostile
bodies (oversized, 1,000-deep nesting, invalid UTF-8, NUL bytes, CR/LF, `<script>` and SQL text in
every field) to POST /api/v1/reports.php and GET/POST /submit.php, each answered with its
documented error (submit.php: its 200 page or 422 refusal,
docs/api.md) and never echoed unescaped; finally the status page,
the submit form and the satellite page are fetched and checked for any unescaped hostile text.
Prints markdown tables; exit 1 on any server error, schema violation or unescaped echo.

    python -m bench.faults.soak                    # >= 5,000 generated requests
    python -m bench.faults.soak --cases 40000 --max-seconds 1200
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

import sathub
from bench.common import OUT, Server, code_version, now_utc, scratch_sqlite

DOCUMENT = Path(sathub.__file__).parent / "status" / "api" / "openapi.json"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def make_runner(base, label, checks, strategy, examples_count, seed_value, sent, statuses, failures, examples):
    @seed(seed_value)
    @settings(max_examples=examples_count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def run(case):
        sent[label] += 1
        try:
            response = case.call(base_url=base + "/api/v1", timeout=10)
        except Exception as error:  # noqa: BLE001
            failures[f"{label}: no answer ({type(error).__name__})"] += 1
            return
        statuses[response.status_code // 100 * 100] += 1
        try:
            case.validate_response(response, checks=checks)
        except Exception as error:  # noqa: BLE001
            for failure in getattr(error, "exceptions", [error]):
                title = getattr(failure, "title", type(failure).__name__)
                failures[f"{label}: {title}"] += 1
                if len(examples) < 10:
                    examples.append(f"{label}: {title}: {case.as_curl_command()} -> "
                                    f"{response.status_code} {response.text[:200]!r}")

    return run


def fuzz(base: str, target: int, max_seconds: float) -> dict:
    schema = schemathesis.openapi.from_path(str(DOCUMENT))
    operations = [result.ok() for result in schema.get_all_operations()]
    combos = [(op, GenerationMode.POSITIVE) for op in operations] + [
        (op, GenerationMode.NEGATIVE) for op in operations if op.method.upper() == "GET"]
    sent, statuses, failures, examples = Counter(), Counter(), Counter(), []
    began, round_no = time.monotonic(), 0
    while sum(sent.values()) < target and time.monotonic() - began < max_seconds:
        round_no += 1
        per_combo = max(50, (target - sum(sent.values())) // len(combos) + 1)
        for op, mode in combos:
            checks = CHECKS + ([negative_data_rejection] if op.method.upper() == "GET" else [])
            label = f"{op.method.upper()} {op.path} {mode.value}"
            try:
                strategy = op.as_strategy(generation_mode=mode)
            except Exception as error:  # noqa: BLE001  (e.g. nothing negative to generate)
                failures[f"{label}: strategy {type(error).__name__}"] += 0
                print(f"{label}: no strategy: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
                continue

            run = make_runner(base, label, checks, strategy, per_combo, round_no * 1000 + len(sent),
                              sent, statuses, failures, examples)
            try:
                run()
            except Exception as error:  # noqa: BLE001  (hypothesis gave up generating)
                failures[f"{label}: generation {type(error).__name__}"] += 0
                print(f"{label}: generation stopped: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
    return {"sent": sent, "statuses": statuses, "failures": failures, "examples": examples,
            "seconds": time.monotonic() - began}


SCRIPT = "<script>alert(14)</script>"
SQL = "x'); DROP TABLE reports; --"
ATTRIBUTE = '"><b class=hostile14>x</b>'
MARKERS = ("<script>alert(14)", "DROP TABLE reports; --'", "<b class=hostile14>", "X-Injected:")


def hostile_requests() -> list[tuple[str, str, str, dict, bytes, set]]:
    """(label, method, path, headers, body, accepted statuses)."""
    good = {"name": "AO-91", "report": "Heard", "callsign": "W1AW", "grid_square": "EM48",
            "reported_at": "2026-01-01T10:00:00Z"}
    js = {"Content-Type": "application/json"}
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    out = [
        ("oversized JSON body (1 MiB)", "POST", "/api/v1/reports.php", js,
         json.dumps({**good, "report": "H" * (1 << 20)}).encode(), {413}),
        ("oversized form body (10 MiB)", "POST", "/api/v1/reports.php", form, b"name=" + b"A" * (10 << 20), {413}),
        ("1,000-deep nested array as a field", "POST", "/api/v1/reports.php", js,
         ('{"name":' + "[" * 1000 + "]" * 1000 + ',"report":"Heard","callsign":"W1AW"}').encode(), {400, 422}),
        ("1,000-deep nested object body", "POST", "/api/v1/reports.php", js,
         ('{"a":' * 1000 + "1" + "}" * 1000).encode(), {400, 422}),
        ("100,000-deep nested array body", "POST", "/api/v1/reports.php", js,
         ("[" * 100_000 + "]" * 100_000).encode(), {400, 413, 422}),
        ("invalid UTF-8 in JSON", "POST", "/api/v1/reports.php", js,
         b'{"name":"AO-91\xff\xfe","report":"Heard","callsign":"W1AW"}', {400}),
        ("invalid UTF-8 in a form", "POST", "/api/v1/reports.php", form,
         b"name=AO-91%ff%fe&report=Heard&callsign=W1AW", {400, 422}),
        ("lone surrogate escape", "POST", "/api/v1/reports.php", js,
         b'{"name":"AO-91","report":"Heard","callsign":"W1AW\\ud800"}', {400, 422}),
    ]
    hostile_values = {"NUL": "\x00", "CRLF": "\r\nX-Injected: 1\r\n", "script": SCRIPT, "SQL": SQL,
                      "attribute": ATTRIBUTE}
    for field in good:
        for kind, value in hostile_values.items():
            middle = len(good[field]) // 2
            body = {**good, field: (good[field][:middle] + value + good[field][middle:])
                    if kind in ("NUL", "CRLF") else value}
            out.append((f"{kind} in {field} (JSON)", "POST", "/api/v1/reports.php", js, json.dumps(body).encode(),
                        {400, 422}))
    for kind, value in hostile_values.items():
        body = {key: value for key in good}
        out.append((f"{kind} in every field (form)", "POST", "/api/v1/reports.php", form,
                    httpx.QueryParams(body).__str__().encode(), {422}))
    fields = {"SatSubmit": "yes", "SatName": "AO-91", "SatReport": "Heard", "SatYear": "2026", "SatMonth": "1",
              "SatDay": "1", "SatHour": "10", "SatPeriod": "1", "SatCall": "W1AW", "SatGridSquare": "EM48"}
    for kind, value in hostile_values.items():
        for confirm in ("", "yes"):
            body = {key: (value if key != "SatSubmit" else "yes") for key in fields}
            if confirm:
                body["Confirm"] = "yes"
            query = str(httpx.QueryParams(body))
            out.append((f"submit.php GET, {kind} in every field{', Confirm' if confirm else ''}", "GET",
                        "/submit.php?" + query, {}, b"", {200, 422}))
            out.append((f"submit.php POST, {kind} in every field{', Confirm' if confirm else ''}", "POST",
                        "/submit.php", form, query.encode(), {200, 422}))
        for field in fields:
            if field == "SatSubmit":
                continue
            body = {**fields, field: value, "Confirm": "yes"}
            out.append((f"submit.php POST, {kind} in {field}", "POST", "/submit.php", form,
                        str(httpx.QueryParams(body)).encode(), {200, 422}))
    out.append(("submit.php POST oversized (10 MiB)", "POST", "/submit.php", form,
                b"SatSubmit=yes&SatName=" + b"A" * (10 << 20), {413}))
    out.append(("submit.php POST invalid UTF-8", "POST", "/submit.php", form,
                b"SatSubmit=yes&SatName=AO-91%ff&SatCall=W1AW%00", {200, 400, 422}))
    return out


def after_413(base: str) -> tuple[int, bytes]:
    """POST a 1 MiB body on a raw keep-alive connection, read the 413, then send a GET on the same
    connection: the answer must be the GET's 200 (body drained) or the connection closed, never a
    response to bytes of the refused body."""
    import socket
    from urllib.parse import urlsplit
    parts = urlsplit(base)
    body = json.dumps({"name": "AO-91", "report": "H" * (1 << 20), "callsign": "W1AW"}).encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        first = b""
        while b"\r\n\r\n" not in first:
            first += sock.recv(65536)
        head, _, rest = first.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length")))
        while len(rest) < length:
            rest += sock.recv(65536)
        second = rest[length:]
        try:
            sock.sendall(b"GET /api/v1/statuses.php HTTP/1.1\r\nHost: x\r\n\r\n")
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                second += chunk
                if second.startswith(b"HTTP/1.1 200") and second.endswith(b"}"):
                    break
        except OSError:
            pass
    return int(first.split()[1]), second


def unescaped(text: str) -> list[str]:
    return [marker for marker in MARKERS if marker in text]


def hostile(base: str) -> tuple[list[str], int]:
    rows, bad = [], 0
    with httpx.Client(base_url=base, timeout=30) as client:
        for label, method, path, headers, body, accepted in hostile_requests():
            started = time.monotonic()
            try:  # a new connection each: a request must not be judged by what the one before left behind
                with httpx.Client(base_url=base, timeout=30) as one:
                    response = one.request(method, path, headers=headers, content=body or None)
                status, text = response.status_code, response.text
            except httpx.HTTPError as error:
                status, text = None, f"{type(error).__name__}"
            ms = (time.monotonic() - started) * 1000
            code = ""
            if path.startswith("/api/") and status:
                try:
                    code = json.loads(text)["error"]["code"]
                except (ValueError, KeyError, TypeError):
                    code = "no error envelope" if status >= 400 else ""
            leaks = unescaped(text)
            ok = status in accepted and not leaks and code != "no error envelope"
            bad += not ok
            rows.append(f"| {label} | {method} | {status} {code} | {ms:.0f} | {', '.join(leaks) or '—'} | "
                        f"{'ok' if ok else '**FAILED**'} |")
        pages = ["/", "/index.php", "/submit.php", "/satellite/AO-91", "/feeds/AO-91.atom",
                 "/api/v1/reports.php?hours=720&limit=500"]
        for page in pages:
            response = client.get(page)
            leaks = unescaped(response.text)
            ok = response.status_code == 200 and not leaks
            bad += not ok
            rows.append(f"| page afterwards | GET {page} | {response.status_code} | — | {', '.join(leaks) or '—'} | "
                        f"{'ok' if ok else '**FAILED**'} |")
        status, second = after_413(base)
        ok = status == 413 and (second == b"" or second.startswith(b"HTTP/1.1 200"))
        bad += not ok
        then = second[:60].decode("latin-1").splitlines()[0] if second else "closed"
        rows.append(f"| next request on a keep-alive connection after an early 413 (1 MiB JSON body) | POST then GET "
                    f"statuses.php | {status} then {then} | — | — | {'ok' if ok else '**FAILED**'} |")
        response = client.get("/", headers={"Host": 'x"><script>alert(14)</script>'})
        leaks = unescaped(response.text)
        bad += bool(leaks) or response.status_code >= 500
        rows.append(f"| hostile Host header | GET / | {response.status_code} | — | {', '.join(leaks) or '—'} | "
                    f"{'ok' if not leaks and response.status_code < 500 else '**FAILED**'} |")
    return rows, bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000, help="generated requests to send at least")
    parser.add_argument("--max-seconds", type=float, default=150)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    server = Server.sathub(scratch_sqlite("soak"), workers=1, log="faults_soak",
                           env={"SATHUB_SUBMIT_RATE_PER_MINUTE": "0"})
    server.log.write_text("")
    server.start()
    server.wait_up()
    version = code_version()
    try:
        with httpx.Client(base_url=server.base) as client:  # a few reports for the reads to serialize
            for n, sign in enumerate(("W5API", "DL1ABC/P", "K1ABC")):
                client.post("/api/v1/reports.php", json={"name": "AO-91", "report": "Heard", "callsign": sign,
                                                         "grid_square": "EM25", "hour": n, "year": 2026,
                                                         "month": 1, "day": 1})
        fuzzed = fuzz(server.base, args.cases, args.max_seconds)
        hostile_rows, hostile_bad = hostile(server.base)
    finally:
        server.stop()
    tracebacks = server.log.read_text(errors="replace").count("Traceback")
    total = sum(fuzzed["sent"].values())
    server_errors = sum(n for key, n in fuzzed["failures"].items() if "Server error" in key)
    violations = sum(fuzzed["failures"].values())
    ok = total >= args.cases and violations == 0 and hostile_bad == 0 and tracebacks == 0
    lines = [f"**Hostile input** — schemathesis {schemathesis.__version__} against openapi.json and a live "
             f"`sathub serve` (SQLite, submit rate limit off); checks not_a_server_error, status_code_conformance, "
             f"content_type_conformance, response_schema_conformance (+ negative_data_rejection on GETs); code "
             f"{version}; {now_utc()}.", "",
             "| figure | value |", "|---|---:|",
             f"| generated requests | {total:,} in {fuzzed['seconds']:.0f} s |",
             f"| answers by class | {', '.join(f'{k}: {v:,}' for k, v in sorted(fuzzed['statuses'].items()))} |",
             f"| server errors | {server_errors} |",
             f"| check failures (all) | {violations} |",
             f"| tracebacks in the server log | {tracebacks} |",
             "", "| operation, mode | requests |", "|---|---:|",
             *(f"| {label} | {n:,} |" for label, n in sorted(fuzzed["sent"].items())),
             *([""] + ["| failure | count |", "|---|---:|"]
               + [f"| {k} | {v} |" for k, v in sorted(fuzzed["failures"].items()) if v] if violations else []),
             "", "| hostile request | method | answer | ms | unescaped in the answer | check |",
             "|---|---|---|---:|---|---|", *hostile_rows]
    text = "\n".join(lines)
    print(text)
    for example in fuzzed["examples"]:
        print("example:", example, file=sys.stderr)
    (OUT / "faults_soak.md").write_text(text + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
