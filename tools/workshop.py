"""The workshop kit: schedules and an exercise index from the notebooks' metadata, and student notebooks.

    python -m tools.workshop schedule            print the half-day and full-day schedules
    python -m tools.workshop pages               write the generated parts of chapters/workshop.md and
                                                 chapters/exercises.md
    python -m tools.workshop pages --check       exit 1 when those pages are stale (run `make workshop` to fix)
    python -m tools.workshop student [OUT]       write student notebooks (solutions replaced by a stub) to OUT
                                                 (default: _build/student/)

Everything is computed from each notebook's `course.minutes` metadata and its exercise cells, in _toc.yml order,
so the schedules and the index follow the book as it changes.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import sys
from pathlib import Path
from typing import Any

from tools.course import (
    EXERCISE,
    EXERCISE_LABEL,
    ROOT,
    CourseError,
    cell_source,
    cell_tags,
    notebook_paths,
    read_notebook,
    toc_files,
    write_notebook,
)

HALF_DAY = 210  # minutes: about 3.5 hours, breaks included
FULL_DAY = 390  # minutes: about 6.5 hours, breaks and lunch included
LONGEST_BLOCK = 90  # minutes of lessons before a break
BREAK, LUNCH = 15, 45
LUNCH_AFTER = 150  # minutes into a full day before lunch may start
WRAP_UP = 10
START = 9 * 60  # 09:00
PREFLIGHT = "notebooks/workshop/preflight"
BEGIN = "<!-- BEGIN GENERATED: {name} (python -m tools.workshop pages; do not edit by hand) -->"
END = "<!-- END GENERATED: {name} -->"
STUB = "# @title Solution (your turn: write it here, then run the check below)\n# Your code here\n"


@dataclasses.dataclass(frozen=True)
class Lesson:
    entry: str  # the _toc.yml entry, e.g. notebooks/batched-eigh/batched-eigh
    title: str
    teaching: int
    exercises: int

    @property
    def minutes(self) -> int:
        return self.teaching + self.exercises


@dataclasses.dataclass(frozen=True)
class Exercise:
    label: str
    title: str
    entry: str
    minutes: int


@dataclasses.dataclass(frozen=True)
class Slot:
    start: int  # minutes after midnight
    minutes: int
    what: str
    lesson: Lesson | None = None


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


def read_lesson(root: Path, entry: str) -> tuple[Lesson, dict[str, Any]]:
    path = root / f"{entry}.ipynb"
    notebook = read_notebook(path)
    minutes = notebook.get("metadata", {}).get("course", {}).get("minutes")
    if not (isinstance(minutes, dict) and all(isinstance(minutes.get(k), int) for k in ("teaching", "exercises"))):
        raise CourseError(f"{path}: metadata course.minutes must give whole 'teaching' and 'exercises' minutes")
    return Lesson(entry, notebook_title(notebook, path), minutes["teaching"], minutes["exercises"]), notebook


def lessons(root: Path = ROOT) -> list[Lesson]:
    return [read_lesson(root, entry)[0] for entry in lesson_entries(root)]


def exercises(root: Path = ROOT) -> list[Exercise]:
    """Every exercise in book order; a notebook's exercise minutes are shared among its exercises."""
    found = []
    for entry in lesson_entries(root):
        lesson, notebook = read_lesson(root, entry)
        blocks = [m for c in notebook["cells"] if c.get("cell_type") == "markdown"
                  for m in EXERCISE.finditer(cell_source(c))]
        for index, block in enumerate(blocks):
            label = EXERCISE_LABEL.search(block.group("body"))
            if not label:
                raise CourseError(f"{root / entry}.ipynb: the exercise {block.group('title')!r} has no :label:")
            share = lesson.exercises // len(blocks) + (1 if index < lesson.exercises % len(blocks) else 0)
            found.append(Exercise(label.group(1), block.group("title").strip(), entry, share))
    return found


def schedule(all_lessons: list[Lesson], length: int) -> tuple[list[Slot], list[Lesson]]:
    """Fill a day of `length` minutes (breaks included) with lessons in book order.

    The pre-flight notebook opens the day; after at most LONGEST_BLOCK minutes of lessons comes a break (in a day long
    enough, the first break after LUNCH_AFTER minutes is lunch); a lesson that no longer fits is left out and the
    next, shorter ones are tried; a wrap-up closes the day. Returns the slots and the lessons left out."""
    slots: list[Slot] = []
    clock, since_break, had_lunch = START, 0, False
    preflight = [lesson for lesson in all_lessons if lesson.entry == PREFLIGHT]
    others = [lesson for lesson in all_lessons if lesson.entry != PREFLIGHT]
    left_out = []
    for lesson in preflight + others:
        pause, pause_name = 0, ""
        if since_break and since_break + lesson.minutes > LONGEST_BLOCK:
            lunch = length >= FULL_DAY and not had_lunch and clock - START >= LUNCH_AFTER
            pause, pause_name = (LUNCH, "Lunch") if lunch else (BREAK, "Break")
        if clock - START + pause + lesson.minutes + WRAP_UP > length:
            left_out.append(lesson)
            continue
        if pause:
            slots.append(Slot(clock, pause, pause_name))
            clock, since_break, had_lunch = clock + pause, 0, had_lunch or pause_name == "Lunch"
        slots.append(Slot(clock, lesson.minutes, lesson.title, lesson))
        clock, since_break = clock + lesson.minutes, since_break + lesson.minutes
    slots.append(Slot(clock, WRAP_UP, "Wrap-up: questions, what to try next, feedback"))
    return slots, left_out


