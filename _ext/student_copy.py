"""Student copies in the published site: each lesson page links its copy, and the site carries the files.

A student copy is the lesson with every solution cell replaced by a stub and every check kept
(tools/workshop/student.py: student_version). This extension

- puts a line under each lesson's title (after the run-status line) with its student copy on Colab,
  on Binder and as a download; Colab and Binder open the copy from the repository's `student`
  branch, which the publish workflow writes from the files below;
- writes the student copies into the built site under student/<chapter>/<notebook>.ipynb when the
  HTML build finishes, so the download links work and the workflow can publish the same files.

A translated edition links its own copies, in the editions branch under <language>/student/; tools/editions/
writes them, translated, over the English ones this extension leaves in the edition's site.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import get_translation

from tools.course import read_notebook
from tools.editions import notebooks as editions
from tools.lesson import has_solutions
from tools.workshop.student import STUDENT_FOLDER, student_links, write_student_notebooks

_ = get_translation("course")  # translated in the editions (_ext/editions.py)


def _link(url: str, text: str) -> nodes.reference:
    return nodes.reference("", text, refuri=url, classes=["student-copy-link"])


def _insert_line(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    source = Path(app.srcdir) / f"{docname}.ipynb"
    if not docname.startswith("notebooks/") or not source.is_file():
        return
    if not has_solutions(read_notebook(source)):
        return
    language = app.config.language or "en"
    if language == "en":
        links = student_links(docname, Path(app.srcdir))
    else:  # the edition's own student copies, in the editions branch (tools/editions/notebooks.py writes them)
        links = student_links(docname, Path(app.srcdir), editions.EDITIONS_BRANCH,
                              editions.student_branch_folder(language))
    depth = "../" * docname.count("/")
    line = nodes.paragraph(classes=["student-copy-line"])
    line += nodes.strong(text=_("Student copy"))
    line += nodes.Text(_(" (solutions removed, checks kept): "))
    line += _link(links["colab"], _("open in Colab"))
    line += nodes.Text(" · ")
    line += _link(links["binder"], _("open on Binder"))
    line += nodes.Text(" · ")
    line += _link(depth + links["download"], _("download"))
    line += nodes.Text(_("."))
    section = doctree.next_node(nodes.section)
    if section is None:
        doctree.insert(0, line)
        return
    status = [i for i, child in enumerate(section.children) if "run-status-line" in child.get("classes", [])]
    section.insert(status[0] + 1 if status else 1, line)


def _write_copies(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    write_student_notebooks(Path(app.outdir) / STUDENT_FOLDER, Path(app.srcdir))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", _insert_line)
    app.connect("build-finished", _write_copies)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
