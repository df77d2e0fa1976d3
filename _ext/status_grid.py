"""The status page's grid: a row per lesson grouped by chapter, a column per platform and torch release, a symbol
per cell, and the details of each cell on demand.

Only HTML is made here, from the cells of tools/records/status.py and the lessons' titles and links, which
_ext/run_status.py reads from the built book. Every symbol carries its text alternative (a visually hidden span
that names the state), so a screen reader reads "passed" where a reader sees the tick; the details of a cell with
a record (date, seconds, peak memory, device, driver, links to the record and to a recorded page) open in a
``<details>`` element: by click, tap, Enter or Space with no script at all, and on hover and keyboard focus with
_ext/run_status_static/run-status.js.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable

from sphinx.locale import get_translation

from tools.course import PLATFORM_NAMES, PLATFORMS
from tools.records import status

_ = get_translation("course")

# A flaky cell shows how many of its runs failed ("1/3") instead of a symbol.
SYMBOLS = {"pass": "✓", "fail": "✗", "stale": "↻", "none": "–"}


@dataclasses.dataclass(frozen=True)
class Lesson:
    """A row of the grid: a notebook, its title and the link to its page."""

    notebook: str  # as the records name it: notebooks/<chapter>/<name>.ipynb
    title: str
    href: str


@dataclasses.dataclass(frozen=True)
class Group:
    """The lessons of one chapter, in book order; a lesson that is a chapter of its own has no heading."""

    title: str | None
    href: str | None
    lessons: tuple[Lesson, ...]


@dataclasses.dataclass(frozen=True)
class Column:
    """A platform and torch release; a platform that has no record yet gets one column, with no release."""

    platform: str
    release: str | None


@dataclasses.dataclass(frozen=True)
class Links:
    """How the page reaches the files a cell's details link to."""

    record: Callable[[str], str]  # a record's path in the repository -> its address from the page
    recorded_page: Callable[[str], str | None]  # an executed notebook's path -> its page's address, if in the book


def _release_key(release: str) -> list[int]:
    return [int(part) for part in release.split(".")[:2]]


def columns(cells: list[status.Cell]) -> list[Column]:
    """Every platform in PLATFORMS order, each release with a record on it, oldest first."""
    found = []
    for platform_name in PLATFORMS:
        releases = sorted({c.release for c in cells if c.platform == platform_name}, key=_release_key)
        found += [Column(platform_name, release) for release in releases] or [Column(platform_name, None)]
    return found


def text_alternative(cell: status.Cell | None) -> str:
    """What a cell's symbol says, in words: the name a screen reader reads."""
    if cell is None:
        return _("not yet run")
    if cell.state == "flaky":
        return _("flaky: failed {failures} of {runs} runs").format(failures=cell.failures, runs=cell.runs)
    return {"pass": _("passed"), "fail": _("failed"), "stale": _("stale: older sources")}[cell.state]


def _symbol(cell: status.Cell | None) -> str:
    if cell is not None and cell.state == "flaky":
        return f"{cell.failures}/{cell.runs}"
    return SYMBOLS["none" if cell is None else cell.state]


def _shown(symbol: str, alternative: str) -> str:
    """A symbol for the eye and its words for a screen reader."""
    return (f'<span class="run-symbol" aria-hidden="true">{html.escape(symbol)}</span>'
            f'<span class="run-alt">{html.escape(alternative)}</span>')


def _details(cell: status.Cell, links: Links) -> str:
    where = _("{platform}, torch {release}").format(platform=PLATFORM_NAMES[cell.platform], release=cell.release)
    if cell.state == "stale":
        when = _("sources changed since {date}").format(date=cell.date)
    else:
        when = f"{cell.date}, {status.verdict_text(cell, _)}"
    measured = _("{seconds} s").format(seconds=f"{cell.seconds:.0f}")
    if cell.peak_memory_bytes:
        memory = f"{cell.peak_memory_bytes / 2**30:.1f}"
        measured = _("{seconds} s, {memory} GB peak memory").format(seconds=f"{cell.seconds:.0f}", memory=memory)
    lines = [f"<strong>{html.escape(text_alternative(cell))}</strong>", html.escape(where), html.escape(when),
             html.escape(measured),
             html.escape(_("Device: {device}").format(device=cell.device)),
             html.escape(_("Driver: {driver}").format(driver=cell.driver or _("none")))]
    record_words, page_words = html.escape(_("the run record")), html.escape(_("the recorded page"))
    anchors = [f'<a href="{html.escape(links.record(cell.record))}">{record_words}</a>']
    page = links.recorded_page(cell.executed_notebook) if cell.executed_notebook else None
    if page:
        anchors.append(f'<a href="{html.escape(page)}">{page_words}</a>')
    lines.append(" · ".join(anchors))
    return '<div class="run-detail">' + "<br>".join(lines) + "</div>"


