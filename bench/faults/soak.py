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
from bench.common import OUT, Server, code_version, now_utc, scratch_sqlite, write_out
from bench.faults.hostile import hostile

DOCUMENT = Path(sathub.__file__).parent / "status" / "api" / "openapi.json"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def make_runner(base, label, checks, strategy, examples_count, seed_value, sent, statuses, failures, examples):
    @seed(seed_value)
    @settings(
        max_examples=examples_count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case):
        sent[label] += 1
        try:
            response = case.call(base_url=base + "/api/v1", timeout=10)
        except Exception as error:
            failures[f"{label}: no answer ({type(error).__name__})"] += 1
            return
        statuses[response.status_code // 100 * 100] += 1
        try:
            case.validate_response(response, checks=checks)
        except Exception as error:
            for failure in getattr(error, "exceptions", [error]):
                title = getattr(failure, "title", type(failure).__name__)
                failures[f"{label}: {title}"] += 1
                if len(examples) < 10:
                    examples.append(
                        f"{label}: {title}: {case.as_curl_command()} -> {response.status_code} {response.text[:200]!r}"
                    )

    return run


def fuzz(base: str, target: int, max_seconds: float) -> dict:
    schema = schemathesis.openapi.from_path(str(DOCUMENT))
    operations = [result.ok() for result in schema.get_all_operations()]
    combos = [(op, GenerationMode.POSITIVE) for op in operations] + [
        (op, GenerationMode.NEGATIVE) for op in operations if op.method.upper() == "GET"
    ]
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
            except Exception as error:  # e.g. nothing negative to generate
                failures[f"{label}: strategy {type(error).__name__}"] += 0
                print(f"{label}: no strategy: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
                continue

            run = make_runner(
                base,
                label,
                checks,
                strategy,
                per_combo,
                round_no * 1000 + len(sent),
                sent,
                statuses,
                failures,
                examples,
            )
            try:
                run()
            except Exception as error:  # hypothesis gave up generating
                failures[f"{label}: generation {type(error).__name__}"] += 0
                print(f"{label}: generation stopped: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
    return {
        "sent": sent,
        "statuses": statuses,
        "failures": failures,
        "examples": examples,
        "seconds": time.monotonic() - began,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000, help="generated requests to send at least")
    parser.add_argument("--max-seconds", type=float, default=150)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    server = Server.sathub(
        scratch_sqlite("soak"), workers=1, log="faults_soak", env={"SATHUB_SUBMIT_RATE_PER_MINUTE": "0"}
    )
    server.log.write_text("")
    server.start()
    server.wait_up()
    version = code_version()
    try:
        with httpx.Client(base_url=server.base) as client:  # a few reports for the reads to serialize
            for n, sign in enumerate(("W5API", "DL1ABC/P", "K1ABC")):
                client.post(
                    "/api/v1/reports.php",
                    json={
                        "name": "AO-91",
                        "report": "Heard",
                        "callsign": sign,
                        "grid_square": "EM25",
                        "hour": n,
                        "year": 2026,
                        "month": 1,
                        "day": 1,
                    },
                )
        fuzzed = fuzz(server.base, args.cases, args.max_seconds)
        hostile_rows, hostile_bad = hostile(server.base)
    finally:
        server.stop()
    tracebacks = server.log.read_text(errors="replace").count("Traceback")
    total = sum(fuzzed["sent"].values())
    server_errors = sum(n for key, n in fuzzed["failures"].items() if "Server error" in key)
    violations = sum(fuzzed["failures"].values())
    ok = total >= args.cases and violations == 0 and hostile_bad == 0 and tracebacks == 0
    lines = [
        f"**Hostile input** — schemathesis {schemathesis.__version__} against openapi.json and a live "
        f"`sathub serve` (SQLite, submit rate limit off); checks not_a_server_error, status_code_conformance, "
        f"content_type_conformance, response_schema_conformance (+ negative_data_rejection on GETs); code "
        f"{version}; {now_utc()}.",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| generated requests | {total:,} in {fuzzed['seconds']:.0f} s |",
        f"| answers by class | {', '.join(f'{k}: {v:,}' for k, v in sorted(fuzzed['statuses'].items()))} |",
        f"| server errors | {server_errors} |",
        f"| check failures (all) | {violations} |",
        f"| tracebacks in the server log | {tracebacks} |",
        "",
        "| operation, mode | requests |",
        "|---|---:|",
        *(f"| {label} | {n:,} |" for label, n in sorted(fuzzed["sent"].items())),
        *(
            [""]
            + ["| failure | count |", "|---|---:|"]
            + [f"| {k} | {v} |" for k, v in sorted(fuzzed["failures"].items()) if v]
            if violations
            else []
        ),
        "",
        "| hostile request | method | answer | ms | unescaped in the answer | check |",
        "|---|---|---|---:|---|---|",
        *hostile_rows,
    ]
    text = "\n".join(lines)
    write_out("faults_soak.md", text)
    for example in fuzzed["examples"]:
        print("example:", example, file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
