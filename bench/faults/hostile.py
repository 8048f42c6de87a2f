"""The fixed hostile requests of the soak (bench/faults/soak.py): oversized, deeply nested, invalid
UTF-8, NUL, CR/LF, `<script>`, SQL and attribute text in every field of POST /api/v1/reports.php
and GET/POST /submit.php, each answered with its documented error and never echoed unescaped;
then the pages, checked for any hostile text left unescaped, a keep-alive connection after an
early 413, and a hostile Host header."""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlsplit

import httpx

SCRIPT = "<script>alert(14)</script>"
SQL = "x'); DROP TABLE reports; --"
ATTRIBUTE = '"><b class=hostile14>x</b>'
MARKERS = ("<script>alert(14)", "DROP TABLE reports; --'", "<b class=hostile14>", "X-Injected:")


def hostile_requests() -> list[tuple[str, str, str, dict, bytes, set]]:
    """(label, method, path, headers, body, accepted statuses)."""
    good = {
        "name": "AO-91",
        "report": "Heard",
        "callsign": "W1AW",
        "grid_square": "EM48",
        "reported_at": "2026-01-01T10:00:00Z",
    }
    js = {"Content-Type": "application/json"}
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    out = [
        (
            "oversized JSON body (1 MiB)",
            "POST",
            "/api/v1/reports.php",
            js,
            json.dumps({**good, "report": "H" * (1 << 20)}).encode(),
            {413},
        ),
        ("oversized form body (10 MiB)", "POST", "/api/v1/reports.php", form, b"name=" + b"A" * (10 << 20), {413}),
        (
            "1,000-deep nested array as a field",
            "POST",
            "/api/v1/reports.php",
            js,
            ('{"name":' + "[" * 1000 + "]" * 1000 + ',"report":"Heard","callsign":"W1AW"}').encode(),
            {400, 422},
        ),
        (
            "1,000-deep nested object body",
            "POST",
            "/api/v1/reports.php",
            js,
            ('{"a":' * 1000 + "1" + "}" * 1000).encode(),
            {400, 422},
        ),
        (
            "100,000-deep nested array body",
            "POST",
            "/api/v1/reports.php",
            js,
            ("[" * 100_000 + "]" * 100_000).encode(),
            {400, 413, 422},
        ),
        (
            "invalid UTF-8 in JSON",
            "POST",
            "/api/v1/reports.php",
            js,
            b'{"name":"AO-91\xff\xfe","report":"Heard","callsign":"W1AW"}',
            {400},
        ),
        (
            "invalid UTF-8 in a form",
            "POST",
            "/api/v1/reports.php",
            form,
            b"name=AO-91%ff%fe&report=Heard&callsign=W1AW",
            {400, 422},
        ),
        (
            "lone surrogate escape",
            "POST",
            "/api/v1/reports.php",
            js,
            b'{"name":"AO-91","report":"Heard","callsign":"W1AW\\ud800"}',
            {400, 422},
        ),
    ]
    hostile_values = {
        "NUL": "\x00",
        "CRLF": "\r\nX-Injected: 1\r\n",
        "script": SCRIPT,
        "SQL": SQL,
        "attribute": ATTRIBUTE,
    }
    for field in good:
        for kind, value in hostile_values.items():
            middle = len(good[field]) // 2
            body = {
                **good,
                field: (good[field][:middle] + value + good[field][middle:]) if kind in ("NUL", "CRLF") else value,
            }
            out.append(
                (f"{kind} in {field} (JSON)", "POST", "/api/v1/reports.php", js, json.dumps(body).encode(), {400, 422})
            )
    for kind, value in hostile_values.items():
        body = dict.fromkeys(good, value)
        out.append(
            (
                f"{kind} in every field (form)",
                "POST",
                "/api/v1/reports.php",
                form,
                httpx.QueryParams(body).__str__().encode(),
                {422},
            )
        )
    fields = {
        "SatSubmit": "yes",
        "SatName": "AO-91",
        "SatReport": "Heard",
        "SatYear": "2026",
        "SatMonth": "1",
        "SatDay": "1",
        "SatHour": "10",
        "SatPeriod": "1",
        "SatCall": "W1AW",
        "SatGridSquare": "EM48",
    }
    for kind, value in hostile_values.items():
        for confirm in ("", "yes"):
            body = {key: (value if key != "SatSubmit" else "yes") for key in fields}
            if confirm:
                body["Confirm"] = "yes"
            query = str(httpx.QueryParams(body))
            out.append(
                (
                    f"submit.php GET, {kind} in every field{', Confirm' if confirm else ''}",
                    "GET",
                    "/submit.php?" + query,
                    {},
                    b"",
                    {200, 422},
                )
            )
            out.append(
                (
                    f"submit.php POST, {kind} in every field{', Confirm' if confirm else ''}",
                    "POST",
                    "/submit.php",
                    form,
                    query.encode(),
                    {200, 422},
                )
            )
        for field in fields:
            if field == "SatSubmit":
                continue
            body = {**fields, field: value, "Confirm": "yes"}
            out.append(
                (
                    f"submit.php POST, {kind} in {field}",
                    "POST",
                    "/submit.php",
                    form,
                    str(httpx.QueryParams(body)).encode(),
                    {200, 422},
                )
            )
    out.append(
        (
            "submit.php POST oversized (10 MiB)",
            "POST",
            "/submit.php",
            form,
            b"SatSubmit=yes&SatName=" + b"A" * (10 << 20),
            {413},
        )
    )
    out.append(
        (
            "submit.php POST invalid UTF-8",
            "POST",
            "/submit.php",
            form,
            b"SatSubmit=yes&SatName=AO-91%ff&SatCall=W1AW%00",
            {200, 400, 422},
        )
    )
    return out


