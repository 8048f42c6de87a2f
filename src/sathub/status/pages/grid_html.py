"""The status grid's repeated markup, printed in one Python pass rather than in template loops:
a busy window holds thousands of reports, and each appears in a cell, in upstream's tooltip
array and in the keyboard- and script-free details list. Everything printed is escaped here.

The cell and tooltip markup is what scraping apps read (clients.md item 16): empty cells are
exactly `<td width=9 bgcolor="C0C0C0"> </td>`, filled cells keep upstream's bgcolor values and
`onMouseOver=docTips.show('a<id>')`, and the tooltip data keeps
`tips.a<id> = new Array( 5, 5, 120, '...');`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from markupsafe import Markup

from sathub.status.pages.report_grid import Block, Grid, block_time

EMPTY_CELL = '<td width=9 bgcolor="C0C0C0"> </td>'
_SPECIAL = re.compile(r"[&<>\"'\\\r\n]")


def html_text(text: str) -> str:
    """HTML-escaped text (quotes included); most values need nothing, so check first."""
    if not _SPECIAL.search(text):
        return text
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def script_text(text: str) -> str:
    """HTML-escaped (the tooltip is shown as HTML), backslashes doubled and line breaks flattened,
    so no value can leave the quoted JavaScript string or the <script> element."""
    if not _SPECIAL.search(text):
        return text
    return html_text(text).replace("\\", "\\\\").replace("\n", " ").replace("\r", " ")


def _tooltip_and_details(report) -> tuple[str, str]:
    """A report's tooltip text and its details line. Only the stored values can hold a character
    that needs escaping (the day and time are ours), and they seldom do: one check for all."""
    lines = report.tooltip_lines()
    if not _SPECIAL.search(f"{report.report}{report.callsign}{report.grid_square}"):
        return "<br>".join(lines), " · ".join(lines)
    return "<br>".join(map(script_text, lines)), " · ".join(map(html_text, lines))


@dataclass(frozen=True)
class GridMarkup:
    tips: Markup  # the statements inside upstream's `with (docTips) { ... }`
    rows: Markup  # the grid's rows after its header row
    details: Markup  # one focusable section per block, the target of its cell's link


# The markup of every block of the last render, by what it is printed from: after a write, only
# the blocks the write touched are printed again. Replaced whole by each render, so it never holds
# more than one window's blocks; a render racing another (two sites) at worst reprints. A block is
# known by its reports' ids (a replaced report gets a new one) and a hash of their values (for an
# edit by hand), not by the reports themselves: kept, a busy window's ~200,000 named tuples (which
# the collector always tracks) made each full collection of the worker take ~200 ms.
_printed: dict[tuple, tuple[str, str, str]] = {}


def render(grid: Grid, site: str) -> GridMarkup:
    global _printed
    printed: dict[tuple, tuple[str, str, str]] = {}
    tips: list[str] = []
    rows: list[str] = []
    details: list[str] = []
    site = html_text(site)  # built from the request's Host when no base URL is configured
    for row in grid.rows:
        name = html_text(row.name)
        rows.append(
            f'<tr> <td align="right" class="name"><a href="{site}/satellite/{quote(row.name, safe="")}">'
            f"{name}</a></td>\n"
        )
        for block in row.cells:
            if block is None:
                rows.append(EMPTY_CELL)
                continue
            key = (grid.today, block.column, block.name, hash(tuple(block.reports)), *[r.id for r in block.reports])
            markup = printed[key] = _printed.get(key) or _print_block(block, name, block_time(grid.today, block.column))
            tips.append(markup[0])
            rows.append(markup[1])
            details.append(markup[2])
        rows.append("</tr>\n")
    _printed = printed
    return GridMarkup(Markup("".join(tips)), Markup("".join(rows)), Markup("".join(details)))


def _reports(count: int) -> str:
    return "1 report" if count == 1 else f"{count} reports"


def _print_block(block: Block, name: str, when: str) -> tuple[str, str, str]:
    """A block's tooltip statement, grid cell and details section."""
    state, text = block.look
    anchor = block.anchor
    texts = [_tooltip_and_details(report) for report in block.reports]
    tooltip = "<br><br>".join(tip for tip, _ in texts)
    items = "".join(f"<li>{line}</li>" for _, line in texts)
    return (
        f"tips.{anchor} = new Array( 5, 5, 120, '{tooltip}');\n",
        f'<td width=9 bgcolor="{state.colour}" class="s-{state.key}"><a href="#{anchor}" '
        f"onMouseOver=docTips.show('{anchor}') onMouseOut=docTips.hide() "
        f'aria-label="{name} {when}: {state.label}, {_reports(len(block.reports))}">{text}</a></td>\n',
        f'<section class="block" id="{anchor}" tabindex="-1"><h3><span class="swatch '
        f's-{state.key}" style="background-color: {state.colour}" aria-hidden="true">'
        f"{state.letter}</span> {name}, {when}: {state.label}</h3><ul>{items}</ul></section>\n",
    )
