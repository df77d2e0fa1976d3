"""Where each notebook has run: a line on every notebook page, and the status page's table.

Both come from the committed run records in results/runs (tools/schemas/run-record.schema.json has their fields), read
when the book is built, never written by hand:

- every page under notebooks/ gets, under its title, one line naming the platforms and torch
  releases it has run on, where it has not run yet, and links to the status page and to any
  recorded accelerator run of it (results/recorded, rendered as pages of their own);
- the directive ``{run-status}`` renders the table of the status page: a row per notebook, a
  column per platform and torch release, each cell pass, fail, flaky or stale with its date,
  seconds and peak memory, linked to its record;
- the built site carries the same data as JSON (run-status.json) and the records themselves
  (runs/...), so a reader can check every cell.
"""

from __future__ import annotations

import hashlib
import html
import json
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.locale import get_translation

from tools.course import PLATFORMS, toc_files
from tools.records import runs, status

STATUS_PAGE = "chapters/where-it-has-run"
PLATFORM_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "mps": "MPS", "xpu": "XPU", "cpu": "CPU"}
# The extensions' own strings are translated by locales/<language>/course.po in the editions (_ext/editions.py).
_ = get_translation("course")
NOT_RUN = _("not yet run")
STATE_TEXT = {"pass": _("pass"), "fail": _("FAIL"), "flaky": _("flaky"), "stale": _("stale")}


def _records_fingerprint(root: Path) -> str:
    digest = hashlib.sha256()
    folder = runs.runs_folder(root)
    for path in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cells(root: Path) -> list[status.Cell]:
    return status.cells(runs.load_records(runs.runs_folder(root)), root)


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
    missing = [PLATFORM_NAMES[p] for p in PLATFORMS if not any(c.platform == p and c.state != "stale" for c in mine)]
    return (_("; ").join(ran) or _("nowhere yet")), (_join(missing) if missing else "")


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
    line += nodes.Text(_("."))
    section = doctree.next_node(nodes.section)
    if section is None:
        doctree.insert(0, line)
    else:
        section.insert(1, line)


class RunStatusTable(Directive):
    """The status page's table, from the committed run records."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        cells: list[status.Cell] = env.run_status_cells
        columns = sorted({(c.platform, c.release) for c in cells},
                         key=lambda pr: (PLATFORMS.index(pr[0]), [int(x) for x in pr[1].split(".")[:2]]))
        unseen = [p for p in PLATFORMS if p not in {c.platform for c in cells}]
        by_key = {(c.notebook, c.platform, c.release): c for c in cells}
        head = "".join(f"<th>{PLATFORM_NAMES[p]}<br>torch {r}</th>" for p, r in columns)
        head += "".join(f"<th>{PLATFORM_NAMES[p]}</th>" for p in unseen)
        rows = []
        for entry in toc_files(Path(env.srcdir)):
            if not entry.startswith("notebooks/"):
                continue
            notebook = f"{entry}.ipynb"
            name = html.escape(entry.removeprefix("notebooks/"))
            row = [f'<th scope="row"><a href="../{entry}.html">{name}</a></th>']
            for platform_name, torch_release in columns:
                cell = by_key.get((notebook, platform_name, torch_release))
                row.append(f"<td>{_cell_html(cell)}</td>")
            row += [f'<td class="run-none">{NOT_RUN}</td>' for _unseen in unseen]
            rows.append("<tr>" + "".join(row) + "</tr>")
        notebook_header = _("notebook")
        table = (f'<div class="run-status-scroll" style="overflow-x:auto"><table class="run-status">'
                 f'<thead><tr><th scope="col">{notebook_header}</th>{head}</tr></thead>'
                 f'<tbody>{"".join(rows)}</tbody></table></div>')
        return [nodes.raw("", table, format="html")]


def _cell_html(cell: status.Cell | None) -> str:
    if cell is None:
        return f'<span class="run-none">{NOT_RUN}</span>'
    memory = f", {cell.peak_memory_bytes / 2**30:.1f} GB" if cell.peak_memory_bytes else ""
    when = f"{cell.date}, {cell.seconds:.0f} s{memory}, {status.verdict_text(cell, _)}"
    if cell.state == "stale":
        when = _("sources changed since {date}").format(date=cell.date)
    link = f'<a href="../{html.escape(cell.record.replace("results/", "", 1))}">{STATE_TEXT[cell.state]}</a>'
    return f'<span class="run-{cell.state}">{link}</span><br><small>{html.escape(when)}</small>'


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
    folder = runs.runs_folder(Path(app.srcdir))
    if folder.is_dir():
        shutil.copytree(folder, out / "runs", dirs_exist_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-read", _insert_line)
    app.connect("build-finished", _publish)
    app.add_directive("run-status", RunStatusTable)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
