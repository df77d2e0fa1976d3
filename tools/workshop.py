"""The workshop kit: tracks by room and day, lesson timings, the exercise index, Colab runtimes, student notebooks.

    python -m tools.workshop schedule              print every track (room x half/full day)
    python -m tools.workshop pages                 write the generated parts of chapters/workshop.md and
                                                   chapters/exercises.md
    python -m tools.workshop pages --check         exit 1 when those pages are stale (run `make workshop`)
    python -m tools.workshop timings RECORDS       print each lesson's teaching minutes by the timing rule, from
                                                   run records (a JSON file or a folder of them)
    python -m tools.workshop timings RECORDS --write [NOTEBOOK ...]
                                                   also write them into the notebooks' metadata and headers
    python -m tools.workshop colab [--check]       give notebooks that need an NVIDIA GPU Colab's GPU runtime
                                                   metadata (and the others none); --check only reports
    python -m tools.workshop student [OUT]         write student notebooks (solutions replaced by a stub) to OUT
                                                   (default: _build/student/)
    python -m tools.workshop student [OUT] --check also run each one there: only the checks of its stubs may fail

Everything is computed from each notebook's `course` metadata (minutes, exercises, platforms) and the tables of
rooms and objectives below, so the tracks and the index follow the book as it changes.

The timing rule is tools/checks/lesson_size.py's (TIMING there): prose at a speaking rate, code read aloud and code
typed
live counted apart, plus the cold-cache run time from the run records; `timings` applies it and `--write` records it.
Exercise minutes are the sum of `course.exercises[*].minutes`.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import posixpath
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.checks import lesson_size
from tools.course import (
    ROOT,
    CourseError,
    cell_source,
    cell_tags,
    notebook_paths,
    read_notebook,
    repository_url,
    toc_files,
    write_notebook,
)
from tools.lesson import STUB, checked_course, exercise_cells, has_solutions, labelled_exercise_blocks
from tools.lesson import course as course_metadata

HALF_DAY = 240  # minutes at most: a half day is up to 4 hours, breaks included
FULL_DAY = 420  # minutes at most: a full day is up to 7 hours, lunch and breaks included
LONGEST_BLOCK = 90  # minutes of lessons before a break
BREAK, LUNCH = 15, 45
LUNCH_AFTER = 150  # minutes into a full day before lunch may start
WELCOME = 10  # the opening: welcome, and the pre-flight tables participants ran at home
WRAP_UP = 10
QUIZ_MINUTES = 1  # per self-check question a lesson asks (tools/author/quiz.py): read, answer, discuss
COLAB_SETUP = 2  # per lesson in a room that uses Colab: the notebook's install cell and a runtime restart
COVER_MINUTES = 5  # a prerequisite lesson the track does not teach, summarised at the start of the lesson
START = 9 * 60  # 09:00
PREFLIGHT = "notebooks/workshop/preflight"
BEGIN = "<!-- BEGIN GENERATED: {name} (python -m tools.workshop pages; do not edit by hand) -->"
END = "<!-- END GENERATED: {name} -->"

# ---- the timing rule (tools/checks/lesson_size.py) -------------------------------------------------------------------
TIMING_RULE = lesson_size.TIMING
TIME_LINE = re.compile(r"\*\*Time\*\*: \d+ minutes of teaching")

# ---- rooms, objectives and tracks -----------------------------------------------------------------------------------
KYA = "notebooks/getting-started/know-your-accelerator"
EIGH = "notebooks/batched-eigh/batched-eigh"
COND = "notebooks/graphs/cond-in-graphs"
KNOBS = "notebooks/optimizers-and-compiler/compile-warnings-and-knobs"
TORCHRUN = "notebooks/distributed/torchrun-and-collectives"
ACCELERATOR_GRAPH = "notebooks/graphs/accelerator-graph"
FMA = "notebooks/optimizers-and-compiler/fma-addcdiv"
CUDA = "notebooks/platforms/cuda"
MPS = "notebooks/platforms/mps"
ROCM = "notebooks/platforms/rocm"
XPU = "notebooks/platforms/xpu"
TORCHSCRIPT = "notebooks/migration/torchscript-to-export"
UPGRADE = "notebooks/migration/upgrading-to-2-12"
SCANNER = "notebooks/migration/upgrade-scanner"


@dataclasses.dataclass(frozen=True)
class Room:
    key: str
    title: str
    audience: str
    platforms: frozenset[str]  # what every laptop in the room runs for real
    platform_lessons: tuple[str, ...]  # the lesson(s) on this room's hardware
    extras: tuple[str, ...]  # full day only, in order of preference, added while they fit
    colab: bool = False  # some participants work on Colab: every lesson starts with an install and a restart
    breakout: bool = False  # the platform lessons run side by side, one per group of laptops, in one slot


ROOMS = (
    Room("nvidia", "NVIDIA laptops or workstations",
         "practitioners who train or serve on NVIDIA GPUs (a CUDA 12.6+ driver; CUDA 13.1+ for graph annotations)",
         frozenset({"cuda", "cpu"}), (CUDA,),
         (TORCHSCRIPT, "notebooks/graphs/graph-annotations", FMA, "notebooks/optimizers-and-compiler/fused-adagrad")),
    Room("apple", "Apple silicon laptops",
         "developers on Macs with M-series chips (MPS), who also run the CPU paths",
         frozenset({"mps", "cpu"}), (MPS,),
         (TORCHSCRIPT, "notebooks/mx-quantization/mx-export")),
    Room("cpu", "CPU-only laptops or Colab",
         "learners without a GPU, on their laptop, Binder or a Colab CPU runtime",
         frozenset({"cpu"}), (KYA,),
         (TORCHSCRIPT, FMA, "notebooks/optimizers-and-compiler/fused-adagrad",
          "notebooks/mx-quantization/mx-from-first-principles"), colab=True),
    Room("mixed", "A mixed room",
         "a conference tutorial: some NVIDIA, some Mac, some CPU-only or on Colab; each group runs its own platform "
         "lesson side by side, then everyone runs the CPU paths together",
         frozenset({"cpu"}), (CUDA, MPS, ROCM, XPU, KYA),
         (TORCHSCRIPT, FMA), colab=True, breakout=True),
)


@dataclasses.dataclass(frozen=True)
class Objective:
    key: str
    text: str  # "By the end of the workshop, participants can ..."
    lessons: tuple[str, ...]  # what teaches it; "platform" lessons come from the room
    full_day_only: tuple[str, ...] = ()  # lessons a full day adds to it
    half_day_exercise: bool = False  # a half day keeps this objective's shortest exercise, whatever the clock says
    half_day: bool = True  # False: only a full day has room for it


OBJECTIVES = (
    Objective("platform", "say what PyTorch 2.12 changed on the accelerator they use (CUDA, ROCm, Apple MPS, "
              "Intel XPU, or none) and which wheel and driver their machine needs", ()),
    Objective("flagship", "decompose thousands of small matrices in one batched call and prove the answer right "
              "(the flagship change: batched `eigh`)", (EIGH,), half_day_exercise=True),
    Objective("graphs", "branch on data inside a captured graph with `torch.cond`, and say what a graph capture needs "
              "on their device", (COND,), half_day=False),
    Objective("compiler", "read the compiler's new warnings and set its knobs, and check a compiled result against "
              "eager", (KNOBS,)),
    Objective("distributed", "start a two-process job with `torchrun` on the CPU and check its collectives",
              (TORCHRUN,), half_day=False),
    Objective("migration", "upgrade a project to 2.12: fix what breaks, and run the upgrade scanner on their own "
              "code", (UPGRADE, SCANNER), half_day_exercise=True),
)

# Lessons with a part that needs one platform: (that platform, the note a room without it gets in its schedule).
PART_NEEDS = {
    COND: ("cuda", "the capture into a CUDA graph needs CUDA, so those cells say that they skip; `torch.cond` itself "
                   "runs eagerly and compiled on every device"),
}

# How to cover, in COVER_MINUTES at the start of a lesson, a prerequisite lesson that a track does not teach. A
# prerequisite is a {doc} link on the lesson's "**Prerequisites**:" line; one that is neither taught earlier in the
# track nor covered here is a problem of the track.
COVERS = {
    ACCELERATOR_GRAPH: "capture records a sequence of kernel launches once and replay runs it again without Python "
                       "or per-launch overhead, on static input tensors; `torch.accelerator.Graph` is 2.12's "
                       "device-agnostic front end (XPU implements it in 2.12.0; CUDA keeps `torch.cuda.CUDAGraph`)",
    TORCHSCRIPT: "TorchScript is deprecated in 2.12 (a `DeprecationWarning` that Python's default filters hide), and "
                 "`torch.export.export` with `torch.export.save` and `torch.export.load` replaces it for a program "
                 "you save and deploy",
}
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
    questions: int = 0  # self-check questions it asks (tools/author/quiz.py)
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


@dataclasses.dataclass(frozen=True)
class Slot:
    start: int  # minutes after midnight
    minutes: int
    what: str
    lesson: Lesson | None = None
    exercises: int = 0  # exercise minutes taken in this slot (a half day keeps fewer)
    objective: str = ""
    kept: tuple[str, ...] = ()  # labels of the exercises kept, where the slot keeps fewer than the lesson has
    quiz: int = 0  # minutes of the lesson's self-check questions
    setup: int = 0  # minutes of Colab's install cell and restart
    covers: tuple[str, ...] = ()  # prerequisite lessons summarised at the start (COVERS)


@dataclasses.dataclass(frozen=True)
class Track:
    room: Room
    day: str  # "half" or "full"
    slots: tuple[Slot, ...]
    left_out: tuple[Lesson, ...]  # extras that did not fit

    @property
    def end(self) -> int:
        return self.slots[-1].start + self.slots[-1].minutes

    @property
    def length(self) -> int:
        return self.end - START

    @property
    def limit(self) -> int:
        return HALF_DAY if self.day == "half" else FULL_DAY


# ---- reading the notebooks ------------------------------------------------------------------------------------------

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
    """Self-check questions per lesson entry (tools/author/quiz.py); none where the book has no quizzes."""
    from tools.author import quiz

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


# ---- tracks ---------------------------------------------------------------------------------------------------------

def track_lessons(room: Room, day: str) -> list[tuple[str, str]]:
    """(objective key, lesson entry) in teaching order: the lessons every track of this room and day must hold."""
    found = []
    for objective in OBJECTIVES:
        if day == "half" and not objective.half_day:
            continue
        entries = room.platform_lessons if objective.key == "platform" else objective.lessons
        if day == "full":
            entries = objective.full_day_only + entries
        found += [(objective.key, entry) for entry in entries]
    return found


def breakout(parts: tuple[Lesson, ...]) -> Lesson:
    """One slot in which each group of laptops takes its own platform lesson: as long as the longest of them."""
    shortest, every = max(p.short_exercise for p in parts), max(p.exercises for p in parts)
    listed = (("each group's shortest", shortest), ("each group's others", every - shortest))
    return Lesson("+".join(part.entry for part in parts), "Platform breakout", max(p.teaching for p in parts),
                  every, tuple(sorted({x for p in parts for x in p.platforms})), shortest,
                  listed if every > shortest else listed[:1],
                  tuple(sorted({x for p in parts for x in p.prerequisites})), max(p.questions for p in parts), parts)


def sessions_of(room: Room, day: str, found: dict[str, Lesson]) -> list[tuple[str, Lesson]]:
    """(objective, lesson) in teaching order, a breakout room's platform lessons joined into one."""
    ordered = [(objective, found[entry]) for objective, entry in track_lessons(room, day)]
    if not room.breakout:
        return ordered
    parts = tuple(lesson for objective, lesson in ordered if objective == "platform")
    rest = [(objective, lesson) for objective, lesson in ordered if objective != "platform"]
    return [("platform", breakout(parts)), *rest] if parts else rest


