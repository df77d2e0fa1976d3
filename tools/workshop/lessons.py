"""The lessons as the workshop sees them: each notebook's title, minutes, exercises, platforms, prerequisites and
self-check questions, read from its `course` metadata and header, in the book's order."""

from __future__ import annotations

import dataclasses
import posixpath
import re
from pathlib import Path
from typing import Any

from tools.author import quiz
from tools.course import ROOT, CourseError, cell_source, notebook_paths, read_notebook, toc_files
from tools.lesson import checked_course, labelled_exercise_blocks
from tools.lesson import course as course_metadata

QUIZ_MINUTES = 1  # per self-check question a lesson asks (tools/author/quiz/): read, answer, discuss
PREREQUISITES = re.compile(r"\*\*Prerequisites\*\*:(.*?)(?:\n\n|$)", re.DOTALL)
DOC_LINK = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`")


@dataclasses.dataclass(frozen=True)
class Lesson:
    entry: str  # the _toc.yml entry, e.g. notebooks/batched-eigh/batched-eigh
    title: str
    teaching: int
    exercises: int
    platforms: tuple[str, ...] = ()
    short_exercise: int = 0  # minutes of the notebook's shortest exercise: the one a half day keeps
    exercise_list: tuple[tuple[str, int], ...] = ()  # (label, minutes), shortest first: what a day keeps, in order
    prerequisites: tuple[str, ...] = ()  # entries of the lessons its Prerequisites line links to
    questions: int = 0  # self-check questions it asks (tools/author/quiz/)
    parallel: tuple[Lesson, ...] = ()  # a breakout: these lessons side by side, one per group

    @property
    def minutes(self) -> int:
        return self.teaching + self.exercises + self.questions * QUIZ_MINUTES

    def kept(self, count: int) -> tuple[tuple[str, int], ...]:
        """The `count` shortest exercises, the ones a day keeps when it cannot take them all."""
        listed = self.exercise_list or (("", self.exercises),)
        return listed[:count]

    @property
    def exercise_count(self) -> int:
        return len(self.exercise_list) or 1


@dataclasses.dataclass(frozen=True)
class Exercise:
    label: str
    title: str
    entry: str
    minutes: int
    level: str = ""


def notebook_title(notebook: dict[str, Any], path: Path) -> str:
    cells = notebook["cells"]
    first = cell_source(cells[0]).strip().split("\n")[0] if cells else ""
    if not first.startswith("# "):
        raise CourseError(f"{path}: the first cell must open with a '# Title'")
    return first[2:].strip()


def lesson_entries(root: Path = ROOT) -> list[str]:
    """Notebook entries in _toc.yml order (notebooks the table of contents misses come last, sorted)."""
    listed = [entry for entry in toc_files(root) if (root / f"{entry}.ipynb").is_file()]
    others = [p.relative_to(root).with_suffix("").as_posix() for p in notebook_paths(root)]
    return listed + sorted(set(others) - set(listed))


def exercise_metadata(notebook: dict[str, Any], path: Path) -> list[dict[str, Any]] | None:
    """`course.exercises` checked against the notebook's exercises (tools/lesson.py), or None where it has none."""
    if "exercises" not in course_metadata(notebook):
        return None
    listed: list[dict[str, Any]] = checked_course(notebook, path)["exercises"]
    return listed


def prerequisites(notebook: dict[str, Any], entry: str) -> tuple[str, ...]:
    """The lessons that the header's "**Prerequisites**:" line links to with {doc}, as _toc.yml entries."""
    header = cell_source(notebook["cells"][0]) if notebook.get("cells") else ""
    line = PREREQUISITES.search(header)
    if not line:
        return ()
    folder = posixpath.dirname(entry)
    return tuple(posixpath.normpath(posixpath.join(folder, target.strip()))
                 for target in DOC_LINK.findall(line.group(1)))


def questions_asked(root: Path) -> dict[str, int]:
    """Self-check questions per lesson entry (tools/author/quiz/); none where the book has no quizzes."""
    if not (root / quiz.QUIZZES).is_dir():
        return {}
    return {entry: len(questions) for entry, (_, questions) in quiz.lesson_questions(root).items()}


def read_lesson(root: Path, entry: str, asked: dict[str, int] | None = None) -> tuple[Lesson, dict[str, Any]]:
    path = root / f"{entry}.ipynb"
    notebook = read_notebook(path)
    course = course_metadata(notebook)
    minutes = course.get("minutes")
    if not (isinstance(minutes, dict) and all(isinstance(minutes.get(k), int) for k in ("teaching", "exercises"))):
        raise CourseError(f"{path}: metadata course.minutes must give whole 'teaching' and 'exercises' minutes")
    listed = exercise_metadata(notebook, path)
    ordered = tuple(sorted(((item["label"], item["minutes"]) for item in listed or ()), key=lambda e: e[1]))
    shortest = ordered[0][1] if ordered else minutes["exercises"]
    lesson = Lesson(entry, notebook_title(notebook, path), minutes["teaching"], minutes["exercises"],
                    tuple(course.get("platforms", ())), shortest, ordered, prerequisites(notebook, entry),
                    (asked or {}).get(entry, 0))
    return lesson, notebook


def lessons(root: Path = ROOT) -> list[Lesson]:
    asked = questions_asked(root)
    return [read_lesson(root, entry, asked)[0] for entry in lesson_entries(root)]


def exercises(root: Path = ROOT) -> list[Exercise]:
    """Every exercise in book order, with its minutes and level from `course.exercises`.

    A notebook without `course.exercises` shares its exercise minutes among its exercises, level unknown."""
    found = []
    for entry in lesson_entries(root):
        lesson, notebook = read_lesson(root, entry)
        path = root / f"{entry}.ipynb"
        blocks = labelled_exercise_blocks(notebook, path)
        listed = exercise_metadata(notebook, path)
        for index, (label, title) in enumerate((block.label, block.title) for block in blocks):
            if listed is not None:
                found.append(Exercise(label, title, entry, listed[index]["minutes"], listed[index]["level"]))
                continue
            share = lesson.exercises // len(blocks) + (1 if index < lesson.exercises % len(blocks) else 0)
            found.append(Exercise(label, title, entry, share))
    return found

