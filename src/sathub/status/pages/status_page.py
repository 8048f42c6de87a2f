"""The status page (/, /index.php): the grid of the last six days, the legacy form that posts to
/submit.php, and the files it loads. The store gives one query's worth of rows,
report_grid and grid_html shape and print them, the template lays them out."""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import Response

from sathub.status import grid, rules, times
from sathub.status.cache import answers_of
from sathub.status.pages import grid_html, report_grid
from sathub.status.pages.submit_rules import FORM_REPORT_LABELS
from sathub.status.store import catalog, reports
from sathub.status.templating import CachedPage, static_response
from sathub.web import settings_of, site_url

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
STATUS_PAGE_PATHS = ("/", "/index.php")
ASSETS = {"status.css": "text/css; charset=utf-8", "tooltips.js": "text/javascript; charset=utf-8"}


def footer_line(request: Request) -> str | None:
    """'Last updated MM/DD/YYYY HH:MM UTC (commit abcdef0)' when both deploy facts are configured."""
    settings = settings_of(request)
    if not (settings.commit and settings.deployed_at):
        return None
    deployed = times.parse_timestamp(settings.deployed_at, times.utc_now())
    when = f"{deployed:%m/%d/%Y %H:%M} UTC" if deployed else settings.deployed_at
    return f"Last updated {when} (commit {settings.commit[:7]})"


def form_choices(now) -> dict:
    """The form's date and time selects: the current value first, then every value (section 7)."""
    period = rules.period_of_minute(now.minute)
    return {
        "month": (f"{now.month:02d}", MONTHS[now.month - 1]),
        "months": [(f"{n:02d}", MONTHS[n - 1]) for n in range(1, 13)],
        "day": f"{now.day:02d}",
        "days": [f"{n:02d}" for n in range(1, 32)],
        "years": [str(now.year), str(now.year - 1)],
        "hour": f"{now.hour:02d}",
        "hours": [f"{n:02d}" for n in range(24)],
        "period": (str(period), rules.PERIOD_LABELS[period]),
    }


def status_page_key(site: str) -> tuple:
    """Where the answer cache keeps the status page rendered for `site`."""
    return ("status_page", site)


async def status_page(request: Request) -> Response:
    now = times.utc_now()
    site = site_url(request)
    answers = answers_of(request)
    # The same page for everyone until the data changes or, through the form's preselected date
    # and time, the quarter-hour does: rendered and gzipped once, then served as bytes.
    quarter = (now.date(), now.hour, rules.period_of_minute(now.minute))
    exclude = settings_of(request).status_implausible == "exclude"
    page = await answers.get(
        status_page_key(site),
        (answers.revision(), quarter),
        partial(_status_page, site, now, footer_line(request), exclude),
    )
    return page.response(request, {"Cache-Control": "no-cache"})


def _status_page(site: str, now, footer: str | None, exclude_implausible: bool, conn) -> CachedPage:
    today = now.date()
    rows = reports.grid_window(conn, grid.first_day(today), today, exclude_implausible=exclude_implausible)
    status_grid = report_grid.build_grid(today, map(report_grid.Report._make, rows))
    return CachedPage.render(
        "status.html",
        site=site,
        grid=status_grid,
        markup=grid_html.render(status_grid, site),
        day_headers=report_grid.day_headers(today),
        legend=grid.LEGEND,
        catalog=catalog.catalog(conn),
        form=form_choices(now),
        footer=footer,
        report_labels=FORM_REPORT_LABELS,
    )


async def asset(request: Request) -> Response:
    name = request.path_params["file"]
    if name not in ASSETS:
        return Response("Not Found", status_code=404, media_type="text/plain")
    return static_response(request, name, ASSETS[name])
