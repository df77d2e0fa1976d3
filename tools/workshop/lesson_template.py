"""A new lesson from the course's anatomy: `make lesson CHAPTER=graphs NAME=my-lesson`.

    python -m tools.workshop.lesson_template --chapter CHAPTER --name NAME

writes notebooks/<the chapter's folder>/NAME.ipynb: the header (title, "What you will learn", prerequisites, time,
runs on), the stamped install and setup cells (tools/snippets/, as tools/author/stamp.py copies them), one idea
with an assertion, one exercise (the `{exercise}` directive tools/lesson.py reads, its hidden solution and its
check), and a summary; three wrong answers under tests/exercises/NAME-double/; and the notebook's entry at the
end of the chapter's sections in _toc.yml; then it refreshes the pages made from the notebooks (quiz cells, the quiz
room, the workshop schedules and the exercise index).

The header's minutes come from the timing rule (tools/checks/lesson_size.py) with no run time: the lesson as
written, read aloud. Its run time joins them after a run: `make test` writes run records under
_build/runs/torch-<release>/run-1/, and `python -m tools.workshop timings <that folder> --write --only <notebook>`
rewrites the minutes and the header's Time line from them.

CHAPTER is a chapter's page in _toc.yml (its stem, such as `graphs`, or `chapters/graphs`); NAME a new lesson's
file name in lower-case words joined by hyphens. Every placeholder sentence says what to write in its place.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from tools.author.quiz.render import attach, write_room_page
from tools.author.stamp import snippet_source
from tools.checks import lesson_size
from tools.course import (
    PLATFORM_NAMES,
    PLATFORMS,
    ROOT,
    Chapter,
    CourseError,
    notebook_paths,
    read_notebook,
    relative_path,
    toc_chapters,
    toc_files,
    write_notebook,
)
from tools.lesson import SOLUTION, exercise_labels
from tools.workshop.pages import write_pages

NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
EXERCISE_MINUTES = 5  # the floor of an easy exercise (lesson_size.FLOOR_MINUTES)
BUDGET_SECONDS = 30  # course.budget_seconds of a lesson that neither compiles nor starts processes
WRONG_ANSWERS = {
    "wrong_in_place.py": ("doubled t in place instead of returning a new tensor", "return t.mul_(2)"),
    "wrong_adds_one.py": ("added one instead of doubling", "return t + 1"),
    "wrong_returns_input.py": ("returned t unchanged", "return t"),
}


def _code(cell_id: str, source: str, tags: list[str] | None = None, **metadata: Any) -> dict[str, Any]:
    return {"cell_type": "code", "id": cell_id, "execution_count": None, "outputs": [], "source": source.rstrip("\n"),
            "metadata": {**({"tags": tags} if tags else {}), **metadata}}


def _markdown(cell_id: str, source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source.rstrip("\n")}


def header(title: str, teaching: int) -> str:
    runs_on = ", ".join(PLATFORM_NAMES[p] for p in PLATFORMS[:-1]) + f" and {PLATFORM_NAMES[PLATFORMS[-1]]}"
    return (f"# {title}\n\n"
            "**What you will learn**\n\n"
            "- the one idea this lesson teaches (write one bullet per new idea in its place).\n\n"
            f"**Prerequisites**: none. **Time**: {teaching} minutes of teaching, {EXERCISE_MINUTES} of exercise.\n\n"
            f"**Runs on**: {runs_on} alike.\n")


def lesson_notebook(title: str, label: str, teaching: int) -> dict[str, Any]:
    """The lesson's cells and `course` metadata (tools/schemas/course-metadata.schema.json)."""
    cells = [
        _markdown("header", header(title, teaching)),
        _code("install", snippet_source("install"), ["stamp:install", "remove-cell"], cellView="form",
              jupyter={"source_hidden": True}),
        _code("setup", snippet_source("setup"), ["stamp:setup", "hide-input"]),
        _markdown("idea", "## The idea\n\n"
                  "Write the idea here, then show it in the cell below. Every factual sentence carries its "
                  "evidence: an output of this notebook, the release's claim with its source, or torch's source.\n"),
        _code("idea-code", "x = torch.arange(6.0, device=device)\n"
              'print(f"the sum of {x.tolist()} is {x.sum().item()} on {device.type}")\n'
              "assert x.sum().item() == 15.0, x\n"),
        _markdown("exercise", "## Exercise\n\n"
                  f"```{{exercise}} Double a tensor\n:label: {label}\n\n"
                  "Write `double(t)`, which returns a new tensor holding twice each element of `t` and leaves `t` "
                  "unchanged.\n```\n"),
        _code("solution", "# @title Solution (double-click to show the code)\n"
              "def double(t: torch.Tensor) -> torch.Tensor:\n    return t * 2\n",
              [SOLUTION, "hide-input"], cellView="form", jupyter={"source_hidden": True},
              mystnb={"code_prompt_show": "Show solution", "code_prompt_hide": "Hide solution"}),
        _code("check", 'assert callable(globals().get("double")), "define double(t) above"\n'
              "data = torch.arange(4.0, device=device)\n"
              "before = data.clone()\n"
              "got = double(data)\n"
              'assert torch.equal(data, before), "double changed t: return a new tensor"\n'
              "assert torch.equal(got, before * 2), (\n"
              '    f"double(t) should be {(before * 2).tolist()}, got {got.tolist()}"\n'
              ")\n"),
        _markdown("summary", "## Summary\n\n"
                  "- What the lesson showed: one bullet per idea of \"What you will learn\".\n"),
    ]
    course = {"platforms": list(PLATFORMS), "minutes": {"teaching": teaching, "exercises": EXERCISE_MINUTES},
              "multi_process": False, "budget_seconds": BUDGET_SECONDS,
              "exercises": [{"label": label, "minutes": EXERCISE_MINUTES, "level": "easy"}]}
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"course": course, "language_info": {"name": "python"},
                         "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}}


