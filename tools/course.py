"""Where the course's parts live, and how to read them.

Every tool and test finds notebooks, the table of contents and the book configuration through
this module, so that a path or a format is decided in one place.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
RESULTS = ROOT / "results"
SNIPPETS = ROOT / "tools" / "snippets"
PLATFORMS = ("cuda", "rocm", "mps", "xpu", "cpu")
PLATFORM_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "mps": "MPS", "xpu": "XPU", "cpu": "CPU"}  # as pages write them
CONSTRAINTS = ROOT / "constraints.txt"


class CourseError(Exception):
    """A problem with the course's files, worded for the person who has to fix it."""


def relative_path(path: Path, root: Path = ROOT) -> str:
    """A path relative to the repository (or `root`) where it lies inside it, else as given."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def taught_release(root: Path = ROOT) -> str:
    """The release the book teaches and is executed on: the one `torch==` line of constraints.txt."""
    path = root / CONSTRAINTS.name
    pins = re.findall(r"^torch==(\S+)", path.read_text(encoding="utf-8"), re.MULTILINE)
    if len(pins) != 1:
        raise CourseError(f"{path}: expected one line torch==<release>")
    return pins[0]


def notebook_paths(root: Path = ROOT) -> list[Path]:
    """Every lesson notebook under notebooks/, sorted, checkpoints left out."""
    folder = root / "notebooks"
    return sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def read_notebook(path: Path) -> dict[str, Any]:
    """The notebook's JSON, or a CourseError that names the file and the problem."""
    if not path.is_file():
        raise CourseError(f"{path}: no such notebook")
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CourseError(f"{path}: not a valid notebook ({error})") from error
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise CourseError(f"{path}: not a notebook (no list of cells)")
    return notebook


def write_notebook(path: Path, notebook: dict[str, Any]) -> None:
    """Write a notebook as Jupyter does: sources as lists of lines, indented JSON, a final newline."""
    for cell in notebook["cells"]:
        if isinstance(cell.get("source"), str):
            cell["source"] = cell["source"].splitlines(keepends=True)
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def cell_source(cell: dict[str, Any]) -> str:
    """A cell's source as one string (notebooks store it as a string or a list of lines)."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def cell_tags(cell: dict[str, Any]) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise CourseError(f"{path}: missing") from error
    except yaml.YAMLError as error:
        raise CourseError(f"{path}: not valid YAML ({error})") from error


def toc_files(root: Path = ROOT) -> list[str]:
    """Every `file:` entry of _toc.yml (the root page included), in book order, without suffix."""
    toc = read_yaml(root / "_toc.yml")
    found: list[str] = [toc["root"]]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc.get("parts", toc.get("chapters", [])))
    return found


def repository_url(root: Path = ROOT) -> str:
    """The repository URL, set once in _config.yml and used by every launch link."""
    return str(read_yaml(root / "_config.yml")["repository"]["url"]).rstrip("/")


def book_url(root: Path = ROOT) -> str:
    """Where the published book lies: the repository's GitHub Pages site (https://OWNER.github.io/NAME/)."""
    owner, name = repository_url(root).removeprefix("https://github.com/").split("/")[:2]
    return f"https://{owner}.github.io/{name}/"


# The chapters that end with practice (three or more exercises and a self-check quiz): every chapter of these
# _toc.yml parts, and of "Upgrading and teaching" only the migration chapter.
PRACTICE_PARTS = {"Features": None, "Platforms": None, "Upgrading and teaching": ("chapters/migration",)}


@dataclasses.dataclass(frozen=True)
class Chapter:
    """A chapter page of _toc.yml and the notebooks listed under it, in book order."""

    part: str  # the part's caption
    entry: str  # e.g. chapters/graphs
    notebooks: tuple[str, ...]  # entries such as notebooks/graphs/accelerator-graph

    @property
    def stem(self) -> str:
        return self.entry.rsplit("/", 1)[-1]


def toc_chapters(root: Path = ROOT) -> list[Chapter]:
    """Every chapter of _toc.yml with its notebook sections (nested sections included), in book order."""
    toc = read_yaml(root / "_toc.yml")

    def sections(node: dict[str, Any]) -> list[str]:
        found = []
        for section in node.get("sections", []) or []:
            if (root / f"{section['file']}.ipynb").is_file():
                found.append(section["file"])
            found += sections(section)
        return found

    return [Chapter(str(part.get("caption", "")), chapter["file"], tuple(sections(chapter)))
            for part in toc.get("parts", []) for chapter in part.get("chapters", []) if "file" in chapter]


def practice_chapters(root: Path = ROOT) -> list[Chapter]:
    """The chapters that must have three or more exercises and a quiz (see PRACTICE_PARTS)."""
    found = []
    for chapter in toc_chapters(root):
        if chapter.part in PRACTICE_PARTS:
            only = PRACTICE_PARTS[chapter.part]
            if only is None or chapter.entry in only:
                found.append(chapter)
    return found


# Lessons that are chapters of their own outside those parts and still ask a quiz: the lesson that opens the CPU
# room's half day (tools/workshop/tracks.py), which a half day leaves without an exercise.
QUIZ_LESSONS = ("notebooks/getting-started/know-your-accelerator",)


def quiz_chapters(root: Path = ROOT) -> list[Chapter]:
    """The chapters with a quiz, in book order: the practice chapters, and each lesson of QUIZ_LESSONS as a chapter
    whose one notebook is itself."""
    practice = {chapter.entry for chapter in practice_chapters(root)}
    return [chapter if chapter.entry in practice else dataclasses.replace(chapter, notebooks=(chapter.entry,))
            for chapter in toc_chapters(root) if chapter.entry in practice or chapter.entry in QUIZ_LESSONS]
