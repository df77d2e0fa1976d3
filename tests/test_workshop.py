"""The workshop kit: tracks that teach every objective and fit their day, timings from a stated rule, a complete
exercise index, Colab runtimes from metadata, fresh pages, student notebooks."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from tests.conftest import CPU_ENVIRONMENT
from tools import lesson
from tools.author import quiz
from tools.checks import lesson_size
from tools.course import ROOT, CourseError, cell_source, cell_tags, notebook_paths, read_notebook, write_notebook
from tools.records import runs as runs_record
from tools.workshop import __main__ as command_line
from tools.workshop import colab, handout, lessons, pages, rooms, student, timing, tracks

# Lessons the tracks of tools/workshop/rooms.yml ask for, by their _toc.yml entries.
KYA = "notebooks/getting-started/know-your-accelerator"
EIGH = "notebooks/batched-eigh/batched-eigh"
COND = "notebooks/graphs/cond-in-graphs"
KNOBS = "notebooks/optimizers-and-compiler/compile-warnings-and-knobs"
TORCHRUN = "notebooks/distributed/torchrun-and-collectives"
ACCELERATOR_GRAPH = "notebooks/graphs/accelerator-graph"
FMA = "notebooks/optimizers-and-compiler/fma-addcdiv"
ROCM = "notebooks/platforms/rocm"
XPU = "notebooks/platforms/xpu"
TORCHSCRIPT = "notebooks/migration/torchscript-to-export"
UPGRADE = "notebooks/migration/upgrading-to-2-12"
SCANNER = "notebooks/migration/upgrade-scanner"

GUIDE = f"""# Workshop

Hand-written text.

{pages.BEGIN.format(name="objectives")}
old objectives
{pages.END.format(name="objectives")}

{pages.BEGIN.format(name="schedules")}
old schedule
{pages.END.format(name="schedules")}