def taught_entries(lesson: Lesson) -> tuple[str, ...]:
    return tuple(part.entry for part in lesson.parallel) or (lesson.entry,)


def plan(sessions: list[tuple[str, Lesson, int]], length: int, room: Room | None = None) -> tuple[Slot, ...]:
    """Slots for (objective, lesson, number of exercises kept, shortest first) in order: welcome, a break at least
    every LONGEST_BLOCK minutes (in a full day the first break after LUNCH_AFTER minutes is lunch), a wrap-up. Each
    lesson's slot also holds its quiz, Colab's setup in a Colab room, and a cover of each prerequisite not taught
    before it."""
    slots = [Slot(START, WELCOME, "Welcome; the pre-flight tables participants ran at home")]
    clock, since_break, had_lunch = START + WELCOME, WELCOME, False
    taught: set[str] = set()
    for objective, lesson, count in sessions:
        kept = lesson.kept(count)
        exercise_minutes = sum(minutes for _, minutes in kept)
        labels = tuple(label for label, _ in kept) if count < lesson.exercise_count else ()
        covers = tuple(entry for entry in lesson.prerequisites if entry not in taught and entry in COVERS)
        quiz = lesson.questions * QUIZ_MINUTES
        setup = COLAB_SETUP if room is not None and room.colab else 0
        minutes = lesson.teaching + exercise_minutes + quiz + setup + COVER_MINUTES * len(covers)
        if since_break and since_break + minutes > LONGEST_BLOCK:
            lunch = length >= FULL_DAY and not had_lunch and clock - START >= LUNCH_AFTER
            pause, name = (LUNCH, "Lunch") if lunch else (BREAK, "Break")
            slots.append(Slot(clock, pause, name))
            clock, since_break, had_lunch = clock + pause, 0, had_lunch or lunch
        slots.append(Slot(clock, minutes, lesson.title, lesson, exercise_minutes, objective, labels, quiz, setup,
                          covers))
        clock, since_break = clock + minutes, since_break + minutes
        taught.update(taught_entries(lesson))
    if length >= FULL_DAY and not had_lunch:
        raise CourseError("a full day's lessons end before lunch could start: add lessons or shorten the day")
    slots.append(Slot(clock, WRAP_UP, "Wrap-up: questions, what to try next, the feedback form"))
    return tuple(slots)


