"""Student copies: each lesson with exercises, its solution cells replaced by the stub, where the copies lie and
the Colab, Binder and download addresses that open them."""

from __future__ import annotations

import copy
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.course import (
    ROOT,
    CourseError,
    book_url,
    cell_source,
    cell_tags,
    notebook_paths,
    read_notebook,
    repository_url,
    write_notebook,
)
from tools.lesson import HIDES_OUTPUTS, HIDES_SOURCE, SOLUTION, STUB, exercises_as_headings, has_solutions

STUDENT_BRANCH = "student"  # the branch the publish workflow pushes the student copies to (Colab and Binder open them)
STUDENT_FOLDER = "student"  # the built site's folder of student copies
# What the student branch holds beside the copies, from the repository: Binder's environment, whose `-e .` installs
# the upgrade scanner (its lesson imports it) from the package and pyproject.toml copied here, and the recorded
# results the lessons plot (results/*.json; the run records under results/runs/ stay in the repository).
BRANCH_FILES = ("binder", "pyproject.toml", "torch_upgrade_scan")


# JupyterLab's Run All (and nbclient) goes on past a cell with this tag when it raises: an unsolved check shows its
# message and the rest of the lesson still runs. What Colab's Run All does with it is untested (docs/workshop.md).
RAISES = "raises-exception"
_DOC = re.compile(r"\{doc\}`(?:(?P<text>[^`<]*?)\s*<(?P<target>[^`>]+)>|(?P<bare>[^`]+))`")
_FOOTNOTE_DEFINITION = re.compile(r"^\[\^(?P<name>[^\]]+)\]:[ \t]*(?P<text>.*(?:\n(?:    |\t).*)*)\n?", re.MULTILINE)
_FOOTNOTE = re.compile(r"\[\^(?P<name>[^\]]+)\]")