def clock_time(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def doc_link(entry: str) -> str:
    return f"{{doc}}`../{entry}`"


def schedule_table(slots: list[Slot], left_out: list[Lesson]) -> str:
    rows = ["| time | session | minutes (teaching + exercises) |", "| --- | --- | --- |"]
    for slot in slots:
        if slot.lesson:
            lesson = slot.lesson
            rows.append(f"| {clock_time(slot.start)} | {doc_link(lesson.entry)} | "
                        f"{lesson.minutes} ({lesson.teaching} + {lesson.exercises}) |")
        else:
            rows.append(f"| {clock_time(slot.start)} | *{slot.what}* | {slot.minutes} |")
    end = slots[-1].start + slots[-1].minutes
    taught = sum(s.minutes for s in slots if s.lesson)
    text = "\n".join(rows)
    text += (f"\n\nFrom {clock_time(START)} to {clock_time(end)}: {(end - START) / 60:.1f} hours, "
             f"{taught} minutes of lessons.")
    if left_out:
        text += " Not in this schedule (teach them in another session): " + ", ".join(
            f"{doc_link(lesson.entry)} ({lesson.minutes} min)" for lesson in left_out) + "."
    return text


def schedules_section(root: Path = ROOT) -> str:
    found = lessons(root)
    parts = []
    for title, length in (("Half day", HALF_DAY), ("Full day", FULL_DAY)):
        parts.append(f"### {title} (about {length / 60:.1f} hours)\n\n{schedule_table(*schedule(found, length))}")
    return "\n\n".join(parts)


def exercises_page(root: Path = ROOT) -> str:
    found = exercises(root)
    rows = [f"| `{e.label}` | {e.title.replace('|', '&#124;')} | {doc_link(e.entry)} | {e.minutes} |" for e in found]
    total = sum(e.minutes for e in found)
    return "\n".join([
        "# Exercises",
        "",
        "<!-- Generated by `python -m tools.workshop pages` from the notebooks; do not edit by hand. -->",
        "",
        "Every notebook ends its lesson with an exercise. The solution sits in a hidden cell under the task, and",
        "the cell after it checks any answer, so each solution is proven whenever the book is built. For a",
        "workshop, hand out the student notebooks, whose solution cells are empty (see {doc}`workshop`).",
        "",
        f"{len(found)} exercises, {total} minutes in all, in the order of the book.",
        "",
        "| label | exercise | notebook | minutes |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
    ])


def replace_section(text: str, name: str, body: str, path: Path) -> str:
    begin, end = BEGIN.format(name=name), END.format(name=name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise CourseError(f"{path}: needs one '{begin}' line and, after it, one '{end}' line")
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def expected_pages(root: Path = ROOT) -> dict[Path, str]:
    """Each generated page's path and the text it should hold."""
    guide = root / "chapters" / "workshop.md"
    if not guide.is_file():
        raise CourseError(f"{guide}: missing (it holds the instructor guide and the generated schedules)")
    text = replace_section(guide.read_text(encoding="utf-8"), "schedules", schedules_section(root), guide)
    return {guide: text, root / "chapters" / "exercises.md": exercises_page(root)}


def stale_pages(root: Path = ROOT) -> list[Path]:
    return [path for path, text in expected_pages(root).items()
            if not path.is_file() or path.read_text(encoding="utf-8") != text]


def write_pages(root: Path = ROOT) -> list[Path]:
    """Write the generated pages; return those that changed."""
    changed = stale_pages(root)
    for path, text in expected_pages(root).items():
        if path in changed:
            path.write_text(text, encoding="utf-8")
    return changed


def student_version(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook with each solution cell's code replaced by a stub; tags, metadata and check cells stay."""
    student = copy.deepcopy(notebook)
    for cell in student["cells"]:
        if cell.get("cell_type") == "code" and "solution" in cell_tags(cell):
            cell["source"] = STUB
            cell["outputs"], cell["execution_count"] = [], None
    return student


def write_student_notebooks(out: Path, root: Path = ROOT) -> list[Path]:
    """Write a student version of every notebook under `out`, keeping the folders of notebooks/."""
    written = []
    for path in notebook_paths(root):
        target = out / path.relative_to(root / "notebooks")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(target, student_version(read_notebook(path)))
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.workshop", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("schedule", help="print the half-day and full-day schedules")
    pages = commands.add_parser("pages", help="write chapters/workshop.md's schedules and chapters/exercises.md")
    pages.add_argument("--check", action="store_true", help="exit 1 when the pages are stale, change nothing")
    student = commands.add_parser("student", help="write student notebooks")
    student.add_argument("out", nargs="?", type=Path, default=ROOT / "_build" / "student",
                         help="folder for the student notebooks (default: _build/student/)")
    args = parser.parse_args(argv)
    try:
        if args.command == "schedule":
            print(schedules_section())
        elif args.command == "pages" and args.check:
            stale = stale_pages()
            for path in stale:
                print(f"{path.relative_to(ROOT)} is stale: run `python -m tools.workshop pages`")
            return 1 if stale else 0
        elif args.command == "pages":
            for path in write_pages():
                print(f"wrote {path.relative_to(ROOT)}")
        else:
            if args.out.exists() and not args.out.is_dir():
                raise CourseError(f"{args.out}: exists and is not a folder")
            written = write_student_notebooks(args.out)
            print(f"wrote {len(written)} student notebook(s) under {args.out}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