def build_track(room: Room, day: str, found: dict[str, Lesson]) -> Track:
    """The track of one room and day: every objective's lessons, then the room's extras that still fit (full day).
    A full day takes every exercise of a lesson; a half day its shortest one while the day allows (always for the
    objectives marked half_day_exercise)."""
    missing = [entry for _, entry in track_lessons(room, day) if entry not in found]
    missing += [entry for entry in room.extras if day == "full" and entry not in found]
    if missing:
        raise CourseError(f"the {room.key} track needs {', '.join(missing)}, which the book does not have")
    ordered = sessions_of(room, day, found)
    limit = HALF_DAY if day == "half" else FULL_DAY
    kept = {o.key for o in OBJECTIVES if o.half_day_exercise}

    def fits(slots: tuple[Slot, ...]) -> bool:
        return slots[-1].start + slots[-1].minutes - START <= limit

    if day == "half":  # from no exercise up: each lesson's shortest while the day allows, the kept ones always
        sessions = [(o, lesson, 0) for o, lesson in ordered]
        slots = plan(sessions, limit, room)
        for index in sorted(range(len(sessions)), key=lambda i: sessions[i][0] not in kept):
            objective, lesson, _ = sessions[index]
            trial = [*sessions]
            trial[index] = (objective, lesson, 1)
            trial_slots = plan(trial, limit, room)
            if fits(trial_slots) or objective in kept:
                sessions, slots = trial, trial_slots
    else:  # from every exercise down: the last lesson that has two or more drops its longest, until the day fits
        sessions = [(o, lesson, lesson.exercise_count) for o, lesson in ordered]
        slots = plan(sessions, limit, room)
        while not fits(slots):
            longer = [i for i, (_, _, count) in enumerate(sessions) if count > 1]
            if not longer:
                break
            objective, lesson, count = sessions[longer[-1]]
            sessions[longer[-1]] = (objective, lesson, count - 1)
            slots = plan(sessions, limit, room)
    left_out = []
    for entry in room.extras if day == "full" else ():
        extra = found[entry]
        trial = [*sessions, ("extra", extra, extra.exercise_count)]
        trial_slots = plan(trial, limit, room)
        if trial_slots[-1].start + trial_slots[-1].minutes - START <= limit:
            sessions, slots = trial, trial_slots
        else:
            left_out.append(extra)
    return Track(room, day, slots, tuple(left_out))