More hand-written text.
"""

# Every lesson a track can ask for, with (teaching, exercises) minutes and platforms, for a small course.
TRACK_LESSONS = {
    KYA: (15, 5, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    EIGH: (25, 25, ["cuda", "rocm", "xpu", "cpu"]),
    COND: (25, 10, ["cuda", "cpu"]),
    KNOBS: (20, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    TORCHRUN: (30, 10, ["cuda", "rocm", "xpu", "cpu"]),
    TORCHSCRIPT: (20, 15, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    UPGRADE: (25, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    SCANNER: (15, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    "notebooks/platforms/cuda": (25, 25, ["cuda"]),
    "notebooks/platforms/mps": (25, 25, ["mps"]),
    ROCM: (25, 20, ["rocm"]),
    XPU: (30, 20, ["xpu"]),
    "notebooks/graphs/graph-annotations": (20, 10, ["cuda"]),
    "notebooks/optimizers-and-compiler/fused-adagrad": (25, 10, ["cuda", "rocm", "cpu"]),
    "notebooks/mx-quantization/mx-export": (30, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    "notebooks/mx-quantization/mx-from-first-principles": (30, 10, ["cuda", "rocm", "xpu", "cpu"]),
    FMA: (25, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
}


def lesson_notebook(good: dict[str, Any], name: str, index: int, teaching: int, exercises: int,
                    platforms: list[str] | None = None, levels: tuple[str, ...] = ()) -> dict[str, Any]:
    """The good notebook as lesson `name`; with `levels`, one exercise per level and course.exercises."""
    lesson = copy.deepcopy(good)
    course = lesson["metadata"]["course"]
    course["minutes"] = {"teaching": teaching, "exercises": exercises}
    if platforms:
        course["platforms"] = platforms
    lesson["cells"][0]["source"] = lesson["cells"][0]["source"].replace("# A lesson", f"# Lesson {name}")
    lesson["cells"][4]["source"] = f"```{{exercise}} Task {name}\n:label: task-{index}\nDo it.\n```"
    course.pop("exercises", None)  # without levels: no course.exercises, the minutes are shared
    if levels:
        extra = copy.deepcopy(lesson["cells"][4:7])
        extra[0]["source"] = f"```{{exercise}} Second task {name}\n:label: task-{index}-b\nDo more.\n```"
        lesson["cells"] += extra
        first = exercises // 3
        course["exercises"] = [{"label": f"task-{index}", "minutes": first, "level": levels[0]},
                               {"label": f"task-{index}-b", "minutes": exercises - first, "level": levels[1]}]
    return lesson


def make_course(root: Path, good: dict[str, Any], entries: dict[str, tuple[int, int, list[str]]],
                levels: tuple[str, ...] = ()) -> None:
    """A small course: one notebook per entry (entry -> teaching, exercises, platforms), in _toc.yml order."""
    (root / "chapters").mkdir(parents=True)
    (root / "chapters" / "workshop.md").write_text(GUIDE)
    (root / "intro.md").write_text("# Intro\n")
    toc = ["format: jb-book", "root: intro", "chapters:"]
    for index, (entry, (teaching, exercises, platforms)) in enumerate(entries.items()):
        path = root / f"{entry}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        notebook = lesson_notebook(good, entry.split("/")[-1], index, teaching, exercises, platforms, levels)
        for section, _ in rooms.tables().overlaps.get(entry, ()):  # the sections rooms.yml names, one cell each
            notebook["cells"] += [nbformat.v4.new_markdown_cell(f"## {section}\n\nTwenty words " + "of prose " * 9),
                                  nbformat.v4.new_code_cell("port = 29500\nprint(port)")]
        write_notebook(path, notebook)
        toc.append(f"  - file: {entry}")
    (root / "_toc.yml").write_text("\n".join(toc) + "\n")


@pytest.fixture
def course(tmp_path: Path, good_notebook: dict[str, Any]) -> Path:
    # _toc.yml order (zeta before alpha) differs from the alphabetical order on disk, on purpose.
    make_course(tmp_path, good_notebook, {"notebooks/zeta/zeta": (30, 10, []), "notebooks/alpha/alpha": (50, 20, []),
                                          "notebooks/beta/beta": (25, 5, [])})
    return tmp_path


@pytest.fixture
def track_course(tmp_path: Path, good_notebook: dict[str, Any]) -> Path:
    make_course(tmp_path, good_notebook, TRACK_LESSONS, levels=("easy", "hard"))
    return tmp_path


# ---- lessons and the exercise index --------------------------------------------------------------------------------

def test_lessons_follow_the_table_of_contents(course: Path) -> None:
    assert [lesson.entry.split("/")[-1] for lesson in lessons.lessons(course)] == ["zeta", "alpha", "beta"]


def test_the_exercise_index_lists_every_exercise_with_title_first(track_course: Path) -> None:
    found = lessons.exercises(track_course)
    assert len(found) == 2 * len(TRACK_LESSONS)
    eigh = [e for e in found if e.entry == EIGH]
    assert eigh == [lessons.Exercise("task-1", "Task batched-eigh", EIGH, 8, "easy"),
                    lessons.Exercise("task-1-b", "Second task batched-eigh", EIGH, 17, "hard")]
    page = pages.exercises_page(track_course)
    assert "| exercise | notebook | level | minutes | label |" in page, "the title is the first, widest column"
    assert f"| Task batched-eigh | {{doc}}`../{EIGH}` | easy | 8 | `task-1` |" in page
    assert "## Self-check quizzes" in page


def test_without_course_exercises_the_minutes_are_shared(course: Path) -> None:
    assert lessons.exercises(course)[1] == lessons.Exercise("task-1", "Task alpha", "notebooks/alpha/alpha", 20)


def test_course_exercises_must_match_the_exercises(track_course: Path) -> None:
    path = track_course / f"{EIGH}.ipynb"
    notebook = read_notebook(path)
    notebook["metadata"]["course"]["exercises"].pop()
    write_notebook(path, notebook)
    with pytest.raises(CourseError, match=r"course.exercises lists .* but the notebook's exercise directives are"):
        lessons.exercises(track_course)


def test_an_exercise_without_label_is_a_clear_error(course: Path) -> None:
    path = course / "notebooks" / "beta" / "beta.ipynb"
    notebook = read_notebook(path)
    notebook["cells"][4]["source"] = "```{exercise} No label\nDo it.\n```"
    write_notebook(path, notebook)
    with pytest.raises(CourseError, match=r"the exercise in cell 4 has no ':label:' line"):
        lessons.exercises(course)


def test_the_index_lists_each_lesson_that_asks_questions() -> None:
    from tools.author import quiz

    page = pages.exercises_page()
    for entry, (chapter_quiz, questions) in quiz.lesson_questions().items():
        assert f"| {chapter_quiz.title} | {pages.doc_link(entry)} | {len(questions)} |" in page


# ---- tracks --------------------------------------------------------------------------------------------------------

def check_track(track: tracks.Track) -> None:
    """The properties every track must have."""
    assert tracks.track_problems(track) == []
    slots = track.slots
    assert all(a.start + a.minutes == b.start for a, b in itertools.pairwise(slots)), "no gaps, no overlaps"
    block = 0
    for slot in slots:
        block = block + slot.minutes if slot.lesson else 0
        assert block <= tracks.LONGEST_BLOCK or block == slot.minutes, "a break at least every 90 minutes"
    assert any(slot.what == "Lunch" for slot in slots) is (track.day == "full")
    assert track.length <= track.limit
    text = pages.track_table(track)
    hours = re.search(r"From (\d\d):(\d\d) to (\d\d):(\d\d): (\d+) h(?: (\d+) min)?", text)
    assert hours, text
    begin, end = int(hours[1]) * 60 + int(hours[2]), int(hours[3]) * 60 + int(hours[4])
    assert end - begin == track.length == int(hours[5]) * 60 + int(hours[6] or 0), "the stated duration adds up"
    for slot in slots:
        if slot.lesson:
            links = " / ".join(pages.doc_link(entry) for entry in tracks.taught_entries(slot.lesson))
            kind = "breakout: " if slot.lesson.parallel else "walk-through: " if slot.lesson.walk_through else ""
            assert f"| {pages.clock_time(slot.start)} | {kind}{links}" in text
            if slot.lesson.walk_through:
                assert slot.minutes == tracks.WALK_THROUGH == slot.lesson.teaching and not slot.exercises
                assert f"walk-through: {pages.doc_link(slot.lesson.entry)}" in text
                continue
            parts = (slot.lesson.teaching + slot.exercises + slot.run_along + slot.debrief + slot.quiz + slot.setup
                     - slot.skip)
            assert slot.minutes == parts + tracks.COVER_MINUTES * len(slot.covers), "the slot's minutes add up"
            assert slot.run_along == slot.lesson.run_along, "the room's run-along is counted"
            assert slot.quiz == slot.lesson.questions * lessons.QUIZ_MINUTES, "the quiz is counted"
            assert slot.lesson.questions <= quiz.ROOM_QUESTIONS, "a room is asked at most two questions a lesson"
            kept = tracks.slot_exercises(slot)
            assert slot.exercises == sum(minutes for _, minutes, _ in kept), "the kept exercises' minutes"
            assert slot.debrief == sum(debrief for _, _, debrief in kept), "each kept exercise is debriefed"
            for label in slot.kept:
                assert label in text, f"the table names the kept exercise {label}"
            assert slot.setup == (tracks.COLAB_SETUP if track.room.colab else 0), "Colab's restart is counted"
    welcome = tracks.COLAB_WELCOME if track.room.colab else tracks.WELCOME
    assert slots[0].minutes == welcome and "first install" in slots[0].what, "the welcome holds the first install"
    checks = [i for i, slot in enumerate(slots) if slot.what == "Mid-day check"]
    assert len(checks) == 1 and slots[checks[0] + 1].what in ("Break", "Lunch"), "a mid-day check before a pause"
    assert track.day == "half" or slots[checks[0] + 1].what == "Lunch", "on a full day, before lunch"
    cuts = sum(cut.minutes for cut in tracks.cut_plan(track))
    if track.day == "half":
        assert cuts >= tracks.HALF_DAY_CUTS and f"({cuts} in all)." in text, "a half day's cut plan, on its page"
    else:
        assert track.buffer >= tracks.FULL_DAY_BUFFER, "a full day's buffer"
        assert f"Buffer: {track.buffer} minutes" in text, "on its page"


@pytest.mark.parametrize("room", rooms.tables().rooms, ids=lambda room: room.key)
@pytest.mark.parametrize("day", ["half", "full"])
def test_a_track_teaches_every_objective_within_its_day(track_course: Path, room: rooms.Room, day: str) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    track = tracks.build_track(room, day, found)
    check_track(track)
    scheduled = {slot.objective for slot in track.slots if slot.lesson}
    assert scheduled >= {o.key for o in rooms.tables().objectives if o.half_day or day == "full"}


def test_the_books_tracks_teach_every_objective_within_their_day() -> None:
    found = tracks.tracks()
    assert {(t.room.key, t.day) for t in found} == {(r.key, d) for r in rooms.tables().rooms for d in ("half", "full")}
    for track in found:
        check_track(track)
        scheduled = {slot.objective for slot in track.slots if slot.lesson}
        assert scheduled >= {o.key for o in rooms.tables().objectives if o.half_day or track.day == "full"}


def test_a_full_day_without_its_buffer_or_a_half_day_without_cuts_is_a_problem() -> None:
    """A full day that ends 5 minutes before its limit lacks its buffer; a half day whose lessons have nothing left to
    cut (no exercise, quiz or run-along) gives back only its walk-through, less than HALF_DAY_CUTS."""
    by_key = {(t.room.key, t.day): t for t in tracks.tracks()}
    full = by_key["cpu", "full"]
    late = full.buffer - 5
    longer = dataclasses.replace(full, slots=(*full.slots[:-1], dataclasses.replace(
        full.slots[-1], minutes=full.slots[-1].minutes + late)))
    assert tracks.track_problems(longer) == [f"cpu full day: a buffer of 5 minutes, less than the "
                                             f"{tracks.FULL_DAY_BUFFER} a full day keeps free"]
    half = by_key["cpu", "half"]
    bare = dataclasses.replace(half, slots=tuple(
        dataclasses.replace(slot, lesson=dataclasses.replace(slot.lesson, questions=0, exercise_list=(),
                                                             run_along=0),
                            quiz=0, exercises=0, debrief=0, run_along=0, kept=())
        if slot.lesson else slot for slot in half.slots))
    assert [cut.what for cut in tracks.cut_plan(bare)] == ["reading"]
    assert tracks.track_problems(bare) == [
        f"cpu half day: its cut plan gives back {tracks.WALK_THROUGH} minutes, less than the {tracks.HALF_DAY_CUTS} a "
        "half day needs",
        f"cpu half day: its cut plan gives back {tracks.WALK_THROUGH} minutes after the mid-day check, less than the "
        f"{tracks.HALF_DAY_CUTS} the check may ask for"]


def test_every_cut_plan_is_in_clock_order_and_leaves_cuts_after_the_mid_day_check() -> None:
    """The mid-day check is where the cut plan is used: each day's plan lists its cuts in the day's clock order, and
    those at or after the check give back HALF_DAY_CUTS minutes at least (the CPU half day's first cuts, the compiler
    exercise and kya-platform, came before it, leaving 11 minutes; the Colab half day's 13)."""
    for track in tracks.tracks():
        cuts = tracks.cut_plan(track)
        assert [cut.start for cut in cuts] == sorted(cut.start for cut in cuts), (track.room.key, track.day)
        check = tracks.midday_check(track.slots)
        starts = {slot.start for slot in track.slots if slot.lesson} | {check}
        assert all(cut.start in starts for cut in cuts), "each cut at the time of its lesson (the quiz: the check)"
        late = sum(cut.minutes for cut in cuts if cut.start >= check)
        assert late >= tracks.HALF_DAY_CUTS, (track.room.key, track.day, late)
        text = pages.track_table(track)
        assert all(f"{number}. {pages.clock_time(cut.start)}" in text for number, cut in enumerate(cuts, 1)), text


def test_a_half_day_gives_its_walk_through_as_reading_where_an_exercise_would_not_fit() -> None:
    """The Colab half day's setup minutes leave no room for the compiler lesson's exercise beside the walk-through:
    the walk-through becomes reading before the day and the exercise is kept (it was "20 + 0" before)."""
    by_key = {(t.room.key, t.day): t for t in tracks.tracks()}
    colab = by_key["colab", "half"]
    assert [lesson.entry for lesson in colab.reading] == [UPGRADE]
    (knobs,) = [slot for slot in colab.slots if slot.lesson and slot.lesson.entry == KNOBS]
    assert knobs.exercises > 0
    assert by_key["cpu", "half"].reading == (), "the CPU half day keeps its walk-through"
    assert f"Read before the day: {pages.doc_link(UPGRADE)}" in pages.track_table(colab)


def test_every_full_day_keeps_torchruns_exercise() -> None:
    """The distributed objective is practised: torchrun's shortest exercise is never cut (keeps_exercise)."""
    for track in tracks.tracks():
        if track.day == "full":
            (slot,) = [slot for slot in track.slots if slot.lesson and slot.lesson.entry == TORCHRUN]
            assert slot.lesson is not None and slot.exercises > 0, f"{track.room.key}: torchrun's exercise is kept"
            shortest = slot.lesson.exercise_list[0][0]
            assert all((cut.entry, cut.label) != (TORCHRUN, shortest) for cut in tracks.cut_plan(track)), \
                "and not in the cut plan"


def test_the_books_tracks_ask_the_questions_of_the_lessons_they_teach() -> None:
    """Every track asks self-check questions, and only in lessons it teaches, each counted in its slot."""
    asked = {entry: len(questions) for entry, (_, questions) in quiz.lesson_questions().items()}
    for track in tracks.tracks():
        slots = [slot for slot in track.slots if slot.lesson]
        assert sum(slot.quiz for slot in slots) >= 3 * lessons.QUIZ_MINUTES, f"{track.room.key} {track.day}"
        for slot in slots:
            assert slot.lesson is not None
            expected = max(asked.get(entry, 0) for entry in tracks.taught_entries(slot.lesson))
            expected = 0 if slot.lesson.walk_through else min(expected, quiz.ROOM_QUESTIONS)
            assert slot.quiz == expected * lessons.QUIZ_MINUTES, slot.lesson.entry


def test_the_books_tracks_teach_or_cover_every_prerequisite() -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons()}
    assert found[COND].prerequisites == (ACCELERATOR_GRAPH,), "read from the header's links"
    for track in tracks.tracks():
        before = {lesson.entry for lesson in track.reading}  # read before the day
        for slot in track.slots:
            if slot.lesson:
                for entry in slot.lesson.prerequisites:
                    assert entry in before or entry in slot.covers, (track.room.key, track.day, slot.lesson.entry)
                before.update(tracks.taught_entries(slot.lesson))