def after_413(base: str) -> tuple[int, bytes]:
    """POST a 1 MiB body on a raw keep-alive connection, read the 413, then send a GET on the same
    connection: the answer must be the GET's 200 (body drained) or the connection closed, never a
    response to bytes of the refused body."""
    parts = urlsplit(base)
    body = json.dumps({"name": "AO-91", "report": "H" * (1 << 20), "callsign": "W1AW"}).encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(
            b"POST /api/v1/reports.php HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body) + body
        )
        first = b""
        while b"\r\n\r\n" not in first:
            first += sock.recv(65536)
        head, _, rest = first.partition(b"\r\n\r\n")
        length = int(
            next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
        )
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
            rows.append(
                f"| {label} | {method} | {status} {code} | {ms:.0f} | {', '.join(leaks) or '—'} | "
                f"{'ok' if ok else '**FAILED**'} |"
            )
        pages = [
            "/",
            "/index.php",
            "/submit.php",
            "/satellite/AO-91",
            "/feeds/AO-91.atom",
            "/api/v1/reports.php?hours=720&limit=500",
        ]
        for page in pages:
            response = client.get(page)
            leaks = unescaped(response.text)
            ok = response.status_code == 200 and not leaks
            bad += not ok
            rows.append(
                f"| page afterwards | GET {page} | {response.status_code} | — | {', '.join(leaks) or '—'} | "
                f"{'ok' if ok else '**FAILED**'} |"
            )
        status, second = after_413(base)
        ok = status == 413 and (second == b"" or second.startswith(b"HTTP/1.1 200"))
        bad += not ok
        then = second[:60].decode("latin-1").splitlines()[0] if second else "closed"
        rows.append(
            f"| next request on a keep-alive connection after an early 413 (1 MiB JSON body) | POST then GET "
            f"statuses.php | {status} then {then} | — | — | {'ok' if ok else '**FAILED**'} |"
        )
        response = client.get("/", headers={"Host": 'x"><script>alert(14)</script>'})
        leaks = unescaped(response.text)
        bad += bool(leaks) or response.status_code >= 500
        rows.append(
            f"| hostile Host header | GET / | {response.status_code} | — | {', '.join(leaks) or '—'} | "
            f"{'ok' if not leaks and response.status_code < 500 else '**FAILED**'} |"
        )
    return rows, bad
