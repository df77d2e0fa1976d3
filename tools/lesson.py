"""A lesson notebook's anatomy: its exercises and its `course` metadata, read in one place.

Every tool and extension that asks about a lesson asks this module: which exercises it has (the sphinx-exercise
directive in a markdown cell, its `:label:` and title), which code cell is each exercise's solution (tagged
`solution`; its label is the nearest directive above it) and which its check (the next code cell), what a student
copy puts in place of a solution (STUB), and what `metadata.course` says (described once, as a JSON Schema, in
tools/schemas/course-metadata.schema.json). No other module parses the exercise directive: tests/test_lesson.py
fails if one does.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from tools.course import CourseError, cell_source, cell_tags, read_notebook, relative_path

# An exercise is a sphinx-exercise directive in a markdown cell; its label opens a line of the body.
_EXERCISE = re.compile(r"```\{exercise\}[ \t]*(?P<title>[^\n]*)\n(?P<body>.*?)```", re.DOTALL)
_LABEL = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)
_OPTIONS = re.compile(r"\A(?::[\w-]+:[^\n]*\n)+\n?")  # a directive's options, at the top of its body
SOLUTION = "solution"  # the tag of an exercise's solution cell
LEVELS = ("easy", "medium", "hard")
# What a student copy has in place of each solution's code (tools/workshop/student.py writes the copies).
# The book's (myst-nb's) tags that hide a code cell's code, and those that hide its outputs.
HIDES_SOURCE = frozenset({"hide-input", "remove-input", "hide-cell", "remove-cell"})
HIDES_OUTPUTS = frozenset({"hide-output", "remove-output", "hide-cell", "remove-cell"})
# A plain comment, not a Colab form title (`# @title`): the cell the learner types into opens as code everywhere.
STUB = "# Your solution: write it here, then run the check below.\n# Your code here\n"
METADATA_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "course-metadata.schema.json").read_text("utf-8"))


@dataclasses.dataclass(frozen=True)
class ExerciseBlock:
    """One exercise directive: the markdown cell that holds it, its label ('' when it has none) and title."""

    cell: int
    label: str
    title: str


@dataclasses.dataclass(frozen=True)
class ExerciseCells:
    """An exercise's code: the indices of its solution cell and of its check cell in the notebook."""

    label: str
    solution: int
    check: int


def has_exercise(markdown: str) -> bool:
    """Whether a markdown cell's text holds an exercise directive."""
    return _EXERCISE.search(markdown) is not None


def exercises_as_headings(markdown: str) -> str:
    """The markdown with each exercise directive made plain Markdown, for a student copy: a heading with the
    exercise's title, then its body without the directive's options (`:label:` and the like)."""
    def heading(block: re.Match[str]) -> str:
        body = _OPTIONS.sub("", block.group("body").lstrip("\n"))
        return f"### Exercise: {block.group('title').strip()}\n\n{body}".rstrip() + "\n"

    return _EXERCISE.sub(heading, markdown)


