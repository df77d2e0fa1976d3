"""How big each lesson is, by the measures a room can keep, and whether it stays within the course's limits.

    python -m tools.checks.lesson_size                 a table of every lesson: words, visible and hidden code lines,
                                                PR references in the body, version branches, minutes
    python -m tools.checks.lesson_size NOTEBOOK ...    only these notebooks

tests/content/ fails a lesson over a limit (the static step of `make test`).

What counts (docs/lesson-size.md): the *teaching cells* of a lesson are its cells except
- the header (the first cell: title, objectives, prerequisites, time, runs on);
- stamped cells (tag `stamp:*`: the setup, helpers, the quiz);
- each exercise: its task (the `{exercise}` directive), its solution (tag `solution`) and its check (the code cell
  after the solution);
- the closing sections: a heading named Summary, Sources, Further reading, Self-check quiz or Clean up, up to the
  next heading of the same or a higher level.

In the teaching cells:
- *words*: the prose of the markdown cells, without fenced code blocks and footnote definitions (`[^name]: ...`);
- *visible code lines*: non-blank, non-comment lines of code cells shown in the book, plus fenced code in markdown;
- *hidden code lines*: the same, of code cells hidden in the book (tools/lesson.py: HIDES_SOURCE);
- *PR references*: `#12345`, `.../pull/N` or `.../issues/N` in the prose (they belong in footnotes or Sources);
- *version branches*: code that decides by the torch release (`torch.__version__`, a version tuple such as
  `(2, 13)`) outside cells tagged `version-difference`;
- `%%writefile -a`: a script assembled across cells.

The timing rule (TIMING): teaching minutes = words / 130 (speaking) + visible code lines / 15 (read aloud, about 4 s
a line) + lines typed live / 3 (cells tagged `typed-live`) + the cold-cache run time + 2 minutes for the header and
the summary + 1.5 minutes of questions per new idea (the bullets of "What you will learn"), rounded up to 5 minutes.
Exercise minutes: at least the floor of each exercise's level (FLOOR_MINUTES). docs/lesson-size.md says how the rule
compares with lessons timed by a careful read-through.

The room terms (ROOM_TIMING), which a workshop's schedule adds to a lesson's teaching and exercise minutes and the
30-minute limit does not count (they measure the room, not the lesson): RUN_ALONG_SECONDS per visible code cell that
learners run along (waiting for the slowest laptop, looking at the output together), a debrief of each exercise by
level (DEBRIEF_MINUTES, the solution gone over with the room), and a minute per self-check question asked in room
mode. Their source: an instructor's plan of the CPU tracks (docs/lesson-size.md, "The timing rule").
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
from pathlib import Path
from typing import Any

from tools.course import ROOT, CourseError, cell_source, cell_tags, notebook_paths, read_notebook
from tools.lesson import HIDES_SOURCE, course, exercise_cells, has_exercise

# ---- limits (docs/lesson-size.md) ------------------------------------------------------------------------------------
MAX_WORDS = 1200
MAX_VISIBLE_CODE = 150
MAX_HIDDEN_CODE = 60
MAX_TEACHING_MINUTES = 30

# ---- the timing rule -------------------------------------------------------------------------------------------------
SPEAKING_WPM = 130  # prose explained aloud
CODE_LINES_PER_MINUTE = 15  # code read aloud and explained, about 4 s a line
TYPED_LINES_PER_MINUTE = 3  # code typed live by the room (cells tagged `typed-live`)
FRAMING_MINUTES = 2  # the header and the summary, presented
QUESTION_MINUTES_PER_IDEA = 1.5  # questions on each new idea, one per bullet of "What you will learn"
ROUND_TO = 5
FLOOR_MINUTES = {"easy": 5, "medium": 10, "hard": 15}  # the least time a room needs per exercise, by level
RUN_ALONG_SECONDS = 50  # per visible code cell a room runs along: fitted to an instructor's plan (docs/lesson-size.md)
DEBRIEF_MINUTES = {"easy": 3, "medium": 4, "hard": 5}  # the solution gone over with the room, per exercise by level
ROOM_QUIZ_MINUTES = 1  # per self-check question asked in room mode: read, vote, the answer
TIMING = (f"teaching minutes = words / {SPEAKING_WPM} + visible code lines / {CODE_LINES_PER_MINUTE} + lines typed "
          f"live / {TYPED_LINES_PER_MINUTE} + cold-cache run minutes + {FRAMING_MINUTES} (header, summary) + "
          f"{QUESTION_MINUTES_PER_IDEA} per objective (questions), rounded up to {ROUND_TO}; exercise minutes at "
          f"least {', '.join(f'{m} ({level})' for level, m in FLOOR_MINUTES.items())} per exercise")
ROOM_TIMING = (f"a room adds {RUN_ALONG_SECONDS} s per visible code cell learners run along, a debrief of "
               f"{', '.join(f'{m} ({level})' for level, m in DEBRIEF_MINUTES.items())} minutes per exercise done, and "
               f"{ROOM_QUIZ_MINUTES} minute per self-check question asked in room mode")

CLOSING = re.compile(r"^(#{1,6})\s+(summary|sources|further reading|self-check quiz|clean up)\b", re.IGNORECASE)
HEADING = re.compile(r"^(#{1,6})\s+\S", re.MULTILINE)
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
FOOTNOTE = re.compile(r"^\[\^[^\]]+\]:.*$", re.MULTILINE)
PR_REFERENCE = re.compile(r"(?<!&)#\d{4,}\b|/pull/\d+|/issues/\d+")
VERSION_BRANCH = re.compile(r"__version__|\(\s*2\s*,\s*1\d\s*\)|TorchVersion|version\.parse")
DECIDES = re.compile(r"^\s*(if|elif|while|assert)\b|\bif\b.*\belse\b|[<>]=?|==|!=")
VERSION_TAG = "version-difference"
TYPED_TAG = "typed-live"


@dataclasses.dataclass
class LessonSize:
    path: Path
    words: int = 0
    visible_code: int = 0
    visible_cells: int = 0  # code cells shown in the book, each of which a room runs along
    hidden_code: int = 0
    typed_code: int = 0
    pr_references: int = 0
    version_branches: int = 0
    appended_scripts: int = 0
    objectives: int = 0
    run_seconds: float = 0.0

    @property
    def presenting_minutes(self) -> float:
        """The rule's terms for what is said and shown: prose spoken, code read, code typed live (not rounded)."""
        return (self.words / SPEAKING_WPM + self.visible_code / CODE_LINES_PER_MINUTE
                + self.typed_code / TYPED_LINES_PER_MINUTE)

    @property
    def teaching_minutes(self) -> int:
        raw = (self.presenting_minutes + self.run_seconds / 60
               + FRAMING_MINUTES + QUESTION_MINUTES_PER_IDEA * self.objectives)
        return max(ROUND_TO, math.ceil(raw / ROUND_TO) * ROUND_TO)

    @property
    def run_along_minutes(self) -> int:
        """The room's run-along term: RUN_ALONG_SECONDS per visible code cell, rounded to the nearest minute."""
        return round(self.visible_cells * RUN_ALONG_SECONDS / 60)

    def problems(self) -> list[str]:
        found = []
        if self.words > MAX_WORDS:
            found.append(f"{self.words} words of prose (limit {MAX_WORDS})")
        if self.visible_code > MAX_VISIBLE_CODE:
            found.append(f"{self.visible_code} visible code lines (limit {MAX_VISIBLE_CODE})")
        if self.hidden_code > MAX_HIDDEN_CODE:
            found.append(f"{self.hidden_code} hidden code lines outside stamped cells (limit {MAX_HIDDEN_CODE})")
        if self.pr_references:
            found.append(f"{self.pr_references} PR or issue number(s) in the body: move them to footnotes or Sources")
        if self.version_branches:
            found.append(f"{self.version_branches} version branch(es) outside cells tagged '{VERSION_TAG}'")
        if self.appended_scripts:
            found.append(f"{self.appended_scripts} '%%writefile -a' cell(s): show each script whole, in one cell")
        if self.teaching_minutes > MAX_TEACHING_MINUTES:
            found.append(f"{self.teaching_minutes} teaching minutes by the timing rule (limit {MAX_TEACHING_MINUTES})")
        return found