def tracks(root: Path = ROOT) -> list[Track]:
    found = {lesson.entry: lesson for lesson in lessons(root)}
    return [build_track(room, day, found) for room in ROOMS for day in ("half", "full")]


def track_problems(track: Track) -> list[str]:
    """What is wrong with a track: an objective not taught, a lesson the room cannot run, a prerequisite neither
    taught before nor covered, a quiz that is not counted, a day too long."""
    name = f"{track.room.key} {track.day} day"
    problems = []
    taught = {entry for slot in track.slots if slot.lesson for entry in taught_entries(slot.lesson)}
    for objective, entry in track_lessons(track.room, track.day):
        if entry not in taught:
            problems.append(f"{name}: the objective {objective!r} needs {entry}, which is not scheduled")
    before: set[str] = set()
    for slot in track.slots:
        if not slot.lesson:
            continue
        if not slot.lesson.parallel and not (set(slot.lesson.platforms) & track.room.platforms):
            problems.append(f"{name}: {slot.lesson.entry} targets {list(slot.lesson.platforms)}, none of which "
                            f"this room runs ({sorted(track.room.platforms)})")
        for entry in slot.lesson.prerequisites:
            if entry not in before and entry not in slot.covers:
                problems.append(f"{name}: {slot.lesson.entry} needs {entry}, which is neither taught before it nor "
                                "covered (COVERS)")
        if slot.quiz != slot.lesson.questions * QUIZ_MINUTES:
            problems.append(f"{name}: the quiz of {slot.lesson.entry} is not counted in its slot")
        before.update(taught_entries(slot.lesson))
    if track.length > track.limit:
        problems.append(f"{name}: {track.length} minutes, more than the {track.limit} of a {track.day} day")
    return problems


