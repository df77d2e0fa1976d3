"""The course's conventions for notebooks, as checks that name each problem they find.

tests/content/ runs them over every lesson (the static step of `make test`: `pytest tests/content -x`).
Each check takes a notebook (parsed JSON) and returns a list of problems, worded for the author.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tools import lesson
from tools.course import (
    PLATFORM_NAMES,
    PLATFORMS,
    ROOT,
    CourseError,
    cell_source,
    cell_tags,
    notebook_paths,
    practice_chapters,
    read_notebook,
    toc_files,
)

HEADER_PARTS = ("What you will learn", "Prerequisites", "Time", "Runs on")
ASSERTION = re.compile(r"^\s*assert\b|assert_close\(|assert_equal\(", re.MULTILINE)
SOLUTION_TITLE = "# @title Solution"


def stored_outputs(notebook: dict[str, Any]) -> list[str]:
    problems = []
    for index, cell in enumerate(notebook["cells"]):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            problems.append(f"cell {index} is stored with outputs (clear them before committing)")
        if cell.get("execution_count") is not None:
            problems.append(f"cell {index} is stored with an execution count")
    return problems


def header(notebook: dict[str, Any]) -> list[str]:
    cells = notebook["cells"]
    if not cells or cells[0].get("cell_type") != "markdown":
        return ["the first cell must be the markdown header"]
    text = cell_source(cells[0])
    problems = []
    if not re.match(r"#\s+\S", text):
        problems.append("the header must open with a '# Title'")
    problems += [f"the header lacks '{part}'" for part in HEADER_PARTS if part not in text]
    runs_on = text[text.find("Runs on"):] if "Runs on" in text else ""
    problems += [f"the 'Runs on' line does not mention {PLATFORM_NAMES[p]}" for p in PLATFORMS
                 if PLATFORM_NAMES[p] not in runs_on]
    return problems


def metadata(notebook: dict[str, Any]) -> list[str]:
    """metadata.course follows its schema (tools/schemas/course-metadata.schema.json) and lists the exercises."""
    problems = lesson.metadata_problems(notebook)
    if notebook.get("metadata", {}).get("kernelspec", {}).get("name") != "python3":
        problems.append("the kernelspec must be python3")
    return problems


def setup_cell(notebook: dict[str, Any]) -> list[str]:
    """The install cell (`stamp:install`, removed from the book) opens the notebook; the setup cell follows."""
    code = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
    if not code or "stamp:install" not in cell_tags(code[0]):
        return ["the first code cell must be the install cell (tagged 'stamp:install')"]
    if "remove-cell" not in cell_tags(code[0]):
        return ["the install cell must be tagged 'remove-cell' (the book's pages come from a run that has torch)"]
    if len(code) < 2 or "stamp:setup" not in cell_tags(code[1]):
        return ["the second code cell must be the setup cell (tagged 'stamp:setup')"]
    if "hide-input" not in cell_tags(code[1]):
        return ["the setup cell must be tagged 'hide-input'"]
    return []


def assertions(notebook: dict[str, Any]) -> list[str]:
    code = "\n".join(cell_source(c) for c in notebook["cells"] if c.get("cell_type") == "code")
    return [] if ASSERTION.search(code) else ["the notebook asserts nothing: a cell that only prints proves nothing"]


def exercises(notebook: dict[str, Any]) -> list[str]:
    """Each exercise has a hidden solution cell (a Colab form) and a check cell that asserts (tools/lesson.py pairs
    them, as the harness does)."""
    if not lesson.exercise_blocks(notebook):
        return ["the notebook has no exercise (a markdown cell with a {exercise} directive)"]
    try:
        pairs = lesson.exercise_cells(notebook, Path("notebook"))
    except CourseError as error:
        return [str(error).removeprefix("notebook: ")]
    cells = notebook["cells"]
    problems = []
    for pair in pairs:
        solution, check = cells[pair.solution], cells[pair.check]
        meta = solution.get("metadata", {})
        if "hide-input" not in cell_tags(solution):
            problems.append(f"the solution of {pair.label} (cell {pair.solution}) must be tagged 'hide-input'")
        if meta.get("jupyter", {}).get("source_hidden") is not True:
            problems.append(f"the solution of {pair.label} (cell {pair.solution}) must be hidden in JupyterLab "
                            "(jupyter.source_hidden)")
        if meta.get("cellView") != "form" or not cell_source(solution).startswith(SOLUTION_TITLE):
            problems.append(f"the solution of {pair.label} (cell {pair.solution}) must be a Colab form "
                            f"('{SOLUTION_TITLE} ...', cellView form)")
        if not ASSERTION.search(cell_source(check)):
            problems.append(f"the check of {pair.label} (cell {pair.check}) must assert")
    return problems


SOLUTION_PROMPTS = {"code_prompt_show": "Show solution", "code_prompt_hide": "Hide solution"}
MIN_CHAPTER_EXERCISES = 3
MAX_CELL_LINES = 30
MIN_FONT_SIZE = 9
# A cell that draws a figure, heuristically: it shows, makes subplots, uses a Figure, or plots.
FIGURE = re.compile(r"plt\.show\(\)|plt\.subplots|\bfig\.|\.plot\(")
FONT_SIZE = re.compile(r"fontsize\s*=\s*(\d+(?:\.\d*)?)")
FILE_NAME = re.compile(r"^\S+\.(png|jpe?g|svg|gif|pdf|webp)$", re.IGNORECASE)


def _code_cells(notebook: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(i, c) for i, c in enumerate(notebook["cells"]) if c.get("cell_type") == "code"]


def solution_prompts(notebook: dict[str, Any]) -> list[str]:
    """Solution cells say what their toggle does in the book (myst-nb's code_prompt_show/hide)."""
    problems = []
    for index, cell in _code_cells(notebook):
        if "solution" not in cell_tags(cell):
            continue
        mystnb = cell.get("metadata", {}).get("mystnb", {})
        if any(mystnb.get(key) != value for key, value in SOLUTION_PROMPTS.items()):
            problems.append(f"solution cell {index}: add cell metadata \"mystnb\": {{\"code_prompt_show\": "
                            f"\"Show solution\", \"code_prompt_hide\": \"Hide solution\"}}")
    return problems


def figure_alt_text(notebook: dict[str, Any]) -> list[str]:
    """Each cell that draws a figure describes it for screen readers (mystnb.image.alt, one sentence)."""
    problems = []
    for index, cell in _code_cells(notebook):
        code = "\n".join(line.split("#")[0] for line in cell_source(cell).splitlines())  # comments aside
        found = FIGURE.search(code)
        if not found:
            continue
        alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt")
        where = f"cell {index} draws a figure ({found.group(0)!r})"
        if not isinstance(alt, str) or not alt.strip():
            problems.append(f"{where}: add cell metadata \"mystnb\": {{\"image\": {{\"alt\": \"<one sentence saying "
                            f"what the figure shows>\"}}}}")
        elif FILE_NAME.match(alt.strip()) or len(alt.split()) < 4:
            problems.append(f"{where}: its mystnb.image.alt {alt!r} is not a sentence; say in one sentence what "
                            "the figure shows")
    return problems


def font_sizes(notebook: dict[str, Any]) -> list[str]:
    """No text smaller than the shared style allows."""
    problems = []
    for index, cell in _code_cells(notebook):
        for match in FONT_SIZE.finditer(cell_source(cell)):
            if float(match.group(1)) < MIN_FONT_SIZE:
                problems.append(f"cell {index} sets {match.group(0)!r}: use {MIN_FONT_SIZE} or more, or drop it "
                                "and keep the setup cell's style")
    return problems


def cell_length(notebook: dict[str, Any]) -> list[str]:
    """Code cells hold one idea: at most MAX_CELL_LINES lines (stamped cells and the generated quiz data aside)."""
    problems = []
    for index, cell in _code_cells(notebook):
        if any(tag.startswith("stamp:") or tag == "quiz-data" for tag in cell_tags(cell)):
            continue
        lines = len(cell_source(cell).rstrip("\n").splitlines())
        if lines > MAX_CELL_LINES:
            problems.append(f"code cell {index} has {lines} lines: split it into cells of at most "
                            f"{MAX_CELL_LINES} lines, one idea each, with prose between them")
    return problems


CHECKS = (stored_outputs, header, metadata, setup_cell, assertions, exercises, solution_prompts,
          figure_alt_text, font_sizes, cell_length)


def chapter_problems(root: Path = ROOT) -> list[str]:
    """Each chapter that ends with practice (tools.course.practice_chapters) has enough exercises."""
    problems = []
    for chapter in practice_chapters(root):
        count = sum(len(lesson.exercise_labels(read_notebook(root / f"{entry}.ipynb"))) for entry in chapter.notebooks)
        if count < MIN_CHAPTER_EXERCISES:
            problems.append(f"{chapter.entry} has {count} exercise(s) across its notebooks "
                            f"({', '.join(chapter.notebooks) or 'none'}): give it at least {MIN_CHAPTER_EXERCISES}, "
                            "graded easy to hard")
    return problems


def notebook_problems(path: Path) -> list[str]:
    notebook = read_notebook(path)
    return [problem for check in CHECKS for problem in check(notebook)]


def toc_problems(root: Path = ROOT) -> list[str]:
    """Entries of _toc.yml with no file, and notebooks that _toc.yml does not list."""
    entries = toc_files(root)
    problems = []
    for entry in entries:
        if not any((root / f"{entry}{suffix}").is_file() for suffix in (".md", ".ipynb")):
            problems.append(f"_toc.yml lists {entry!r}, but there is no {entry}.md or {entry}.ipynb")
    duplicates = sorted({e for e in entries if entries.count(e) > 1})
    problems += [f"_toc.yml lists {entry!r} more than once" for entry in duplicates]
    listed = set(entries)
    for path in notebook_paths(root):
        entry = path.relative_to(root).with_suffix("").as_posix()
        if entry not in listed:
            problems.append(f"{entry}.ipynb is not listed in _toc.yml (an orphaned notebook)")
    return problems
