"""The API documentation pages: the HTML overview, the Swagger UI page and the plain-text credits,
at both generations of upstream paths, /api/... and /api/v1/... (status-api.md 10 and 13).

The overview's endpoint blocks are read from openapi.json, so page and contract cannot drift.
Swagger UI 5's files come from the installed swagger-ui-bundle-v2 package (imported as
swagger_ui_bundle) and are served from our own tree (never a CDN), with our initializer and the
page's stylesheet as files too, so a strict CSP (script-src and style-src 'self') works."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from swagger_ui_bundle import swagger_ui_path

from sathub.status.api.responses import API_VERSION
from sathub.status.templating import render
from sathub.web import site_url

DOCUMENT = json.loads((resources.files("sathub.status.api") / "openapi.json").read_text(encoding="utf-8"))

_VENDOR = Path(swagger_ui_path)
_OWN = Path(str(resources.files("sathub.status") / "static" / "docs"))

# Only the files the page needs (swagger-ui.css names its map; the bundle names none): the package's
# own index.html and initializer point at the petstore demo, and its standalone preset (the top bar
# with a URL box) is not used.
SWAGGER_ASSETS = {
    "swagger-ui.css": (_VENDOR, "text/css; charset=utf-8"),
    "swagger-ui.css.map": (_VENDOR, "application/json"),
    "swagger-ui-bundle.js": (_VENDOR, "text/javascript; charset=utf-8"),
    "favicon-16x16.png": (_VENDOR, "image/png"),
    "favicon-32x32.png": (_VENDOR, "image/png"),
    "swagger-init.js": (_OWN, "text/javascript; charset=utf-8"),
    "docs-page.css": (_OWN, "text/css; charset=utf-8"),
}

# One copy-paste request per documented operation; {base} is the deployment's API root.
CURL_EXAMPLES = {
    ("/catalog.php", "get"): "curl '{base}/catalog.php?include_stats=true'",
    ("/reports.php", "get"): "curl '{base}/reports.php?name=AO-91&hours=24'",
    ("/reports.php", "post"): (
        "curl -X POST '{base}/reports.php' \\\n  -H 'Content-Type: application/json' \\\n"
        '  -d \'{{"name": "AO-91", "report": "Heard", "callsign": "W1AW", '
        '"grid_square": "FN31", "reported_at": "2026-05-23T08:17:42Z"}}\''
    ),
    ("/summary.php", "get"): "curl '{base}/summary.php?hours=24'",
    ("/statuses.php", "get"): "curl '{base}/statuses.php'",
    ("/health.php", "get"): "curl '{base}/health.php'",
    ("/openapi.php", "get"): "curl '{base}/openapi.php'",
    ("/openapi.json", "get"): "curl '{base}/openapi.json'",
    ("/satellites.php", "get"): "curl '{base}/satellites.php'",
    ("/sat_info.php", "get"): "curl '{base}/sat_info.php?name=AO-91&hours=24'",
}


@dataclass(frozen=True)
class Generation:
    """Where one generation of upstream's docs pages lives and how its pages link to each other."""

    folder: str  # "/api" (ca2278e) or "/api/v1" (0c0abe1 and later)
    overview_page: str
    spec_url: str  # relative, so the document is fetched from wherever the page was served
    asset_prefix: str  # relative path from the pages to the Swagger UI files

    def links(self, request: Request) -> dict[str, str]:
        site = site_url(request)
        here = f"{site}{self.folder}"
        return {
            "site": site,
            "base": f"{site}/api/v1",
            "docs": f"{here}/docs.php",
            "acknowledgements": f"{here}/acknowledgements.php",
            "overview": f"{here}/{self.overview_page}",
        }


FIRST = Generation(folder="/api", overview_page="index.php", spec_url="./v1/openapi.php", asset_prefix="./swagger-ui")
LATER = Generation(
    folder="/api/v1", overview_page="overview.php", spec_url="./openapi.php", asset_prefix="../swagger-ui"
)
# Version 2's document in the same offline Swagger UI (/api/v2/docs), reached from version 1's
# pages and linking back to them: one relative link each way, wherever the tree is mounted.
V2 = Generation(folder="/api/v2", overview_page="../index.php", spec_url="./openapi.json", asset_prefix="../swagger-ui")
OTHER_VERSIONS = {
    FIRST: [("API v2", "./v2/docs")],
    LATER: [("API v2", "../v2/docs")],
    V2: [("API v1", "../docs.php")],
}


def inline_markdown(text: str) -> Markup:
    """The document's descriptions use `code` and **bold** only; everything else is escaped."""
    escaped = html.escape(text, quote=False)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    escaped = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", escaped)
    return Markup(escaped)


def paragraphs(text: str) -> list[Markup]:
    return [inline_markdown(part) for part in text.split("\n\n") if part.strip()]


def _resolve(item: dict) -> dict:
    ref = item.get("$ref")
    if ref is None:
        return item
    node = DOCUMENT
    for key in ref.removeprefix("#/").split("/"):
        node = node[key]
    return node


def endpoint_blocks(base: str) -> list[dict]:
    """One block per documented operation, in document order."""
    blocks = []
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            parameters = [_resolve(p) for p in operation.get("parameters", [])]
            blocks.append(
                {
                    "anchor": operation["operationId"],
                    "method": method.upper(),
                    "path": path,
                    "summary": operation["summary"],
                    "tag": operation["tags"][0],
                    "description": paragraphs(operation.get("description", "")),
                    "parameters": [
                        {"name": p["name"], "description": inline_markdown(p["description"])} for p in parameters
                    ],
                    "body": method == "post",
                    "curl": CURL_EXAMPLES[(path, method)].format(base=base),
                }
            )
    return blocks


def overview_endpoint(generation: Generation):
    async def overview(request: Request) -> Response:
        links = generation.links(request)
        return render(
            request, "docs/overview.html", version=API_VERSION, links=links, endpoints=endpoint_blocks(links["base"])
        )

    return overview


def swagger_endpoint(generation: Generation):
    async def swagger(request: Request) -> Response:
        return render(
            request,
            "docs/swagger.html",
            spec_url=generation.spec_url,
            assets=generation.asset_prefix,
            overview_link=f"./{generation.overview_page}",
            acknowledgements_link="../acknowledgements.php" if generation is V2 else "./acknowledgements.php",
            versions=OTHER_VERSIONS[generation],
        )

    return swagger


def acknowledgements_endpoint(generation: Generation):
    async def acknowledgements(request: Request) -> Response:
        text = ACKNOWLEDGEMENTS.format(overview=f"./{generation.overview_page}")
        return PlainTextResponse(text, headers={"Content-Type": "text/plain; charset=utf-8"})

    return acknowledgements


ACKNOWLEDGEMENTS = """AMSAT Satellite Status API Acknowledgements
===========================================

Thank you to the volunteers who build and maintain the AMSAT satellite status service
and its API, and to every operator who reports what they hear.

Contributors
------------
- Ben Welsh, KFØIA: API refactor, documentation, compatibility tests and CI coverage
- Dominic Hord, AD8AK: API contributions

Links
-----
API overview: {overview}
Swagger documentation: ./docs.php
"""


async def swagger_asset(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in SWAGGER_ASSETS:
        return PlainTextResponse("Not Found", status_code=404)
    folder, media_type = SWAGGER_ASSETS[name]
    return FileResponse(folder / name, media_type=media_type, headers={"Cache-Control": "public, max-age=86400"})