def cell_html(cell: status.Cell | None, links: Links) -> str:
    """One cell: its symbol, its text alternative, and its details where a record exists."""
    shown = _shown(_symbol(cell), text_alternative(cell))
    if cell is None:
        return f'<td class="run-state-none">{shown}</td>'
    return (f'<td class="run-state-{cell.state}"><details class="run-cell"><summary>{shown}</summary>'
            f"{_details(cell, links)}</details></td>")


def summary_lines(groups: list[Group], cells: list[status.Cell]) -> list[str]:
    """One line per platform: how many lessons have run there, and how many of them failed, are flaky or stale."""
    lessons = {lesson.notebook for group in groups for lesson in group.lessons}
    lines = []
    for platform_name in PLATFORMS:
        mine = [c for c in cells if c.platform == platform_name and c.notebook in lessons]
        ran = {c.notebook for c in mine if c.state != "stale"}
        line = _("{platform}: {ran} of {total} run").format(
            platform=PLATFORM_NAMES[platform_name], ran=len(ran), total=len(lessons))
        counts = {state: len({c.notebook for c in mine if c.state == state}) for state in ("fail", "flaky", "stale")}
        words = {"fail": _("{count} failed"), "flaky": _("{count} flaky"), "stale": _("{count} stale")}
        notes = [words[state].format(count=count) for state, count in counts.items() if count]
        lines.append(line + (f" ({_(', ').join(notes)})" if notes else ""))
    return lines


def legend_html() -> str:
    """What each symbol means, with the symbol as the grid shows it."""
    entries = [
        ("✓", _("passed"), _("the newest run of the lesson's current sources on that platform and release passed")),
        ("✗", _("failed"), _("that run failed; its record names the failing cell")),
        ("1/3", _("flaky"), _("the lesson both passed and failed there: 1 of 3 runs failed")),
        ("↻", _("stale"), _("every record is of older sources: the lesson has changed since, and the old result "
                            "says nothing about it")),
        ("–", _("not yet run"), _("no record; on an accelerator, the lesson's branches for it are untested")),
    ]
    items = "".join(f'<li><span class="run-symbol" aria-hidden="true">{html.escape(symbol)}</span> '
                    f"<strong>{html.escape(name)}</strong>: {html.escape(meaning)}</li>"
                    for symbol, name, meaning in entries)
    return f'<ul class="run-legend">{items}</ul>'


def _head(cols: list[Column], lesson_header: str) -> str:
    top, releases = [f'<th scope="col" rowspan="2">{html.escape(lesson_header)}</th>'], []
    for platform_name in PLATFORMS:
        mine = [c for c in cols if c.platform == platform_name]
        name = PLATFORM_NAMES[platform_name]
        if mine[0].release is None:
            top.append(f'<th scope="col" rowspan="2">{name}</th>')
            continue
        top.append(f'<th scope="colgroup" colspan="{len(mine)}">{name}</th>')
        releases += [f'<th scope="col">{html.escape(str(c.release))}</th>' for c in mine]
    return f'<thead><tr>{"".join(top)}</tr><tr>{"".join(releases)}</tr></thead>'


def _title_html(title: str) -> str:
    """A lesson's title, its subtitle (after the first colon) apart: a phone shows the title only."""
    main, colon, rest = title.partition(": ")
    if not colon:
        return html.escape(title)
    return f'{html.escape(main)}<span class="run-subtitle">: {html.escape(rest)}</span>'


def grid_html(groups: list[Group], cells: list[status.Cell], links: Links) -> str:
    """The whole of the status page's generated part: the summary lines, the legend and the grid."""
    cols = columns(cells)
    by_key = {(c.notebook, c.platform, c.release): c for c in cells}
    bodies = []
    for group in groups:
        rows = []
        if group.title is not None:
            heading = html.escape(group.title)
            if group.href:
                heading = f'<a href="{html.escape(group.href)}">{heading}</a>'
            rows.append(f'<tr class="run-chapter"><th scope="rowgroup" colspan="{len(cols) + 1}">{heading}</th></tr>')
        for lesson in group.lessons:
            row = [f'<th scope="row"><a href="{html.escape(lesson.href)}">{_title_html(lesson.title)}</a></th>']
            row += [cell_html(by_key.get((lesson.notebook, c.platform, c.release)), links) for c in cols]
            rows.append(f'<tr>{"".join(row)}</tr>')
        bodies.append(f'<tbody>{"".join(rows)}</tbody>')
    summary = "".join(f"<li>{html.escape(line)}</li>" for line in summary_lines(groups, cells))
    caption = html.escape(_("Where each lesson has run, by platform and torch release"))
    head = _head(cols, _("Lesson"))
    return (f'<div class="run-grid"><ul class="run-summary">{summary}</ul>{legend_html()}'
            f'<div class="run-grid-scroll"><table class="run-grid-table"><caption>{caption}</caption>'
            f'{head}{"".join(bodies)}</table></div></div>')
