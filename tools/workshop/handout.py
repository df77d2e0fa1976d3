"""The day's handout, written with a room's student copies: index.md and index.html (printable from a browser) beside
them, with the notebooks in teaching order (linked as the files beside it), their start times, minutes and exercises,
the one to open first, what to do before the day (on Colab: the Drive folder, "Save a copy in Drive", the CPU
runtime), the scanner's wheel, and where help is; and the day set in the pre-flight's copy (its `DAY` line)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from tools.course import ROOT, CourseError, book_url, cell_source, read_notebook
from tools.workshop.pages import clock_time, code_label, duration
from tools.workshop.rooms import tables
from tools.workshop.student import page_title, student_path
from tools.workshop.tracks import Slot, Track, slot_exercises, taught_entries

DAY_LINE = re.compile(r'^DAY = "(?:half|full)"', re.MULTILINE)  # the pre-flight's day: a half day starts no torchrun
BLANK = "________________________"  # what the instructor fills in on the printout


def with_day(notebook: dict[str, Any], day: str, path: Path) -> dict[str, Any]:
    """The pre-flight with its `DAY = "..."` line set to the day; a CourseError where no code cell has one line."""
    found = copy.deepcopy(notebook)
    cells = [cell for cell in found["cells"] if cell.get("cell_type") == "code"
             and len(DAY_LINE.findall(cell_source(cell))) == 1]
    if len(cells) != 1:
        raise CourseError(f"{path}: needs one code cell with one line `DAY = \"full\"` (the day it checks for)")
    cells[0]["source"] = DAY_LINE.sub(f'DAY = "{day}"', cell_source(cells[0]))
    return found


def preflight_of_day(day: str, root: Path = ROOT) -> Callable[[Path], dict[str, Any]]:
    """What write_student_notebooks copies: each notebook as it is, the pre-flight with the day set."""
    preflight = root / f"{tables().preflight}.ipynb"

    def notebook_of(path: Path) -> dict[str, Any]:
        notebook = read_notebook(path)
        return with_day(notebook, day, path) if path.resolve() == preflight.resolve() else notebook

    return notebook_of


def exercise_cell(slot: Slot) -> str:
    """The handout's "exercise (minutes) / skip" cell: the exercises the slot keeps with their minutes, then what the
    room skips in the notebook (the lesson's other exercises, as homework, and the sections taught earlier)."""
    if slot.lesson is None or slot.lesson.walk_through:
        return ""
    kept = slot_exercises(slot)
    labels = {label for label, _, _ in kept}
    parts = [", ".join(f"{code_label(label)} ({minutes})" for label, minutes, _ in kept)] if kept else []
    others = [label for label, _, _ in slot.lesson.exercise_list if label not in labels]
    others += [label for label, _ in slot.lesson.optional]
    if others:
        parts.append("skip " + ", ".join(code_label(label) for label in others) + " (homework)")
    if slot.skipped:
        parts.append("skip " + " and ".join(f"“{section}”" for section in slot.skipped) + " (taught earlier)")
    return "; ".join(parts)


def link(path: str) -> str:
    """A student copy's file, linked relative to the handout (it lies beside it)."""
    return f"[`{path}`]({path})"


def handout_markdown(track: Track, root: Path = ROOT) -> str:
    """The handout of a room's day: what to do before, the day's order with times, minutes and each lesson's
    exercises, where help is. The notebooks are linked as the files beside it; the book's pages (which exist once it
    is published) second."""
    book = book_url(root)
    day = "half day" if track.day == "half" else "full day"
    preflight = student_path(tables().preflight)
    rows = ["| time | what | open | minutes | exercise (minutes) / skip |", "| --- | --- | --- | --- | --- |"]
    first = ""
    for slot in track.slots:
        if slot.lesson is None:
            rows.append(f"| {clock_time(slot.start)} | {slot.what} | | {slot.minutes} | |")
            continue
        entries = taught_entries(slot.lesson)
        files = " or ".join(link(student_path(entry)) for entry in entries)
        first = first or files
        title = "Platform breakout: your group's notebook" if slot.lesson.parallel else page_title(
            root / f"{entries[0]}.ipynb")
        if slot.lesson.walk_through:
            title, files = f"{title} (shown on the projector)", "nothing to open"
        rows.append(f"| {clock_time(slot.start)} | {title} | {files} | {slot.minutes} | {exercise_cell(slot)} |")
    colab = track.room.colab
    setup = (f"Colab: the Colab room page of the book, {book}chapters/workshop-colab.html (your instructor sends "
             "it as a file until the book is published)" if colab else
             f"the setup page your instructor sends (in the book, once published: {book}chapters/workshop-setup.html)")
    before = [f"1. Set up one way to run the notebooks: {setup}."]
    if colab:
        before += [
            f"2. The day's Drive folder (shared by your instructor): {BLANK}. For each notebook: open it with "
            "Google Colaboratory, then **File > Save a copy in Drive**, and work in your copy.",
            "3. Keep Colab's CPU runtime in every notebook (Runtime > Change runtime type > CPU).",
        ]
    before.append(f"{len(before) + 1}. Open {link(preflight)}, run every cell, and send a screenshot of its table "
                  f"to your instructor (its `DAY` line says `{track.day}`).")
    for lesson in track.reading:
        title = page_title(root / f"{lesson.entry}.ipynb")
        before.append(f"{len(before) + 1}. Read {link(student_path(lesson.entry))} ({title}): the day does not show "
                      "it, and the scanner lesson builds on it.")
    scanner = ("the wheel `torch_upgrade_scan-*.whl` in this folder: in the scanner lesson, upload it to the "
               "runtime (the folder icon, then Upload) and run `%pip install torch_upgrade_scan-*.whl` in a new "
               "cell above its import cell" if colab else
               "the wheel `torch_upgrade_scan-*.whl` in this folder, installed as the setup page says")
    return "\n".join([
        f"# {track.room.title}: the {day}'s handout",
        "",
        f"From {clock_time(track.slots[0].start)} to {clock_time(track.end)} ({duration(track.length)}). "
        "The notebooks are the student copies beside this page: each exercise's check fails until your answer "
        "is right.",
        "",
        "## Before the day",
        "",
        *before,
        "",
        "## On the day",
        "",
        f"Open first: {first}, after the welcome. In each notebook, run the first code cell (the install, under "
        "the title), then the cells with the room, top to bottom. Do the exercises the table names, in the "
        "minutes it gives; skip the others (homework), wherever they come in the notebook. The upgrade scanner: "
        f"{scanner}.",
        "",
        *rows,
        "",
        "## Where help is",
        "",
        "- A helper: raise your hand, or put a red sticky note on your screen (green when you are done).",
        f"- The shared document: {BLANK} (questions, answers, links).",
        f"- The code of conduct's contact person: {BLANK}.",
        f"- A red row or an error: the troubleshooting page (in the book, once published: "
        f"{book}chapters/troubleshooting.html).",
        f"- The lessons with their solutions: the instructor shows them; the book, once published: {book}",
        "",
    ])


def write_handout(out: Path, track: Track, root: Path = ROOT) -> list[Path]:
    """Write index.md and index.html (the same text, a page to print) under `out`."""
    text = handout_markdown(track, root)
    body = MarkdownIt("commonmark").enable("table").render(text)
    title = text.splitlines()[0].removeprefix("# ")
    html = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title>\n"
            "<style>body{font-family:sans-serif;max-width:48em;margin:2em auto}table{border-collapse:collapse}"
            "td,th{border:1px solid #999;padding:.2em .5em;text-align:left}</style></head>\n"
            f"<body>\n{body}</body></html>\n")
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "index.md", out / "index.html"]
    written[0].write_text(text, encoding="utf-8")
    written[1].write_text(html, encoding="utf-8")
    return written
