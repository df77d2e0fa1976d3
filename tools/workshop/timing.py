"""Lesson timings from measurement: the median seconds of the run records, the timing rule of
tools/checks/lesson_size.py applied to each lesson, and the result written into its metadata and header."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import statistics
from pathlib import Path

from tools.checks import lesson_size
from tools.course import ROOT, CourseError, cell_source, read_notebook, write_notebook
from tools.records import runs
from tools.workshop.lessons import exercise_metadata, lesson_entries, read_lesson

TIMING_RULE = lesson_size.TIMING
TIME_LINE = re.compile(r"\*\*Time\*\*: \d+ minutes of teaching")


def measured_seconds(paths: list[Path], root: Path = ROOT) -> dict[str, float]:
    """Execution seconds per notebook (path relative to the repository), the median of the passing records found
    in the given JSON files and folders (searched recursively)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(path.rglob("*.json"))
        elif path.is_file():
            files.append(path)
        else:
            raise CourseError(f"{path}: no such file or folder of run records")
    seen: dict[str, list[float]] = {}
    for file in files:
        try:
            record = json.loads(file.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CourseError(f"{file}: not a JSON run record ({error})") from error
        if not isinstance(record, dict) or "notebook" not in record or "seconds" not in record:
            continue  # another kind of JSON file (a benchmark result, for example)
        record = runs.checked(file, record)
        if record["outcome"] != "pass":
            continue
        name = Path(record["notebook"]).as_posix()
        seen.setdefault(name, []).append(float(record["seconds"]))
    return {name: statistics.median(values) for name, values in seen.items()}


@dataclasses.dataclass(frozen=True)
class Timing:
    entry: str
    words: int
    code_lines: int
    seconds: float | None
    teaching: int | None  # None where no record was found
    exercises: int
    before: tuple[int, int]  # (teaching, exercises) in the metadata now


def timings(records: list[Path], root: Path = ROOT) -> list[Timing]:
    seconds = measured_seconds(records, root)
    found = []
    for entry in lesson_entries(root):
        lesson, notebook = read_lesson(root, entry)
        listed = exercise_metadata(notebook, root / f"{entry}.ipynb")
        measured = seconds.get(f"{entry}.ipynb")
        size = lesson_size.measure(root / f"{entry}.ipynb", run_seconds=measured or 0.0)
        teaching = size.teaching_minutes if measured is not None else None
        exercise_minutes = sum(e["minutes"] for e in listed) if listed else lesson.exercises
        found.append(Timing(entry, size.words, size.visible_code, measured, teaching, exercise_minutes,
                            (lesson.teaching, lesson.exercises)))
    return found


def write_timing(root: Path, timing: Timing) -> bool:
    """Record a timing in the notebook's metadata (course.minutes, course.timing) and its header's Time line."""
    if timing.teaching is None:
        return False
    path = root / f"{timing.entry}.ipynb"
    notebook = read_notebook(path)
    course = notebook["metadata"]["course"]
    before = copy.deepcopy(notebook)
    course["minutes"] = {"exercises": timing.exercises, "teaching": timing.teaching}
    course["timing"] = {"words": timing.words, "code_lines": timing.code_lines,
                        "seconds": round(timing.seconds or 0.0, 1), "rule": TIMING_RULE}
    header = notebook["cells"][0]
    text = cell_source(header)
    if TIME_LINE.search(text):
        header["source"] = TIME_LINE.sub(f"**Time**: {timing.teaching} minutes of teaching", text, count=1)
    if notebook == before:
        return False
    write_notebook(path, notebook)
    return True


def print_timings(found: list[Timing]) -> None:
    print(f"Rule: {TIMING_RULE}.")
    print(f"{'lesson':62} {'words':>6} {'code':>5} {'seconds':>8} {'teaching':>8} {'exercises':>9}  (now)")
    for t in found:
        seconds = f"{t.seconds:.1f}" if t.seconds is not None else "no run"
        teaching = str(t.teaching) if t.teaching is not None else "-"
        print(f"{t.entry:62} {t.words:>6} {t.code_lines:>5} {seconds:>8} {teaching:>8} {t.exercises:>9}  {t.before}")