def page_title(path: Path) -> str:
    """A book page's title: the first heading of its notebook or Markdown file (its file name where it has none)."""
    if path.suffix == ".ipynb":
        cells = read_notebook(path)["cells"]
        text = "\n".join(cell_source(cell) for cell in cells if cell.get("cell_type") == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    heading = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    return heading.group(1).strip() if heading else path.stem


def _page(entry: str, target: str, root: Path) -> tuple[str, Path]:
    """The book entry a {doc} target names from the page `entry` (relative, or absolute from the book's root) and
    its source file, or a CourseError."""
    joined = (Path(entry).parent / target) if not target.startswith("/") else Path(target.lstrip("/"))
    resolved = (root / joined).resolve().relative_to(root.resolve()).as_posix()
    for suffix in (".ipynb", ".md"):
        if (root / f"{resolved}{suffix}").is_file():
            return resolved, root / f"{resolved}{suffix}"
    raise CourseError(f"{entry}: {{doc}}`{target}` names no page of the book")


def plain_markdown(notebook: dict[str, Any], entry: str, root: Path = ROOT) -> dict[str, Any]:
    """The notebook's Markdown with its MyST markup made plain, for JupyterLab and Colab: each exercise directive a
    heading, each {doc} role a link to the published book's page, each footnote a numbered note in a "Notes" cell at
    the end. Code cells are untouched."""
    plain = copy.deepcopy(notebook)
    base = book_url(root)
    numbers: dict[str, int] = {}
    notes: dict[str, str] = {}

    def link(match: re.Match[str]) -> str:
        target = match.group("target") or match.group("bare")
        page, source = _page(entry, target.strip(), root)
        return f"[{match.group('text') or page_title(source)}]({base}{page}.html)"

    def reference(match: re.Match[str]) -> str:
        number = numbers.setdefault(match.group("name"), len(numbers) + 1)
        return f"<sup>[{number}]</sup>"

    def keep_note(match: re.Match[str]) -> str:
        notes[match.group("name")] = " ".join(line.strip() for line in match.group("text").splitlines())
        return ""

    for cell in plain["cells"]:
        if cell.get("cell_type") != "markdown":
            continue
        text = exercises_as_headings(cell_source(cell))
        text = _FOOTNOTE_DEFINITION.sub(keep_note, text)
        cell["source"] = _FOOTNOTE.sub(reference, _DOC.sub(link, text)).rstrip("\n")
    if numbers:
        missing = sorted(set(numbers) - set(notes))
        if missing:
            raise CourseError(f"{entry}: footnote(s) {', '.join(missing)} have no definition")
        lines = [f"{number}. {notes[name]}" for name, number in sorted(numbers.items(), key=lambda item: item[1])]
        notes_cell = "## Notes\n\n" + "\n".join(lines)
        plain["cells"].append({"cell_type": "markdown", "id": "notes", "metadata": {}, "source": notes_cell})
    return plain


def student_version(notebook: dict[str, Any], entry: str | None = None, root: Path = ROOT) -> dict[str, Any]:
    """The notebook a learner gets. Each solution cell's code is replaced by the stub, and that cell opens as code
    everywhere (not collapsed, no Colab form), the cell the learner types into. Each check after it is tagged
    `raises-exception`, so that Run All shows an unsolved check's message and goes on. Other cells keep their tags
    and metadata; what the book hides is collapsed: its code in JupyterLab (jupyter.source_hidden) and on Colab (its
    form view), its outputs in JupyterLab (jupyter.outputs_hidden). With the lesson's `entry`, its MyST markup is
    made plain Markdown (plain_markdown)."""
    student = plain_markdown(notebook, entry, root) if entry is not None else copy.deepcopy(notebook)
    cells = student["cells"]
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        tags = set(cell_tags(cell))
        metadata = cell.setdefault("metadata", {})
        if SOLUTION in tags:
            cell["source"] = STUB
            cell["outputs"], cell["execution_count"] = [], None
            metadata["tags"] = [tag for tag in cell_tags(cell) if tag not in HIDES_SOURCE | HIDES_OUTPUTS]
            for key in ("jupyter", "cellView"):
                metadata.pop(key, None)
            check = next(later for later in cells[index + 1:] if later.get("cell_type") == "code")
            check.setdefault("metadata", {})["tags"] = [*cell_tags(check), RAISES]
            continue
        if tags & HIDES_SOURCE:
            metadata.setdefault("jupyter", {})["source_hidden"] = True
            metadata["cellView"] = "form"
        if tags & HIDES_OUTPUTS:
            metadata.setdefault("jupyter", {})["outputs_hidden"] = True
    return student


def student_path(entry: str) -> str:
    """Where a lesson's student copy lies, in the student branch and under the site's student folder."""
    if not entry.startswith("notebooks/"):
        raise CourseError(f"{entry}: student copies are made of notebooks under notebooks/ only")
    return f"{entry.removeprefix('notebooks/')}.ipynb"


def student_links(
    entry: str, root: Path = ROOT, branch: str = STUDENT_BRANCH, branch_folder: str = ""
) -> dict[str, str]:
    """Colab, Binder and download addresses of a lesson's student copy (the download relative to the site). A
    translated edition's copies lie in another branch, under `branch_folder` (tools/editions/)."""
    owner_repo = repository_url(root).removeprefix("https://github.com/")
    path = student_path(entry)
    in_branch = f"{branch_folder}{path}"
    return {"colab": f"https://colab.research.google.com/github/{owner_repo}/blob/{branch}/{in_branch}",
            "binder": f"https://mybinder.org/v2/gh/{owner_repo}/{branch}?labpath={in_branch}",
            "download": f"{STUDENT_FOLDER}/{path}"}


def write_student_notebooks(
    out: Path, root: Path = ROOT, notebook_of: Callable[[Path], dict[str, Any]] = read_notebook,
    entries: set[str] | None = None,
) -> list[Path]:
    """Write a student version of every notebook with exercises under `out` (only those of `entries`, _toc.yml
    entries, where given), keeping the folders of notebooks/. `notebook_of` gives the notebook to copy for each path
    (a translated edition passes its translation)."""
    written = []
    for path in notebook_paths(root):
        if entries is not None and path.relative_to(root).with_suffix("").as_posix() not in entries:
            continue
        notebook = notebook_of(path)
        if not has_solutions(notebook):
            continue
        entry = path.relative_to(root).with_suffix("").as_posix()
        target = out / student_path(entry)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(target, student_version(notebook, entry, root))
        written.append(target)
    return written



def write_student_branch(out: Path, root: Path = ROOT) -> list[Path]:
    """Write what the student branch holds under `out`: every student copy, Binder's environment with what its
    requirements install from the branch (BRANCH_FILES), and the recorded results (results/*.json). The copies
    written."""
    written = write_student_notebooks(out, root)
    for name in BRANCH_FILES:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, out / name, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, out / name)
    (out / "results").mkdir(exist_ok=True)
    for result in sorted((root / "results").glob("*.json")):
        shutil.copy2(result, out / "results" / result.name)
    return written