def clock_time(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def duration(minutes: int) -> str:
    """'3 h 45 min' (never rounded, so the heading agrees with the clock times)."""
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest:02d} min" if rest else f"{hours} h"


def doc_link(entry: str) -> str:
    return f"{{doc}}`../{entry}`"


def slot_minutes(slot: Slot) -> str:
    """'45 (25 + 15 + quiz 3 + setup 2)': teaching, exercises, then whatever else the slot holds."""
    assert slot.lesson is not None
    parts = [str(slot.lesson.teaching), str(slot.exercises)]
    parts += [f"{what} {minutes}" for what, minutes in (("quiz", slot.quiz), ("setup", slot.setup),
                                                         ("cover", COVER_MINUTES * len(slot.covers))) if minutes]
    return f"{slot.minutes} ({' + '.join(parts)})"


def track_table(track: Track) -> str:
    rows = ["| time | session | minutes (teaching + exercises + extras) | objective |", "| --- | --- | --- | --- |"]
    notes = []
    for slot in track.slots:
        if not slot.lesson:
            rows.append(f"| {clock_time(slot.start)} | *{slot.what}* | {slot.minutes} | |")
            continue
        lesson = slot.lesson
        mark = ""
        if lesson.entry in PART_NEEDS and PART_NEEDS[lesson.entry][0] not in track.room.platforms:
            mark = " (see note)"
            notes.append(f"{doc_link(lesson.entry)}: {PART_NEEDS[lesson.entry][1]}.")
        for entry in slot.covers:
            mark = " (see note)"
            notes.append(f"{doc_link(lesson.entry)} starts with five minutes on {doc_link(entry)}: {COVERS[entry]}.")
        session = doc_link(lesson.entry)
        if lesson.parallel:
            session = "breakout: " + " / ".join(doc_link(part.entry) for part in lesson.parallel)
            notes.append("In the breakout each group takes the platform lesson of its laptops (NVIDIA: CUDA; "
                         "Apple silicon: MPS; AMD: ROCm; Intel GPUs: XPU; CPU-only and Colab: know your "
                         "accelerator), led by a helper, while the instructor moves between groups; the slot is as "
                         "long as the longest of them.")
        if slot.kept:
            session += " (keeps " + ", ".join(f"`{label}`" if "`" not in label and " " not in label else label
                                               for label in slot.kept) + ")"
        rows.append(f"| {clock_time(slot.start)} | {session}{mark} | {slot_minutes(slot)} | {slot.objective} |")
    taught = sum(s.minutes for s in track.slots if s.lesson)
    text = "\n".join(rows)
    text += (f"\n\nFrom {clock_time(START)} to {clock_time(track.end)}: {duration(track.length)}, "
             f"{taught} minutes of lessons.")
    if track.day == "half":
        text += (" A half day keeps each lesson's shortest exercise while the day allows (always the flagship's and "
                 "the migration lessons'), and has no room for the graphs and distributed objectives; give the "
                 "other exercises as homework.")
    elif any(slot.kept for slot in track.slots):
        text += " Where a lesson keeps fewer exercises than it has, the table names the ones it keeps."
    if track.left_out:
        text += " Not in this day (a second session): " + ", ".join(
            f"{doc_link(lesson.entry)} ({lesson.minutes} min)" for lesson in track.left_out) + "."
    if notes:
        text += "\n\nNote: " + " ".join(notes)
    return text


