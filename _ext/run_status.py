"""Where each notebook has run: a line on every notebook page, and the status page's grid.

Both come from the committed run records (tools/schemas/run-record.schema.json has their fields) in results/runs and
in the accelerator recordings of `make record-runs` (results/recorded/*/records), read when the book is built, never
written by hand:

- every page under notebooks/ gets, under its title, one line naming the platforms and torch
  releases it has run on, where it has not run yet, links to the status page and to any
  recorded accelerator run of it (results/recorded, rendered as pages of their own), and the
  torch build that printed the page's outputs, from the record of the run the book shows (the
  executor's run of the taught release in this checkout, _build/runs), beside the CPU build that
  Binder installs (binder/requirements.txt);
- the directive ``{run-status}`` renders the status page's grid (_ext/status_grid.py): a row per
  lesson grouped by chapter, a column per platform and torch release, a symbol per cell (passed,
  failed, flaky, stale, not yet run) whose details (date, seconds, peak memory, device, driver,
  links to the record and to a recorded page) open on hover, focus, click or tap, and a summary
  line per platform. It is made once every page's title is known (doctree-resolved), with links
  from the page it lands on, so the single page that `make pdf` prints links the lessons too;
- the built site carries the same data as JSON (run-status.json) and the records themselves
  (runs/...), so a reader can check every cell.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.locale import get_translation
from sphinx.util.osutil import relative_uri

from _ext import status_grid
from tools.course import PLATFORM_NAMES, PLATFORMS, read_notebook, taught_release, toc_chapters, toc_files
from tools.records import runs, status

STATUS_PAGE = "chapters/where-it-has-run"
RECORDED = Path("results") / "recorded"  # what `make record-runs` commits: executed notebooks and their records
# The grid's style sheet and script (added to the pages that show the grid only).
STATIC = Path(__file__).parent / "run_status_static"
# The extensions' own strings are translated by locales/<language>/course.po in the editions (_ext/editions.py).
_ = get_translation("course")
STATE_TEXT = {"fail": _("FAIL"), "flaky": _("flaky"), "stale": _("stale")}


def _record_files(root: Path) -> list[Path]:
    """Every committed run record: the status runs (results/runs) and the accelerator recordings, whose records
    lie beside their executed notebooks (results/recorded/<recording>/records)."""
    return sorted(path for folder in (runs.runs_folder(root), root / RECORDED) if folder.is_dir()
                  for path in folder.rglob("*.json"))


def _records_fingerprint(root: Path) -> str:
    digest = hashlib.sha256()
    book_run = runs.build_run_folder(root, taught_release())
    for path in [*_record_files(root), *(sorted(book_run.glob("*.json")) if book_run.is_dir() else [])]:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cells(root: Path) -> list[status.Cell]:
    return status.cells([(path, runs.read_record(path)) for path in _record_files(root)], root)


def _recorded_pages(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Recorded notebooks listed in the book, by the notebook they recorded."""
    found: dict[str, list[dict[str, Any]]] = {}
    for entry in toc_files(root):
        if not entry.startswith("results/recorded/"):
            continue
        path = root / f"{entry}.ipynb"
        meta = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("course_recorded_run", {})
        if meta:
            found.setdefault(meta["notebook"], []).append({**meta, "docname": entry})
    return found


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return _("{items} and {last}").format(items=_(", ").join(items[:-1]), last=items[-1])


def _doc_link(target: str, text: str) -> addnodes.pending_xref:
    ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=f"/{target}", refexplicit=True)
    ref += nodes.inline(text=text)
    return ref


def where_it_ran(notebook: str, cells: list[status.Cell]) -> tuple[str, str]:
    """The two halves of a notebook's line: where it has run, and where it has not yet."""
    mine = [cell for cell in cells if cell.notebook == notebook]
    ran = []
    for platform_name in PLATFORMS:
        on_platform = [cell for cell in mine if cell.platform == platform_name]
        if not on_platform:
            continue
        parts = []
        for cell in sorted(on_platform, key=lambda c: [int(x) for x in c.release.split(".")[:2]]):
            note = "" if cell.state == "pass" else f" ({STATE_TEXT[cell.state]})"
            parts.append(f"{cell.release}{note}")
        newest = max(cell.date for cell in on_platform)
        ran.append(_("{platform} with torch {releases} (last {date})").format(
            platform=PLATFORM_NAMES[platform_name], releases=_join(parts), date=newest))
    # A platform with only stale records has run (an older version of the notebook): it is listed above, marked stale.
    missing = [PLATFORM_NAMES[p] for p in PLATFORMS if not any(c.platform == p for c in mine)]
    return (_("; ").join(ran) or _("nowhere yet")), (_join(missing) if missing else "")


def book_run_record(root: Path, notebook: str) -> dict[str, Any] | None:
    """The record of the run whose outputs the book shows for a notebook: the executor's run of the taught release in
    this checkout (`make book`, `make test`), if it passed on the notebook's current sources (the executor puts only
    such a run into the book's cache); else None."""
    path = runs.build_run_folder(root, taught_release()) / runs.record_name(notebook)
    if not path.is_file():
        return None
    record = runs.read_record(path)
    current = runs.source_hash(read_notebook(root / notebook))
    return record if record["outcome"] == "pass" and record["source_sha256"] == current else None


def printed_by(record: dict[str, Any] | None) -> str:
    """The sentence saying which torch build printed a page's outputs (from the record of its run), and how Binder's
    build, the CPU wheel (binder/requirements.txt), stands to it."""
    if record is None:
        return _("This build of the book has no record of the run that printed these outputs.")
    env = record["environment"]
    if env["torch_build"] == "CPU":
        return _("Outputs printed by torch {torch}, the CPU build that Binder installs.").format(torch=env["torch"])
    return _("Outputs printed by torch {torch} (the {build} build) on {device}. Binder installs the CPU build, "
             "torch {release}+cpu, whose outputs were not compared with these (its version lines end in +cpu)."
             ).format(
        torch=env["torch"], build=env["torch_build"], device=env["device"], release=runs.release(env["torch"]))