def code_lines(source: str) -> int:
    """Non-blank lines that are not comments (a cell magic such as %%writefile counts: the reader sees it)."""
    return sum(1 for line in source.splitlines() if line.strip() and not line.strip().startswith("#"))


def objectives(notebook: dict[str, Any]) -> int:
    """The bullets under "What you will learn" in the header: the new ideas a room asks about."""
    header = cell_source(notebook["cells"][0]) if notebook["cells"] else ""
    _, found, rest = header.partition("What you will learn")
    if not found:
        return 0
    count = 0
    for line in rest.splitlines()[1:]:
        if line.startswith(("- ", "* ")):
            count += 1
        elif line.strip() and not line.startswith(" ") and count:
            break
    return count


def teaching_cells(notebook: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    """The cells a lesson teaches with (module docstring): no header, stamps, exercises or closing sections."""
    cells = notebook["cells"]
    skipped: set[int] = {0}
    for exercise in exercise_cells(notebook, path):  # the harness's own pairing of solution and check
        skipped |= {exercise.solution, exercise.check}
    closing_level: int | None = None
    for index, cell in enumerate(cells):
        source, tags = cell_source(cell), cell_tags(cell)
        if cell["cell_type"] == "markdown":
            for line in source.splitlines():
                heading = HEADING.match(line)
                if heading is None:
                    continue
                level = len(heading.group(1))
                if closing_level is not None and level <= closing_level:
                    closing_level = None
                closed = CLOSING.match(line)
                if closed:
                    closing_level = len(closed.group(1))
        if closing_level is not None:
            skipped.add(index)
        if any(tag.startswith("stamp:") for tag in tags) or has_exercise(source):
            skipped.add(index)
    return [cell for index, cell in enumerate(cells) if index not in skipped]


def section_cells(notebook: dict[str, Any], heading: str, path: Path) -> list[dict[str, Any]]:
    """The cells of the section under the markdown heading whose text is `heading` (without its #s), up to the next
    heading of the same or a higher level; a CourseError where the notebook has no such heading."""
    found: list[dict[str, Any]] = []
    level = 0
    for cell in notebook["cells"]:
        lines = cell_source(cell).splitlines() if cell["cell_type"] == "markdown" else []
        first = HEADING.match(lines[0]) if lines else None
        if first and level and len(first.group(1)) <= level:
            break
        if first and not level and lines[0][len(first.group(1)):].strip() == heading:
            level = len(first.group(1))
        if level:
            found.append(cell)
    if not found:
        raise CourseError(f"{path}: no section headed {heading!r}")
    return found


def section_minutes(path: Path, heading: str) -> int:
    """The rule's minutes of one section, room terms included (words, code read and typed, run-along cells), rounded
    to the minute: what a room saves by skipping it."""
    size = measure(path, run_seconds=0.0, section=heading)
    return round(size.presenting_minutes + size.visible_cells * RUN_ALONG_SECONDS / 60)


def measure(path: Path, run_seconds: float | None = None, section: str | None = None) -> LessonSize:
    """The size of one lesson (or of one section of it: `section` names its heading); the run time comes from
    `course.timing.seconds` unless given."""
    notebook = read_notebook(path)
    if run_seconds is None:
        timing = course(notebook).get("timing", {})
        run_seconds = float(timing.get("seconds", 0.0)) if isinstance(timing, dict) else 0.0
    size = LessonSize(path=path, run_seconds=run_seconds, objectives=objectives(notebook))
    sources = [cell_source(cell) for cell in notebook["cells"]]
    size.appended_scripts = sum("%%writefile -a" in text or "%%writefile --append" in text for text in sources)
    cells = teaching_cells(notebook, path)
    if section is not None:
        within = {id(cell) for cell in section_cells(notebook, section, path)}
        cells = [cell for cell in cells if id(cell) in within]
    for cell in cells:
        source, tags = cell_source(cell), set(cell_tags(cell))
        if cell["cell_type"] == "markdown":
            prose = FOOTNOTE.sub("", FENCE.sub("", source))
            size.words += len(prose.split())
            size.visible_code += sum(code_lines(m.group(0)) - 2 for m in FENCE.finditer(source))
            size.pr_references += len(PR_REFERENCE.findall(prose))
        elif cell["cell_type"] == "code":
            lines = code_lines(source)
            if tags & HIDES_SOURCE:
                size.hidden_code += lines
            else:
                size.visible_code += lines
                size.visible_cells += 1 if lines else 0
            if TYPED_TAG in tags:
                size.typed_code += lines
            if VERSION_TAG not in tags:
                code = [line.split("#")[0] for line in source.splitlines()]
                size.version_branches += sum(1 for line in code if VERSION_BRANCH.search(line) and DECIDES.search(line))
    return size


def exercise_floor_problems(path: Path) -> list[str]:
    """Exercises whose minutes (course.exercises) are below the floor of their level."""
    found = []
    for exercise in course(read_notebook(path)).get("exercises", []):
        floor = FLOOR_MINUTES.get(str(exercise.get("level")))
        if floor is not None and exercise.get("minutes", 0) < floor:
            found.append(f"exercise {exercise.get('label')}: {exercise.get('minutes')} minutes, below the "
                         f"{floor}-minute floor of a {exercise.get('level')} exercise")
    return found


def table(sizes: list[LessonSize], root: Path = ROOT) -> list[str]:
    rows = [f"{'words':>6} {'code':>5} {'hidden':>6} {'PRs':>4} {'vers':>4} {'-a':>3} {'min':>4}  lesson"]
    for s in sizes:
        mark = "  OVER" if s.problems() else ""
        rows.append(f"{s.words:>6} {s.visible_code:>5} {s.hidden_code:>6} {s.pr_references:>4} "
                    f"{s.version_branches:>4} {s.appended_scripts:>3} {s.teaching_minutes:>4}  "
                    f"{s.path.relative_to(root).as_posix()}{mark}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks (default: every lesson)")
    args = parser.parse_args(argv)
    try:
        paths = [p.resolve() for p in args.notebooks] or notebook_paths()
        sizes = [measure(path) for path in paths]
    except CourseError as error:
        print(f"lesson_size: {error}", file=sys.stderr)
        return 2
    for row in table(sizes):
        print(row)
    over = [(s, s.problems() + exercise_floor_problems(s.path)) for s in sizes]
    over = [(s, found) for s, found in over if found]
    for size, found in over:
        print(f"{size.path.relative_to(ROOT).as_posix()}: " + "; ".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