def objectives_section() -> str:
    return "\n".join(f"- **{o.key}**: {o.text};" + ("" if o.half_day else " (full day only)") for o in OBJECTIVES)


def schedules_section(root: Path = ROOT) -> str:
    parts = []
    for track in tracks(root):
        title = "Half day" if track.day == "half" else "Full day"
        parts.append(f"### {track.room.title}: {title.lower()} ({duration(track.length)})\n\n"
                     f"For {track.room.audience}.\n\n{track_table(track)}")
    return "\n\n".join(parts)


# ---- the exercise index ---------------------------------------------------------------------------------------------

def quiz_rows(root: Path) -> list[str]:
    """One row per lesson that asks self-check questions (tools/author/quiz.py)."""
    from tools.author import quiz

    if not (root / quiz.QUIZZES).is_dir():
        return []
    return [f"| {chapter_quiz.title} | {doc_link(entry)} | {len(questions)} |"
            for entry, (chapter_quiz, questions) in quiz.lesson_questions(root).items()]


def exercises_page(root: Path = ROOT) -> str:
    found = exercises(root)
    rows = [f"| {e.title.replace('|', '&#124;')} | {doc_link(e.entry)} | {e.level or '–'} | {e.minutes} | "
            f"`{e.label}` |" for e in found]
    total = sum(e.minutes for e in found)
    quizzes = quiz_rows(root)
    if not quizzes:
        quiz_part = ["No lesson asks self-check questions yet."]
    else:
        quiz_part = ["Each chapter has self-check questions, multiple choice, each asked at the end of the lesson that "
                     "teaches it: the answers sit in toggles in the book, and a form checks them in a live notebook. "
                     "For a room, {doc}`../instructors/quiz-room` shows them without answers.", "",
                     "| chapter | lesson | questions |", "| --- | --- | --- |", *quizzes]
    return "\n".join([
        "# Exercises",
        "",
        "<!-- Generated by `python -m tools.workshop pages` from the notebooks; do not edit by hand. -->",
        "",
        "Every lesson has exercises. The solution sits in a hidden cell under each task, and the cell after it",
        "checks any answer, so each solution is proven whenever the book is built. For a workshop, hand out the",
        "student notebooks, whose solution cells are empty (see {doc}`workshop`).",
        "",
        f"{len(found)} exercises, {total} minutes in all, in the order of the book. The level is easy, medium or",
        "hard; the label names the exercise in the tests (`tests/exercises/<label>/`).",
        "",
        "| exercise | notebook | level | minutes | label |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
        "## Self-check quizzes",
        "",
        *quiz_part,
        "",
    ])


# ---- generated pages ------------------------------------------------------------------------------------------------

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
    text = guide.read_text(encoding="utf-8")
    if BEGIN.format(name="objectives") in text:
        text = replace_section(text, "objectives", objectives_section(), guide)
    text = replace_section(text, "schedules", schedules_section(root), guide)
    if BEGIN.format(name="timing-rule") in text:
        text = replace_section(text, "timing-rule", f"**The rule**: {TIMING_RULE}.", guide)
    if BEGIN.format(name="student-copies") in text:
        text = replace_section(text, "student-copies", student_section(root), guide)
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


# ---- timings from measurement ---------------------------------------------------------------------------------------

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
        if record.get("outcome", "pass") != "pass" or not isinstance(record["seconds"], int | float):
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


# ---- Colab runtimes -------------------------------------------------------------------------------------------------

COLAB_GPU = "T4"  # the GPU of Colab's free tier


def needs_nvidia_gpu(notebook: dict[str, Any]) -> bool:
    """A lesson needs an NVIDIA GPU when it targets CUDA and not the CPU (course.platforms)."""
    platforms = notebook.get("metadata", {}).get("course", {}).get("platforms", [])
    return "cuda" in platforms and "cpu" not in platforms


