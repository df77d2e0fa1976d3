"""Student copies: each lesson with exercises, its solution cells replaced by the stub, where the copies lie and
the Colab, Binder and download addresses that open them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.course import ROOT, CourseError, cell_tags, notebook_paths, read_notebook, repository_url, write_notebook
from tools.lesson import HIDES_OUTPUTS, HIDES_SOURCE, STUB, has_solutions

STUDENT_BRANCH = "student"  # the branch the publish workflow pushes the student copies to (Colab and Binder open them)
STUDENT_FOLDER = "student"  # the built site's folder of student copies


def student_version(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook with each solution cell's code replaced by a stub; tags, metadata and check cells stay. What the
    book hides is collapsed: its code in JupyterLab (jupyter.source_hidden) and on Colab (its form view), its outputs
    in JupyterLab (jupyter.outputs_hidden)."""
    student = copy.deepcopy(notebook)
    for cell in student["cells"]:
        if cell.get("cell_type") != "code":
            continue
        if "solution" in cell_tags(cell):
            cell["source"] = STUB
            cell["outputs"], cell["execution_count"] = [], None
        tags = set(cell_tags(cell))
        metadata = cell.setdefault("metadata", {})
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
        target = out / student_path(path.relative_to(root).with_suffix("").as_posix())
        target.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(target, student_version(notebook))
        written.append(target)
    return written