def find_chapter(name: str, root: Path = ROOT) -> Chapter:
    chapters = toc_chapters(root)
    for chapter in chapters:
        if name in (chapter.stem, chapter.entry):
            return chapter
    known = ", ".join(chapter.stem for chapter in chapters)
    if not name:
        raise CourseError(f"CHAPTER is missing: make lesson CHAPTER=<chapter> NAME=<name>, a chapter of {known}")
    raise CourseError(f"no chapter {name!r} in _toc.yml: one of {known}")


def lesson_folder(chapter: Chapter) -> str:
    """Where a chapter's lessons lie: the folder of its first notebook, else notebooks/<its stem>."""
    return chapter.notebooks[0].rsplit("/", 1)[0] if chapter.notebooks else f"notebooks/{chapter.stem}"


def add_to_toc(chapter: Chapter, entry: str, root: Path = ROOT) -> None:
    """Add `- file: <entry>` at the end of the chapter's sections in _toc.yml, its comments and layout kept."""
    path = root / "_toc.yml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    opening = re.compile(rf"^(\s*)- file: {re.escape(chapter.entry)}\s*$")
    start, found = next((i, match) for i, line in enumerate(lines) if (match := opening.match(line)))
    indent = len(found.group(1))
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    lines[end - 1] = lines[end - 1].rstrip("\n") + "\n"  # the file's last line may lack its newline
    has_sections = any(line.strip() == "sections:" for line in lines[start + 1:end])
    added = ([] if has_sections else [" " * (indent + 2) + "sections:\n"]) + [" " * (indent + 4) + f"- file: {entry}\n"]
    lines[end:end] = added
    path.write_text("".join(lines), encoding="utf-8")
    if entry not in toc_files(root):
        raise CourseError(f"{relative_path(path)}: the entry {entry} did not land in the table of contents")


def new_lesson(chapter_name: str, name: str, root: Path = ROOT) -> tuple[Path, Path, int]:
    """Write the lesson, its wrong answers and its _toc.yml entry; return the notebook, the wrong answers' folder
    and the teaching minutes."""
    chapter = find_chapter(chapter_name, root)
    if not name:
        raise CourseError("NAME is missing: make lesson CHAPTER=<chapter> NAME=<name>, such as NAME=my-lesson")
    if not NAME.fullmatch(name):
        raise CourseError(f"NAME {name!r}: use lower-case words and digits joined by hyphens, such as my-lesson")
    entry = f"{lesson_folder(chapter)}/{name}"
    taken = [path for path in notebook_paths(root) if path.stem == name]
    if taken:
        raise CourseError(f"a lesson named {name} exists: {relative_path(taken[0], root)}; pick another NAME")
    label = f"{name}-double"
    answers = root / "tests" / "exercises" / label
    if answers.exists() or any(label in exercise_labels(read_notebook(path)) for path in notebook_paths(root)):
        raise CourseError(f"the exercise label {label} is taken: pick another NAME")
    path = root / f"{entry}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    title = name.replace("-", " ").capitalize()
    write_notebook(path, lesson_notebook(title, label, lesson_size.LessonSize(path=path).teaching_minutes))
    teaching = lesson_size.measure(path, run_seconds=0.0).teaching_minutes  # no run yet (module docstring)
    write_notebook(path, lesson_notebook(title, label, teaching))
    answers.mkdir(parents=True)
    for file, (mistake, body) in WRONG_ANSWERS.items():
        (answers / file).write_text(f"# Wrong: {mistake}\ndef double(t: torch.Tensor) -> torch.Tensor:\n"
                                    f"    {body}\n", encoding="utf-8")
    add_to_toc(chapter, entry, root)
    return path, answers, teaching


def refresh_pages(root: Path = ROOT) -> list[Path]:
    """Write the pages made from the notebooks (the lessons' quiz cells, the quiz room, the workshop schedules and
    the exercise index) as `make quiz` and `make workshop` do; return those written."""
    return [*attach(root), write_room_page(root), *write_pages(root)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.workshop.lesson_template", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chapter", default="", help="a chapter of _toc.yml: its stem (graphs) or chapters/graphs")
    parser.add_argument("--name", default="", help="the new lesson's file name, such as my-lesson")
    args = parser.parse_args(argv)
    try:
        path, answers, teaching = new_lesson(args.chapter, args.name)
        refreshed = refresh_pages()
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {relative_path(path)} ({teaching} minutes of teaching by the timing rule, before any run), "
          f"{len(WRONG_ANSWERS)} wrong answers under {relative_path(answers)}/ and its entry in _toc.yml; refreshed "
          f"{', '.join(relative_path(page) for page in refreshed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