def colab_runtime(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook with Colab's runtime metadata set: a GPU runtime (`accelerator: GPU`, `colab.gpuType`) for
    lessons that need an NVIDIA GPU, none for the others (Colab then opens a CPU runtime)."""
    result = copy.deepcopy(notebook)
    metadata = result.setdefault("metadata", {})
    colab = metadata.get("colab", {})
    if needs_nvidia_gpu(notebook):
        metadata["accelerator"] = "GPU"
        metadata["colab"] = {**colab, "gpuType": COLAB_GPU}
    else:
        metadata.pop("accelerator", None)
        colab.pop("gpuType", None)
        if colab:
            metadata["colab"] = colab
        else:
            metadata.pop("colab", None)
    return result


def colab_problems(root: Path = ROOT) -> list[str]:
    problems = []
    for path in notebook_paths(root):
        notebook = read_notebook(path)
        if colab_runtime(notebook) != notebook:
            want = "a GPU runtime" if needs_nvidia_gpu(notebook) else "no GPU runtime"
            problems.append(f"{path.relative_to(root)}: Colab would not open {want} "
                            "(run `python -m tools.workshop colab`)")
    return problems


# ---- student notebooks ----------------------------------------------------------------------------------------------

STUDENT_BRANCH = "student"  # the branch the publish workflow pushes the student copies to (Colab and Binder open them)
STUDENT_FOLDER = "student"  # the built site's folder of student copies


def student_version(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook with each solution cell's code replaced by a stub; tags, metadata and check cells stay."""
    student = copy.deepcopy(notebook)
    for cell in student["cells"]:
        if cell.get("cell_type") == "code" and "solution" in cell_tags(cell):
            cell["source"] = STUB
            cell["outputs"], cell["execution_count"] = [], None
    return student


def student_path(entry: str) -> str:
    """Where a lesson's student copy lies, in the student branch and under the site's student folder."""
    if not entry.startswith("notebooks/"):
        raise CourseError(f"{entry}: student copies are made of notebooks under notebooks/ only")
    return f"{entry.removeprefix('notebooks/')}.ipynb"


def student_links(
    entry: str, root: Path = ROOT, branch: str = STUDENT_BRANCH, branch_folder: str = ""
) -> dict[str, str]:
    """Colab, Binder and download addresses of a lesson's student copy (the download relative to the site). A
    translated edition's copies lie in another branch, under `branch_folder` (tools/editions.py)."""
    owner_repo = repository_url(root).removeprefix("https://github.com/")
    path = student_path(entry)
    in_branch = f"{branch_folder}{path}"
    return {"colab": f"https://colab.research.google.com/github/{owner_repo}/blob/{branch}/{in_branch}",
            "binder": f"https://mybinder.org/v2/gh/{owner_repo}/{branch}?labpath={in_branch}",
            "download": f"{STUDENT_FOLDER}/{path}"}


def write_student_notebooks(
    out: Path, root: Path = ROOT, notebook_of: Callable[[Path], dict[str, Any]] = read_notebook
) -> list[Path]:
    """Write a student version of every notebook with exercises under `out`, keeping the folders of notebooks/.
    `notebook_of` gives the notebook to copy for each path (a translated edition passes its translation)."""
    written = []
    for path in notebook_paths(root):
        notebook = notebook_of(path)
        if not has_solutions(notebook):
            continue
        target = out / student_path(path.relative_to(root).with_suffix("").as_posix())
        target.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(target, student_version(notebook))
        written.append(target)
    return written


def student_copy_problems(entry: str, folder: Path, root: Path = ROOT) -> list[str]:
    """Run a lesson's student copy alone in `folder` (as a learner does, through the course's executor) and say what
    went wrong: a cell other than the check after a stubbed solution failed, or such a check passed."""
    from tools.execute import engine

    path = root / f"{entry}.ipynb"
    notebook = read_notebook(path)
    checks = {cells.check for cells in exercise_cells(notebook, path)}
    _, failed_cells = engine.run_as_learner(student_version(notebook), folder)
    failed = set(failed_cells)
    problems = [f"{entry}: cell {index} failed in the student copy, and it is not the check of an exercise"
                for index in sorted(failed - checks)]
    problems += [f"{entry}: the check in cell {index} passed on the stub" for index in sorted(checks - failed)]
    return problems


def student_section(root: Path = ROOT) -> str:
    """The workshop page's table of student copies: every lesson with exercises, opened on Colab or Binder."""
    rows = ["| lesson | student copy |", "| --- | --- |"]
    for entry in lesson_entries(root):
        if not has_solutions(read_notebook(root / f"{entry}.ipynb")):
            continue
        links = student_links(entry, root)
        rows.append(f"| {doc_link(entry)} | [Colab]({links['colab']}) · [Binder]({links['binder']}) · "
                    f'<a href="../{links["download"]}" download>download</a> |')
    return "\n".join(rows)


# ---- command line ---------------------------------------------------------------------------------------------------

def print_timings(found: list[Timing]) -> None:
    print(f"Rule: {TIMING_RULE}.")
    print(f"{'lesson':62} {'words':>6} {'code':>5} {'seconds':>8} {'teaching':>8} {'exercises':>9}  (now)")
    for t in found:
        seconds = f"{t.seconds:.1f}" if t.seconds is not None else "no run"
        teaching = str(t.teaching) if t.teaching is not None else "-"
        print(f"{t.entry:62} {t.words:>6} {t.code_lines:>5} {seconds:>8} {teaching:>8} {t.exercises:>9}  {t.before}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.workshop", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("schedule", help="print every track")
    pages = commands.add_parser("pages", help="write chapters/workshop.md's schedules and chapters/exercises.md")
    pages.add_argument("--check", action="store_true", help="exit 1 when the pages are stale, change nothing")
    timing = commands.add_parser("timings", help="teaching minutes by the timing rule, from run records")
    timing.add_argument("records", nargs="+", type=Path, help="run-record JSON files or folders of them")
    timing.add_argument("--write", action="store_true", help="write the minutes into the notebooks")
    timing.add_argument("--only", nargs="*", default=None, metavar="NOTEBOOK",
                        help="with --write: only these notebooks (paths)")
    colab = commands.add_parser("colab", help="set Colab's runtime metadata from course.platforms")
    colab.add_argument("--check", action="store_true", help="exit 1 when a notebook's metadata is not set")
    colab.add_argument("notebooks", nargs="*", type=Path, help="notebooks to set (default: all)")
    student = commands.add_parser("student", help="write student notebooks")
    student.add_argument("out", nargs="?", type=Path, default=ROOT / "_build" / "student",
                         help="folder for the student notebooks (default: _build/student/)")
    student.add_argument("--check", action="store_true",
                         help="run each student copy in OUT and exit 1 unless only the checks of its stubs fail")
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
        elif args.command == "timings":
            found = timings(args.records)
            print_timings(found)
            if args.write:
                only = {Path(p).resolve().with_suffix("") for p in args.only} if args.only is not None else None
                for t in found:
                    if only is not None and (ROOT / t.entry).resolve() not in only:
                        continue
                    if write_timing(ROOT, t):
                        print(f"wrote {t.entry}.ipynb: {t.teaching} + {t.exercises} minutes")
        elif args.command == "colab":
            if args.check:
                problems = colab_problems()
                print("\n".join(problems) or "every notebook opens on the right Colab runtime")
                return 1 if problems else 0
            for path in args.notebooks or notebook_paths():
                notebook = read_notebook(path)
                updated = colab_runtime(notebook)
                if updated != notebook:
                    write_notebook(path, updated)
                    print(f"set the Colab runtime of {path}")
        else:
            if args.out.exists() and not args.out.is_dir():
                raise CourseError(f"{args.out}: exists and is not a folder")
            written = write_student_notebooks(args.out)
            print(f"wrote {len(written)} student notebook(s) under {args.out}")
            if args.check:
                problems = []
                for path in written:
                    entry = "notebooks/" + path.relative_to(args.out).with_suffix("").as_posix()
                    found = student_copy_problems(entry, path.parent)
                    print(f"{'ok  ' if not found else 'FAIL'} {entry}", flush=True)
                    problems += found
                print("\n".join(problems) or "every student copy fails only at the checks of its stubs")
                return 1 if problems else 0
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