def _insert_line(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    if not docname.startswith("notebooks/"):
        return
    notebook = f"{docname}.ipynb"
    ran, missing = where_it_ran(notebook, app.env.run_status_cells)  # type: ignore[attr-defined]
    line = nodes.paragraph(classes=["run-status-line"])
    line += nodes.strong(text=_("Where this notebook has run: "))
    line += nodes.Text(_("{platforms}. ").format(platforms=ran))
    if missing:
        line += nodes.Text(_("Not yet run on {platforms}. ").format(platforms=missing))
    for recorded in app.env.run_status_recorded.get(notebook, []):  # type: ignore[attr-defined]
        if recorded["platform"] == "cpu":
            continue  # a CPU recording is never presented as an accelerator run
        line += _doc_link(recorded["docname"], _("As run on {device}, torch {release}, {date}").format(
            device=recorded["device"], release=runs.release(recorded["torch"]), date=recorded["date"][:10]))
        line += nodes.Text(_(". "))
    line += _doc_link(STATUS_PAGE, _("Where each notebook has run"))
    line += nodes.Text(_(". "))
    line += nodes.Text(printed_by(book_run_record(Path(app.srcdir), notebook)))
    section = doctree.next_node(nodes.section)
    if section is None:
        doctree.insert(0, line)
    else:
        section.insert(1, line)


class GridPlaceholder(nodes.General, nodes.Element):
    """Where the status grid goes; replaced by its HTML once every page's title is known (_resolve_grid)."""


class RunStatusGrid(Directive):
    """The status page's grid, from the committed run records (_ext/status_grid.py)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        return [GridPlaceholder()]


def lesson_groups(root: Path, title: Callable[[str], str], href: Callable[[str], str]) -> list[status_grid.Group]:
    """The book's lessons in book order, grouped by the chapter page they are sections of.

    `title` and `href` give a page's title and address from its docname. A lesson listed as a chapter of its own
    (know-your-accelerator), or in a book without parts, forms a group with no heading.
    """
    chapter_of = {notebook: chapter.entry for chapter in toc_chapters(root) for notebook in chapter.notebooks}
    groups: list[status_grid.Group] = []
    for entry in toc_files(root):
        if not entry.startswith("notebooks/"):
            continue
        lesson = status_grid.Lesson(f"{entry}.ipynb", title(entry), href(entry))
        chapter = chapter_of.get(entry)
        last = groups[-1] if groups else None
        if chapter is not None and last is not None and last.href == href(chapter):
            groups[-1] = dataclasses.replace(last, lessons=(*last.lessons, lesson))
        elif chapter is not None:
            groups.append(status_grid.Group(title(chapter), href(chapter), (lesson,)))
        else:
            groups.append(status_grid.Group(None, None, (lesson,)))
    return groups


def _resolve_grid(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """The grid's HTML, with each page's title as the build knows it (translated, in an edition) and links that
    work from the page it is on (a page of the site, or the single page the PDF prints)."""
    placeholders = list(doctree.findall(GridPlaceholder))
    if not placeholders:
        return
    builder, env = app.builder, app.env
    here = builder.get_target_uri(docname)

    def href(target: str) -> str:
        return builder.get_relative_uri(docname, target)

    def title(target: str) -> str:
        found = env.titles.get(target)
        return found.astext() if found is not None else target

    def recorded_page(executed: str) -> str | None:
        page = executed.removesuffix(".ipynb")
        return href(page) if page in env.all_docs else None

    links = status_grid.Links(record=lambda path: relative_uri(here, path.replace("results/", "", 1)),
                              recorded_page=recorded_page)
    groups = lesson_groups(Path(env.srcdir), title, href)
    grid = status_grid.grid_html(groups, env.run_status_cells, links)  # type: ignore[attr-defined]
    for placeholder in placeholders:
        placeholder.replace_self(nodes.raw("", grid, format="html"))


def _static_path(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def _grid_assets(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """The grid's style sheet and script, on the pages that show it only."""
    if 'class="run-grid"' in context.get("body", ""):
        app.add_css_file("run-status.css")
        app.add_js_file("run-status.js")


def _builder_inited(app: Sphinx) -> None:
    root = Path(app.srcdir)
    app.env.run_status_cells = _cells(root)  # type: ignore[attr-defined]
    app.env.run_status_recorded = _recorded_pages(root)  # type: ignore[attr-defined]


def _outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """Re-read every notebook page and the status page when the records changed."""
    fingerprint = _records_fingerprint(Path(app.srcdir))
    if getattr(env, "run_status_fingerprint", None) == fingerprint:
        return []
    env.run_status_fingerprint = fingerprint  # type: ignore[attr-defined]
    return [name for name in env.found_docs if name.startswith("notebooks/") or name == STATUS_PAGE]


def _publish(app: Sphinx, exception: Exception | None) -> None:
    """The status as JSON in the built site, with the records each cell links to."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    data = status.status_json(app.env.run_status_cells)  # type: ignore[attr-defined]
    (out / "run-status.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    root = Path(app.srcdir)
    for path in _record_files(root):  # each at the address the grid links: its path less `results/`
        target = out / path.relative_to(root / "results")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-read", _insert_line)
    app.connect("build-finished", _publish)
    app.connect("config-inited", _static_path)
    app.connect("doctree-resolved", _resolve_grid)
    app.connect("html-page-context", _grid_assets)
    app.add_directive("run-status", RunStatusGrid)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