def test_a_prerequisite_neither_taught_nor_covered_is_a_problem(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    found[KNOBS] = dataclasses.replace(found[KNOBS], prerequisites=("notebooks/x/unknown",))
    found[EIGH] = dataclasses.replace(found[EIGH], prerequisites=(ACCELERATOR_GRAPH,))
    track = tracks.build_track(rooms.tables().rooms[0], "half", found)
    problems = tracks.track_problems(track)
    assert problems == [f"nvidia half day: {KNOBS} needs notebooks/x/unknown, which is neither taught "
                        "before it nor covered (covers in tools/workshop/rooms.yml)"]
    eigh = next(slot for slot in track.slots if slot.lesson and slot.lesson.entry == EIGH)
    assert eigh.covers == (ACCELERATOR_GRAPH,) and "starts with five minutes on" in \
        pages.track_table(track)


def test_the_mixed_room_has_a_breakout_slot_for_every_platform_lesson() -> None:
    mixed = next(room for room in rooms.tables().rooms if room.breakout)
    for track in (t for t in tracks.tracks() if t.room is mixed):
        (breakout,) = [slot for slot in track.slots if slot.lesson and slot.lesson.parallel]
        assert breakout.lesson is not None
        assert tracks.taught_entries(breakout.lesson) == mixed.platform_lessons
        assert breakout.lesson.teaching == max(part.teaching for part in breakout.lesson.parallel)


def test_the_platform_lesson_fits_the_rooms_hardware() -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons()}
    for room in rooms.tables().rooms:
        for entry in room.platform_lessons:
            # a breakout's lessons run on their groups' laptops (NVIDIA, Apple silicon, CPU-only)
            hardware = room.platforms | ({"cuda", "mps", "rocm", "xpu"} if room.breakout else set())
            assert set(found[entry].platforms) & hardware, f"{entry} does not run in the {room.key} room"


