"""The lessons as the workshop sees them: each notebook's title, minutes, exercises, platforms, prerequisites and
self-check questions, read from its `course` metadata and header, in the book's order."""

from __future__ import annotations

import dataclasses
import posixpath
import re
from pathlib import Path
from typing import Any

from tools.author import quiz
from tools.checks import lesson_size
from tools.course import ROOT, CourseError, cell_source, notebook_paths, read_notebook, toc_files
from tools.lesson import checked_course, labelled_exercise_blocks
from tools.lesson import course as course_metadata
from tools.workshop.rooms import tables

QUIZ_MINUTES = lesson_size.ROOM_QUIZ_MINUTES  # per self-check question asked in room mode (tools/author/quiz/)
OPTIONAL_LEVELS = frozenset({"hard"})  # exercises a track leaves optional by default (homework, early finishers)
PREREQUISITES = re.compile(r"\*\*Prerequisites\*\*:(.*?)(?:\n\n|$)", re.DOTALL)
DOC_LINK = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`")


@dataclasses.dataclass(frozen=True)
class Lesson:
    entry: str  # the _toc.yml entry, e.g. notebooks/batched-eigh/batched-eigh
    title: str
    teaching: int
    exercises: int
    platforms: tuple[str, ...] = ()
    short_exercise: int = 0  # minutes of the shortest exercise a track counts: the one a half day keeps
    exercise_list: tuple[tuple[str, int, int], ...] = ()  # (label, minutes, debrief) a track counts, shortest first
    prerequisites: tuple[str, ...] = ()  # entries of the lessons its Prerequisites line links to
    questions: int = 0  # self-check questions it asks in room mode (tools/author/quiz/, at most ROOM_QUESTIONS)
    parallel: tuple[Lesson, ...] = ()  # a breakout: these lessons side by side, one per group
    run_along: int = 0  # the room's run-along minutes (lesson_size: RUN_ALONG_SECONDS per visible code cell)
    optional: tuple[tuple[str, int], ...] = ()  # (label, minutes) of the exercises left optional (OPTIONAL_LEVELS)
    walk_through: bool = False  # shown by the instructor in a short slot: no run-along, exercises or quiz
    overlaps: tuple[tuple[str, str, int], ...] = ()  # (section, the lesson that teaches it too, its rule minutes)

    @property
    def minutes(self) -> int:
        """Its room minutes with every exercise a track counts (the optional ones left out)."""
        return (self.teaching + self.run_along + sum(m + debrief for _, m, debrief in self.kept(self.exercise_count))
                + self.questions * QUIZ_MINUTES)

    def kept(self, count: int) -> tuple[tuple[str, int, int], ...]:
        """The `count` shortest exercises, the ones a day keeps when it cannot take them all."""
        return self.exercise_list[:count]

    @property
    def exercise_count(self) -> int:
        return len(self.exercise_list)


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
    """Self-check questions per lesson entry that a room is asked (tools/author/quiz/, room mode: at most
    ROOM_QUESTIONS); none where the book has no quizzes."""
    if not (root / quiz.QUIZZES).is_dir():
        return {}
    return {entry: min(len(questions), quiz.ROOM_QUESTIONS)
            for entry, (_, questions) in quiz.lesson_questions(root).items()}


def read_lesson(root: Path, entry: str, asked: dict[str, int] | None = None) -> tuple[Lesson, dict[str, Any]]:
    path = root / f"{entry}.ipynb"
    notebook = read_notebook(path)
    course = course_metadata(notebook)
    minutes = course.get("minutes")
    if not (isinstance(minutes, dict) and all(isinstance(minutes.get(k), int) for k in ("teaching", "exercises"))):
        raise CourseError(f"{path}: metadata course.minutes must give whole 'teaching' and 'exercises' minutes")
    listed = exercise_metadata(notebook, path)
    if listed is None:  # no course.exercises: the minutes as one exercise of unknown level, debriefed as a medium one
        listed = [{"label": "", "minutes": minutes["exercises"], "level": "medium"}] if minutes["exercises"] else []
    debrief = lesson_size.DEBRIEF_MINUTES
    counted = tuple(sorted(((item["label"], item["minutes"], debrief.get(item["level"], debrief["medium"]))
                            for item in listed if item["level"] not in OPTIONAL_LEVELS), key=lambda e: e[1]))
    optional = tuple((item["label"], item["minutes"]) for item in listed if item["level"] in OPTIONAL_LEVELS)
    size = lesson_size.measure(path)
    overlaps = tuple((section, taught_in, lesson_size.section_minutes(path, section))
                     for section, taught_in in tables().overlaps.get(entry, ()))
    lesson = Lesson(entry, notebook_title(notebook, path), minutes["teaching"], minutes["exercises"],
                    tuple(course.get("platforms", ())), counted[0][1] if counted else 0, counted,
                    prerequisites(notebook, entry), (asked or {}).get(entry, 0), (), size.run_along_minutes, optional,
                    overlaps=overlaps)
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