def exercise_blocks(notebook: dict[str, Any]) -> list[ExerciseBlock]:
    """Every exercise directive, in notebook order."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        if cell.get("cell_type") == "markdown":
            for block in _EXERCISE.finditer(cell_source(cell)):
                label = _LABEL.search(block.group("body"))
                found.append(ExerciseBlock(index, label.group(1) if label else "", block.group("title").strip()))
    return found


def labelled_exercise_blocks(notebook: dict[str, Any], path: Path) -> list[ExerciseBlock]:
    """Every exercise directive, or a CourseError naming the first one without a label."""
    blocks = exercise_blocks(notebook)
    for block in blocks:
        if not block.label:
            raise CourseError(f"{relative_path(path)}: the exercise {block.title!r} (cell {block.cell}) has no :label:")
    return blocks


def exercise_labels(notebook: dict[str, Any]) -> list[str]:
    """The exercise labels in notebook order ('' for a directive without a label)."""
    return [block.label for block in exercise_blocks(notebook)]


def exercise_cells(notebook: dict[str, Any], path: Path) -> list[ExerciseCells]:
    """Each exercise's solution and check cells, or a CourseError naming what is missing: a directive without a
    label or without a solution before the next one, a solution without a directive above it or without a check
    cell after it."""
    cells = notebook["cells"]
    where = relative_path(path)
    blocks: dict[int, list[ExerciseBlock]] = {}
    for block in exercise_blocks(notebook):
        blocks.setdefault(block.cell, []).append(block)
    found: list[ExerciseCells] = []
    open_block: ExerciseBlock | None = None
    for index, cell in enumerate(cells):
        for block in blocks.get(index, []):
            if not block.label:
                raise CourseError(f"{where}: the exercise in cell {index} has no ':label:' line")
            if open_block is not None:
                raise CourseError(f"{where}: the exercise {open_block.label} (cell {open_block.cell}) has no "
                                  f"solution cell (tag '{SOLUTION}') before the next exercise")
            open_block = block
        if cell.get("cell_type") != "code" or SOLUTION not in cell_tags(cell):
            continue
        if open_block is None:
            raise CourseError(f"{where}: solution cell {index} has no {{exercise}} directive above it")
        check = next((i for i in range(index + 1, len(cells)) if cells[i].get("cell_type") == "code"), None)
        if check is None or SOLUTION in cell_tags(cells[check]):
            raise CourseError(f"{where}: solution cell {index} ({open_block.label}) has no check cell after it")
        found.append(ExerciseCells(open_block.label, index, check))
        open_block = None
    if open_block is not None:
        raise CourseError(f"{where}: the exercise {open_block.label} (cell {open_block.cell}) has no solution "
                          f"cell (tag '{SOLUTION}')")
    return found


def has_solutions(notebook: dict[str, Any]) -> bool:
    return any(cell.get("cell_type") == "code" and SOLUTION in cell_tags(cell) for cell in notebook["cells"])


def course(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook's `metadata.course` ({} where it has none or it is not an object)."""
    found = notebook.get("metadata", {}).get("course", {})
    return found if isinstance(found, dict) else {}


def metadata_problems(notebook: dict[str, Any]) -> list[str]:
    """What is wrong with `metadata.course`: each break of the schema, exercises that are not the notebook's
    directives in order, and exercise minutes that do not add up."""
    found = notebook.get("metadata", {}).get("course")
    if not isinstance(found, dict):
        return ["notebook metadata lacks 'course' (platforms, minutes, multi_process, budget_seconds, exercises)"]
    problems = []
    for error in sorted(jsonschema.Draft202012Validator(METADATA_SCHEMA).iter_errors(found), key=str):
        where = "course" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        problems.append(f"{where}: {error.message} ({error.schema.get('description', 'see the schema')})"
                        if error.validator == "required" else f"{where}: {error.message}")
    listed = found.get("exercises")
    if isinstance(listed, list):
        labels = exercise_labels(notebook)
        named = [entry.get("label") if isinstance(entry, dict) else None for entry in listed]
        if named != labels:
            problems.append(f"course.exercises lists {named} but the notebook's exercise directives are {labels}: "
                            'list {"label": ..., "minutes": N, "level": "easy"|"medium"|"hard"} for each, in order')
        total = sum(e["minutes"] for e in listed if isinstance(e, dict) and isinstance(e.get("minutes"), int))
        minutes = found.get("minutes")
        if isinstance(minutes, dict) and minutes.get("exercises") != total:
            problems.append(f"course.minutes.exercises is {minutes.get('exercises')}, but course.exercises adds up "
                            f"to {total} minutes: make them equal")
    return problems


def checked_course(notebook: dict[str, Any], path: Path) -> dict[str, Any]:
    """`metadata.course`, or a CourseError with its first problem."""
    problems = metadata_problems(notebook)
    if problems:
        raise CourseError(f"{relative_path(path)}: {problems[0]}")
    return course(notebook)


def budget_seconds(path: Path) -> int | None:
    """The lesson's execution budget (course.budget_seconds), or None where it cannot be read."""
    try:
        budget = course(read_notebook(path)).get("budget_seconds")
    except CourseError:
        return None
    return budget if isinstance(budget, int) else None


def starts_processes(path: Path) -> bool:
    """A notebook that starts processes of its own (course.multi_process): two such never run at a time."""
    try:
        return course(read_notebook(path)).get("multi_process") is True
    except CourseError:
        return False