@pytest.mark.parametrize(("change", "message"), [
    (lambda data: data.pop("rooms"), "'rooms' must be a non-empty list of mappings"),
    (lambda data: data["rooms"][0].update(platforms=["tpu"]), "room 'nvidia': 'platforms' must name some of"),
    (lambda data: data["rooms"][0].update(colab="yes"), "room 'nvidia': 'colab' must be true or false"),
    (lambda data: data["rooms"][1].update(key="nvidia"), "two rooms share a key"),
    (lambda data: data["objectives"][0].update(minutes=5), "objectives 'platform' has unknown fields ['minutes']"),
    (lambda data: data["objectives"].pop(0), "needs one objective 'platform'"),
    (lambda data: data["part_needs"][COND].update(platform="tpu"), f"part_needs of {COND} needs a 'platform'"),
    (lambda data: data.update(covers={COND: ""}), "'covers' must map lesson entries to the text"),
    (lambda data: data.update(part_needs=[COND]), "'part_needs' must map lesson entries"),
])
def test_the_rooms_tables_are_checked(tmp_path: Path, change: Any, message: str) -> None:
    data = yaml.safe_load(rooms.TABLES.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "rooms.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(CourseError, match=re.escape(f"{path}: ") + ".*" + re.escape(message)):
        rooms.tables(path)


def test_objectives_and_tracks_check_each_other() -> None:
    keys = [objective.key for objective in rooms.tables().objectives]
    assert len(keys) == len(set(keys)) and "platform" in keys
    for objective in rooms.tables().objectives:
        assert objective.text and (objective.lessons or objective.key == "platform")
    guide = (ROOT / "chapters" / "workshop.md").read_text(encoding="utf-8")
    for objective in rooms.tables().objectives:
        assert f"- **{objective.key}**: {objective.text};" in guide, "the guide states every objective"
    for track in tracks.tracks():
        for slot in track.slots:
            assert not slot.lesson or slot.objective in [*keys, "extra"]


def test_a_lesson_the_room_cannot_run_is_a_problem(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    found[KNOBS] = dataclasses.replace(found[KNOBS], platforms=("cuda",))
    cpu = next(room for room in rooms.tables().rooms if room.key == "cpu")
    problems = tracks.track_problems(tracks.build_track(cpu, "half", found))
    assert any(KNOBS in problem and "none of which this room runs" in problem for problem in problems)


def test_a_day_too_long_is_a_problem(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    found[EIGH] = dataclasses.replace(found[EIGH], teaching=200)
    nvidia = rooms.tables().rooms[0]
    problems = tracks.track_problems(tracks.build_track(nvidia, "half", found))
    assert any("more than the 240 of a half day" in problem for problem in problems)


def test_a_full_day_adds_extras_that_fit_and_lists_the_others(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    nvidia = rooms.tables().rooms[0]
    track = tracks.build_track(nvidia, "full", found)
    taught = [slot.lesson.entry for slot in track.slots if slot.lesson]
    for extra in nvidia.extras:
        assert (extra in taught) != (found[extra] in track.left_out)


def test_a_half_day_keeps_the_flagship_and_migration_exercises(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    for room in rooms.tables().rooms:
        track = tracks.build_track(room, "half", found)
        kept = {slot.lesson.entry: slot.exercises for slot in track.slots if slot.lesson}
        assert kept[EIGH] == found[EIGH].short_exercise > 0
        assert kept[SCANNER] == found[SCANNER].short_exercise > 0
        assert kept[UPGRADE] == 0, "upgrading is a walk-through on a half day"


def test_a_half_day_is_four_lessons_and_a_walk_through() -> None:
    for track in (t for t in tracks.tracks() if t.day == "half"):
        taught = [slot.lesson for slot in track.slots if slot.lesson]
        walked = [lesson.entry for lesson in taught if lesson.walk_through] + [r.entry for r in track.reading]
        assert walked == [UPGRADE], track.room.key
        assert len([lesson for lesson in taught if not lesson.walk_through]) == 4, track.room.key


def test_hard_exercises_are_optional(track_course: Path) -> None:
    """The fixture's lessons have an easy and a hard exercise each: no track counts the hard one, every table names
    it as optional."""
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    assert found[EIGH].exercise_list == (("task-1", 8, lesson_size.DEBRIEF_MINUTES["easy"]),)
    assert found[EIGH].optional == (("task-1-b", 17),)
    for room in rooms.tables().rooms:
        for day in ("half", "full"):
            track = tracks.build_track(room, day, found)
            for slot in track.slots:
                assert all(not label.endswith("-b") for label, _, _ in tracks.slot_exercises(slot))
            assert "(optional: `task-1-b`)" in pages.track_table(track)


def test_the_room_terms_reproduce_the_instructors_plan() -> None:
    """The source of the room terms: an instructor planned the kit's earlier CPU tracks at about 241 minutes of lesson
    content for the half day (five lessons) and 384 for the full day (seven), which the reader's rule put at 186 and
    289. The same plans, by the rule with its room terms, must come within 10 minutes of the instructor's."""
    found = {lesson.entry.split("/")[-1]: lesson for lesson in lessons.lessons()}
    levels = {e.label: e.level for e in lessons.exercises()}
    everything = {e.label: e.minutes for e in lessons.exercises()}

    def room_minutes(name: str, labels: tuple[str, ...], cover: int = 0) -> int:
        lesson = found[name]
        return (lesson.teaching + lesson.run_along + lesson.questions * lessons.QUIZ_MINUTES + tracks.COLAB_SETUP
                + cover * tracks.COVER_MINUTES
                + sum(everything[label] + lesson_size.DEBRIEF_MINUTES[levels[label]] for label in labels))

    shared = [room_minutes("know-your-accelerator", ("kya-platform",)),
              room_minutes("compile-warnings-and-knobs", ("compile-warnings-counting-backend",)),
              room_minutes("upgrading-to-2-12", ("migration-event-metadata",)),
              room_minutes("upgrade-scanner", ("migration-clean-train",), cover=1)]
    half = sum(shared) + room_minutes("batched-eigh", ("eigh-condition-number",))
    full = sum(shared) + room_minutes("batched-eigh", ("eigh-condition-number", "eigh-whiten", "eigh-generalized")) \
        + room_minutes("cond-in-graphs", ("cond-newton-step",), cover=1) \
        + room_minutes("torchrun-and-collectives", ("torchrun-pinned-port",))
    assert abs(half - 241) <= 10 and abs(full - 384) <= 10, (half, full)


def test_a_full_day_skips_the_sections_taught_earlier() -> None:
    for track in (t for t in tracks.tracks() if UPGRADE not in {read.entry for read in t.reading}):
        (upgrade,) = [slot for slot in track.slots if slot.lesson and slot.lesson.entry == UPGRADE]
        assert upgrade.lesson is not None
        if track.day == "half" or upgrade.lesson.walk_through:  # a full day walks through it where it must
            assert upgrade.skip == 0 and upgrade.skipped == ()
            continue
        sections = tuple(section for section, _ in rooms.tables().overlaps[UPGRADE])
        assert upgrade.skipped == sections and upgrade.skip > 0
        assert f"{pages.doc_link(UPGRADE)} skips “{sections[0]}”" in pages.track_table(track)


def test_a_section_is_skipped_only_after_the_lesson_that_teaches_it(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    (first, first_teacher), *_ = rooms.tables().overlaps[UPGRADE]
    alone = tracks.plan([("migration", found[UPGRADE], 1)], tracks.HALF_DAY)
    after = tracks.plan([("x", found[first_teacher], 0), ("migration", found[UPGRADE], 1)], tracks.HALF_DAY)
    (upgrade_alone,) = [slot for slot in alone if slot.lesson]
    (upgrade_after,) = [slot for slot in after if slot.lesson and slot.lesson.entry == UPGRADE]
    assert upgrade_alone.skipped == () and upgrade_alone.skip == 0
    assert upgrade_after.skipped == (first,) and upgrade_after.skip == lesson_size.section_minutes(
        track_course / f"{UPGRADE}.ipynb", first) > 0
    assert upgrade_after.minutes == upgrade_alone.minutes - upgrade_after.skip


def test_a_missing_section_is_a_clear_error(track_course: Path) -> None:
    with pytest.raises(CourseError, match=r"upgrading-to-2-12.ipynb: no section headed 'Nowhere'"):
        lesson_size.section_minutes(track_course / f"{UPGRADE}.ipynb", "Nowhere")


def test_the_cut_plan_cuts_extras_first_and_keeps_the_kept_objectives(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in lessons.lessons(track_course)}
    nvidia = rooms.tables().rooms[0]
    track = tracks.build_track(nvidia, "full", found)
    cuts = tracks.cut_plan(track)
    extras = [slot.lesson.entry for slot in track.slots if slot.lesson and slot.objective == "extra"]
    assert extras, "the fixture's full day holds an extra"
    assert [cut.entry for cut in cuts if cut.what == "lesson"] == extras, "each extra, at its time"
    assert all(cut.entry not in (EIGH, SCANNER) for cut in cuts if cut.what == "exercise"), \
        "the flagship and migration lessons keep their exercise"
    text = pages.track_table(track)
    total = sum(cut.minutes for cut in cuts)
    assert f"({total} in all)." in text and "When the room runs late, cut in the day's order" in text


# ---- pages ---------------------------------------------------------------------------------------------------------

def test_pages_are_written_then_fresh_then_stale_again(track_course: Path) -> None:
    guide = track_course / "chapters" / "workshop.md"
    assert len(pages.stale_pages(track_course)) == 2
    assert len(pages.write_pages(track_course)) == 2
    assert pages.stale_pages(track_course) == []
    text = guide.read_text()
    assert text.startswith("# Workshop\n\nHand-written text.") and text.endswith("More hand-written text.\n")
    assert "old schedule" not in text and "old objectives" not in text
    assert "### Colab in a browser: half day" in text and "### A mixed room: full day" in text
    path = track_course / f"{KNOBS}.ipynb"
    notebook = read_notebook(path)
    notebook["metadata"]["course"]["minutes"]["teaching"] = 31
    write_notebook(path, notebook)
    assert guide in pages.stale_pages(track_course), "a change of minutes makes the schedule stale"


def test_a_guide_without_markers_is_a_clear_error(track_course: Path) -> None:
    (track_course / "chapters" / "workshop.md").write_text("# Workshop\n")
    with pytest.raises(CourseError, match="BEGIN GENERATED: schedules"):
        pages.expected_pages(track_course)


# ---- timings -------------------------------------------------------------------------------------------------------

def record(folder: Path, name: str, notebook: str, seconds: float, outcome: str = "pass") -> None:
    """A run record as the engine writes it (tools/records/runs.py), for `notebook`."""
    folder.mkdir(parents=True, exist_ok=True)
    failed = {"index": 3, "error": "AssertionError"} if outcome == "fail" else None
    made = runs_record.new_record(notebook, {"cells": []}, failed_cell=failed, seconds=seconds, peak_memory_bytes=0,
                                  skipped_cells=0, warnings=[], env=dict(CPU_ENVIRONMENT), command="test")
    runs_record.save_record(folder / name, made)


def test_measured_seconds_take_the_median_of_passing_records(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    record(runs, "a.json", "notebooks/a/a.ipynb", 10)
    record(runs / "more", "b.json", "notebooks/a/a.ipynb", 30)
    record(runs, "c.json", "notebooks/a/a.ipynb", 20)
    record(runs, "d.json", "notebooks/a/a.ipynb", 900, outcome="fail")
    (runs / "benchmark.json").write_text(json.dumps({"rows": []}))  # not a run record: ignored
    single = tmp_path / "one.json"
    record(tmp_path, "one.json", "notebooks/b/b.ipynb", 5)
    assert timing.measured_seconds([runs, single]) == {"notebooks/a/a.ipynb": 20, "notebooks/b/b.ipynb": 5}
    with pytest.raises(CourseError, match="no such file or folder"):
        timing.measured_seconds([tmp_path / "missing"])


def test_the_timing_rule() -> None:
    size = lesson_size.LessonSize(path=Path("x.ipynb"), words=1300, visible_code=0, run_seconds=30)
    assert size.teaching_minutes == 15  # 10 + 0.5 + 2 -> 15
    size = lesson_size.LessonSize(path=Path("x.ipynb"), words=1300, visible_code=150, run_seconds=60, objectives=4)
    assert size.teaching_minutes == 30  # 10 + 10 + 1 + 2 + 6 -> 30
    size = lesson_size.LessonSize(path=Path("x.ipynb"), words=0, visible_code=30, typed_code=30)
    assert size.teaching_minutes == 15  # 2 read + 10 typed + 2 -> 15
    assert lesson_size.LessonSize(path=Path("x.ipynb")).teaching_minutes == 5  # never less than one block


def test_timings_are_computed_and_written_to_metadata_and_header(track_course: Path) -> None:
    runs = track_course / "runs"
    record(runs, "eigh.json", f"{EIGH}.ipynb", 90)
    found = {t.entry: t for t in timing.timings([runs], track_course)}
    eigh = found[EIGH]
    size = lesson_size.measure(track_course / f"{EIGH}.ipynb", run_seconds=90)
    assert eigh.words == size.words and eigh.code_lines == size.visible_code > 0
    assert eigh.teaching == size.teaching_minutes and eigh.exercises == 25
    assert found[KYA].teaching is None, "a lesson without a record keeps its minutes"
    assert timing.write_timing(track_course, eigh)
    written = read_notebook(track_course / f"{EIGH}.ipynb")
    course = written["metadata"]["course"]
    assert course["minutes"] == {"exercises": 25, "teaching": eigh.teaching}
    assert course["timing"]["seconds"] == 90 and course["timing"]["words"] == eigh.words
    assert f"**Time**: {eigh.teaching} minutes of teaching" in cell_source(written["cells"][0]) or \
        "minutes of teaching" not in cell_source(written["cells"][0])
    assert not timing.write_timing(track_course, found[KYA])


# ---- Colab runtimes ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("platforms", "gpu"), [(["cuda"], True), (["cuda", "rocm", "xpu"], True),
                                                 (["cuda", "cpu"], False), (["mps"], False), (["cpu"], False)])
def test_colab_gets_a_gpu_runtime_only_where_a_lesson_needs_nvidia(good_notebook: dict[str, Any],
                                                                  platforms: list[str], gpu: bool) -> None:
    good_notebook["metadata"]["course"]["platforms"] = platforms
    good_notebook["metadata"]["colab"] = {"provenance": [], "gpuType": "A100"}
    good_notebook["metadata"]["accelerator"] = "GPU"
    result = colab.colab_runtime(good_notebook)
    if gpu:
        assert result["metadata"]["accelerator"] == "GPU"
        assert result["metadata"]["colab"] == {"provenance": [], "gpuType": colab.COLAB_GPU}
    else:
        assert "accelerator" not in result["metadata"] and result["metadata"]["colab"] == {"provenance": []}
    assert colab.colab_runtime(result) == result, "setting it twice changes nothing"


def test_colabs_setup_minutes_come_from_the_measurement(tmp_path: Path) -> None:
    """The schedules' Colab setup is the measured install (plus the wheel's download at the measured throughput),
    rounded up, and the restart's allowance: 90 s of install and 10 MB at 1 MB/s make 100 s, so 2 + 1 minutes."""
    record = json.loads(colab.INSTALL_RECORD.read_text())
    assert tracks.COLAB_SETUP == colab.setup_minutes() and tracks.COLAB_WELCOME == tracks.WELCOME + tracks.COLAB_SETUP
    assert colab.install_summary().count(f"{round(colab.install_seconds())} s in all") == 1
    made = tmp_path / "install.json"
    made.write_text(json.dumps(record | {"install_seconds": 90, "cpu_wheel_bytes": 10e6, "throughput_bytes": 1e6,
                                         "throughput_seconds": 1}))
    assert colab.install_seconds(made) == 100 and colab.setup_minutes(made) == 2 + colab.RESTART_MINUTES
    made.write_text(json.dumps(record | {"install_seconds": -1}))
    with pytest.raises(CourseError, match=r"every measured number must be positive|needs positive"):
        colab.install_seconds(made)
    made.write_text(json.dumps({k: v for k, v in record.items() if k != "how"}))
    with pytest.raises(CourseError, match="not a Colab install measurement"):
        colab.install_seconds(made)



# ---- student notebooks ---------------------------------------------------------------------------------------------

def test_student_notebooks(tmp_path: Path) -> None:
    out = tmp_path / "student"
    assert command_line.main(["student", str(out)]) == 0
    originals = notebook_paths()
    assert originals
    for original_path in originals:
        original = read_notebook(original_path)
        path = out / original_path.relative_to(ROOT / "notebooks")
        nbformat.validate(nbformat.read(path, as_version=4))
        copied = json.loads(path.read_text())
        checks = {cells.check for cells in lesson.exercise_cells(original, original_path)}
        notes = copied["cells"][len(original["cells"]):]
        assert [cell_source(cell).splitlines()[0] for cell in notes] in ([], ["## Notes"]), "at most the notes added"
        for index, (before, after) in enumerate(zip(original["cells"], copied["cells"][:len(original["cells"])],
                                                     strict=True)):
            if "solution" in cell_tags(before):
                assert cell_source(after) == lesson.STUB, "the solution is replaced by the stub, whole"
            elif index in checks:
                assert cell_tags(after) == [*cell_tags(before), student.RAISES], "a check may raise in Run All"
                assert cell_source(after) == cell_source(before), f"the check in cell {index} is kept"
            elif before["cell_type"] == "code":
                assert cell_tags(after) == cell_tags(before), "tags are kept"
                assert cell_source(after) == cell_source(before), f"cell {index} (the lesson or the setup)"
                assert after.get("outputs") == before.get("outputs"), f"cell {index} is kept as it was"
            else:
                assert not re.search(r"\{(doc|exercise)\}|\[\^", cell_source(after)), f"cell {index}: MyST left"


def test_no_student_copy_opens_a_cell_that_the_book_hides(tmp_path: Path) -> None:
    """What the book hides (the setup cell, helpers, quiz plumbing) opens collapsed in JupyterLab and in Colab's form
    view; what the book hides the outputs of opens with them collapsed. The cell the learner types the answer into
    (the book hides its solution) opens as code."""
    written = student.write_student_notebooks(tmp_path)
    assert written
    open_cells = []
    for path in written:
        for index, cell in enumerate(read_notebook(path)["cells"]):
            tags, metadata = set(cell_tags(cell)), cell.get("metadata", {})
            hidden = metadata.get("jupyter", {})
            if "solution" in tags:
                if hidden.get("source_hidden") or "cellView" in metadata or "@title" in cell_source(cell):
                    open_cells.append(f"{path.name} cell {index}: the answer cell is collapsed or a Colab form")
            elif tags & lesson.HIDES_SOURCE and not (hidden.get("source_hidden") and metadata.get("cellView")):
                open_cells.append(f"{path.name} cell {index}: code open, the book hides it ({sorted(tags)})")
            if tags & lesson.HIDES_OUTPUTS and not hidden.get("outputs_hidden"):
                open_cells.append(f"{path.name} cell {index}: outputs open, the book hides them ({sorted(tags)})")
    assert not open_cells, "\n".join(open_cells)


def test_a_copy_collapses_exactly_what_the_book_hides(good_notebook: dict[str, Any]) -> None:
    good_notebook["cells"].append({"cell_type": "code", "execution_count": None, "outputs": [], "source": "x = 1",
                                   "metadata": {"tags": ["hide-output"]}})
    copied = student.student_version(good_notebook)["cells"]
    setup = next(cell for cell in copied if "stamp:setup" in cell_tags(cell))
    plain = next(cell for cell in copied if cell["cell_type"] == "code" and not cell_tags(cell))
    output_hidden = copied[-1]
    assert setup["metadata"]["jupyter"]["source_hidden"] and setup["metadata"]["cellView"] == "form"
    assert "jupyter" not in plain["metadata"] and "cellView" not in plain["metadata"], "visible in the book: open"
    assert output_hidden["metadata"]["jupyter"] == {"outputs_hidden": True}


def test_the_student_folder_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a-file"
    target.write_text("")
    assert command_line.main(["student", str(target)]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err


def test_a_days_folder_never_mixes_with_an_earlier_write(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain write then a day's write into one folder under _build/: the day's folder holds the day's notebooks
    only; a folder elsewhere that holds notebooks is refused in one line, and nothing in it is removed."""
    monkeypatch.setattr(command_line, "ROOT", tmp_path)
    built = tmp_path / "_build" / "student"
    assert command_line.main(["student", str(built)]) == 0
    every = len(list(built.rglob("*.ipynb")))
    assert command_line.main(["student", str(built), "--track", "cpu", "--day", "half"]) == 0
    assert 0 < len(list(built.rglob("*.ipynb"))) < every
    elsewhere = tmp_path / "handout"
    (elsewhere / "mine").mkdir(parents=True)
    (elsewhere / "mine" / "notes.ipynb").write_text("{}")
    capsys.readouterr()
    assert command_line.main(["student", str(elsewhere)]) == 2
    assert "holds notebooks already" in capsys.readouterr().err
    assert [p.name for p in elsewhere.rglob("*.ipynb")] == ["notes.ipynb"]


def test_student_copies_are_made_of_lessons_with_exercises_only(tmp_path: Path) -> None:
    written = student.write_student_notebooks(tmp_path)
    for path in written:
        copied = read_notebook(path)
        solutions = [cell for cell in copied["cells"] if "solution" in cell_tags(cell)]
        assert solutions and all(cell_source(cell) == lesson.STUB for cell in solutions), path
    with_exercises = {path.name for path in notebook_paths() if lesson.has_solutions(read_notebook(path))}
    assert {path.name for path in written} == with_exercises
    with pytest.raises(CourseError, match="under notebooks/ only"):
        student.student_path("chapters/workshop")


# ---- the day's student copies ---------------------------------------------------------------------------------------

def test_student_copies_of_one_rooms_day(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "handout"
    assert command_line.main(["student", str(out), "--track", "cpu", "--day", "half"]) == 0
    written = {path.relative_to(out).with_suffix("").as_posix() for path in out.rglob("*.ipynb")}
    (track,) = [t for t in tracks.tracks() if t.room.key == "cpu" and t.day == "half"]
    day = {entry for slot in track.slots if slot.lesson for entry in tracks.taught_entries(slot.lesson)}
    assert written == {entry.removeprefix("notebooks/") for entry in day | {rooms.tables().preflight}}
    assert TORCHRUN.removeprefix("notebooks/") not in written, "a lesson of the full day only"
    printed = capsys.readouterr().out
    assert f"wrote {len(written)} student notebook(s)" in printed
    assert f"python -m pip wheel --no-deps . -w {out}" in printed, "the handout names a wheel the folder lacks"
    with_wheel = tmp_path / "with-wheel"
    with_wheel.mkdir()
    (with_wheel / "torch_upgrade_scan-0.3.0-py3-none-any.whl").write_bytes(b"")
    assert command_line.main(["student", str(with_wheel), "--track", "cpu", "--day", "half"]) == 0
    assert "pip wheel" not in capsys.readouterr().out, "the wheel is there: nothing to remind"


def test_the_days_copies_come_with_a_handout_and_the_days_preflight(tmp_path: Path) -> None:
    """The handout lists the day in order (each lesson's file, start and minutes), the notebook to open first, the
    pre-flight and where help is, as Markdown and printable HTML; the pre-flight's copy checks for that day."""
    for room, day in (("colab", "half"), ("cpu", "full")):
        out = tmp_path / f"{room}-{day}"
        assert command_line.main(["student", str(out), "--track", room, "--day", day]) == 0
        (track,) = [t for t in tracks.tracks() if t.room.key == room and t.day == day]
        text = (out / "index.md").read_text()
        html = (out / "index.html").read_text()
        lessons_in_order = [slot for slot in track.slots if slot.lesson and not slot.lesson.walk_through]
        first = student.student_path(lessons_in_order[0].lesson.entry) if lessons_in_order[0].lesson else ""
        assert f"Open first: [`{first}`]({first})" in text, "the file beside the handout, linked relative"
        rows = [line for line in text.splitlines() if line.startswith("| ")]
        positions = []
        for slot in lessons_in_order:
            assert slot.lesson is not None
            row = f"| {pages.clock_time(slot.start)} | "
            (line,) = [line for line in rows if line.startswith(row)]
            path = student.student_path(slot.lesson.entry)
            assert f"[`{path}`]({path}) | {slot.minutes} |" in line
            kept = tracks.slot_exercises(slot)
            assert all(f"`{label}` ({minutes})" in line for label, minutes, _ in kept), "each exercise, its minutes"
            dropped = [label for label, _, _ in slot.lesson.exercise_list if label not in {k for k, _, _ in kept}]
            assert all(f"`{label}`" in line.split("skip ", 1)[-1] for label in dropped), "what to skip"
            positions.append(text.index(line))
        assert positions == sorted(positions), "in teaching order"
        assert "workshop/preflight.ipynb" in text and "troubleshooting.html" in text and "helper" in text
        assert ("workshop-colab.html" in text) is track.room.colab, "the Colab page only for a Colab room"
        assert ("workshop-setup.html" in text) is not track.room.colab, "the Colab room's setup is the Colab page"
        assert ("Save a copy in Drive" in text) is track.room.colab and "torch_upgrade_scan-" in text
        assert "run the first code cell" in text
        for read in track.reading:
            assert f"Read [`{student.student_path(read.entry)}`]" in text
            assert (out / student.student_path(read.entry)).is_file(), "the reading's copy is in the folder"
        assert "<table>" in html and html.count("<tr>") == text.count("\n| ") - 1, "the same table, in HTML"
        preflight = read_notebook(out / "workshop" / "preflight.ipynb")
        assert any(f'DAY = "{day}"' in cell_source(cell) for cell in preflight["cells"])


def test_a_preflight_without_its_day_line_is_a_clear_error(good_notebook: dict[str, Any]) -> None:
    with pytest.raises(CourseError, match=r"needs one code cell with one line `DAY = \"full\"`"):
        handout.with_day(good_notebook, "half", Path("preflight.ipynb"))


@pytest.mark.parametrize(("arguments", "message"), [
    (["--track", "tpu", "--day", "half"], "error: unknown room 'tpu': one of nvidia, apple, cpu, colab, mixed"),
    (["--track", "cpu", "--day", "morning"], "error: unknown day 'morning': half or full"),
    (["--day", "half"], "error: --track and --day go together"),
])
def test_an_unknown_room_or_day_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            arguments: list[str], message: str) -> None:
    assert command_line.main(["student", str(tmp_path / "out"), *arguments]) == 2
    error = capsys.readouterr().err
    assert error.startswith(message) and error.count("\n") == 1, error
    assert not (tmp_path / "out").exists(), "nothing written"


def test_a_copys_markdown_is_plain_markdown_with_links_to_the_book_and_notes_at_the_end() -> None:
    """JupyterLab and Colab show MyST as raw text: in the copy an exercise is a heading, {doc} a link to the published
    page (titled as the page is), a footnote a numbered note in a "Notes" cell at the end."""
    notebook = {"cells": [
        {"cell_type": "markdown", "metadata": {},
         "source": "See {doc}`../graphs/accelerator-graph` and {doc}`the scan <upgrade-scanner>`.[^a]\n\n"
                   "[^a]: A note,\n    over two lines.\n"},
        {"cell_type": "markdown", "metadata": {},
         "source": "```{exercise} Do it\n:label: x-do\n\nWrite `f`.[^a]\n```"}]}
    plain = student.plain_markdown(notebook, "notebooks/migration/upgrading-to-2-12")
    base = "https://every-accelerator.github.io/pytorch-2.12-course/"
    title = student.page_title(ROOT / "notebooks/graphs/accelerator-graph.ipynb")
    assert [cell_source(cell) for cell in plain["cells"]] == [
        f"See [{title}]({base}notebooks/graphs/accelerator-graph.html) and "
        f"[the scan]({base}notebooks/migration/upgrade-scanner.html).<sup>[1]</sup>",
        "### Exercise: Do it\n\nWrite `f`.<sup>[1]</sup>",
        "## Notes\n\n1. A note, over two lines."]
    with pytest.raises(CourseError, match="names no page of the book"):
        student.plain_markdown({"cells": [{"cell_type": "markdown", "source": "{doc}`nowhere`"}]}, "notebooks/a/b")


def test_no_visible_check_cell_holds_its_answer() -> None:
    """fma-addcdiv's check compared with a dictionary that spelled out each device's formula; the formulas now live in
    a cell the book removes and the copy collapses, and the visible check calls none of the solution's helpers."""
    path = ROOT / "notebooks/optimizers-and-compiler/fma-addcdiv.ipynb"
    copied = student.student_version(read_notebook(path), "notebooks/optimizers-and-compiler/fma-addcdiv")
    [cells] = lesson.exercise_cells(read_notebook(path), path)
    check = cell_source(copied["cells"][cells.check])
    assert "fma32(" not in check and "lowered = {" not in check, check
    reference = next(cell for cell in copied["cells"] if "_lowered = {" in cell_source(cell))
    assert reference["metadata"]["jupyter"]["source_hidden"], "the reference opens collapsed"


def test_the_student_branch_holds_what_binder_installs(tmp_path: Path) -> None:
    """Binder builds the student branch from binder/requirements.txt, whose `-e .` needs a project at the branch's
    root: pip installs the scanner from exactly what the branch holds (without it: 'does not appear to be a Python
    project'), and the recorded results the lessons plot are there."""
    branch = tmp_path / "student"
    written = student.write_student_branch(branch)
    assert written and (branch / "binder" / "requirements.txt").is_file()
    assert "-e ." in (branch / "binder" / "requirements.txt").read_text().splitlines()
    assert sorted(p.name for p in (branch / "results").glob("*.json")) == sorted(
        p.name for p in (ROOT / "results").glob("*.json"))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                           "--target", str(tmp_path / "site"), str(branch)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "torch_upgrade_scan" / "cli.py").is_file()
