"""The workshop kit: tracks that teach every objective and fit their day, timings from a stated rule, a complete
exercise index, Colab runtimes from metadata, fresh pages, student notebooks."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tools import lesson, workshop
from tools.checks import conventions, lesson_size
from tools.course import ROOT, CourseError, cell_source, cell_tags, notebook_paths, read_notebook, write_notebook

GUIDE = f"""# Workshop

Hand-written text.

{workshop.BEGIN.format(name="objectives")}
old objectives
{workshop.END.format(name="objectives")}

{workshop.BEGIN.format(name="schedules")}
old schedule
{workshop.END.format(name="schedules")}

More hand-written text.
"""

# Every lesson a track can ask for, with (teaching, exercises) minutes and platforms, for a small course.
TRACK_LESSONS = {
    workshop.KYA: (15, 5, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    workshop.EIGH: (25, 25, ["cuda", "rocm", "xpu", "cpu"]),
    workshop.COND: (25, 10, ["cuda", "cpu"]),
    workshop.KNOBS: (20, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    workshop.TORCHRUN: (30, 10, ["cuda", "rocm", "xpu", "cpu"]),
    workshop.TORCHSCRIPT: (20, 15, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    workshop.UPGRADE: (25, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    workshop.SCANNER: (15, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    "notebooks/platforms/cuda": (25, 25, ["cuda"]),
    "notebooks/platforms/mps": (25, 25, ["mps"]),
    workshop.ROCM: (25, 20, ["rocm"]),
    workshop.XPU: (30, 20, ["xpu"]),
    "notebooks/graphs/graph-annotations": (20, 10, ["cuda"]),
    "notebooks/optimizers-and-compiler/fused-adagrad": (25, 10, ["cuda", "rocm", "cpu"]),
    "notebooks/mx-quantization/mx-export": (30, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
    "notebooks/mx-quantization/mx-from-first-principles": (30, 10, ["cuda", "rocm", "xpu", "cpu"]),
    workshop.FMA: (25, 10, ["cuda", "rocm", "mps", "xpu", "cpu"]),
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


def make_course(root: Path, good: dict[str, Any], lessons: dict[str, tuple[int, int, list[str]]],
                levels: tuple[str, ...] = ()) -> None:
    """A small course: one notebook per entry (entry -> teaching, exercises, platforms), in _toc.yml order."""
    (root / "chapters").mkdir(parents=True)
    (root / "chapters" / "workshop.md").write_text(GUIDE)
    (root / "intro.md").write_text("# Intro\n")
    toc = ["format: jb-book", "root: intro", "chapters:"]
    for index, (entry, (teaching, exercises, platforms)) in enumerate(lessons.items()):
        path = root / f"{entry}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(path, lesson_notebook(good, entry.split("/")[-1], index, teaching, exercises, platforms,
                                             levels))
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
    assert [lesson.entry.split("/")[-1] for lesson in workshop.lessons(course)] == ["zeta", "alpha", "beta"]


def test_the_exercise_index_lists_every_exercise_with_title_first(track_course: Path) -> None:
    found = workshop.exercises(track_course)
    assert len(found) == 2 * len(TRACK_LESSONS)
    eigh = [e for e in found if e.entry == workshop.EIGH]
    assert eigh == [workshop.Exercise("task-1", "Task batched-eigh", workshop.EIGH, 8, "easy"),
                    workshop.Exercise("task-1-b", "Second task batched-eigh", workshop.EIGH, 17, "hard")]
    page = workshop.exercises_page(track_course)
    assert "| exercise | notebook | level | minutes | label |" in page, "the title is the first, widest column"
    assert f"| Task batched-eigh | {{doc}}`../{workshop.EIGH}` | easy | 8 | `task-1` |" in page
    assert "## Self-check quizzes" in page


def test_without_course_exercises_the_minutes_are_shared(course: Path) -> None:
    assert workshop.exercises(course)[1] == workshop.Exercise("task-1", "Task alpha", "notebooks/alpha/alpha", 20)


def test_course_exercises_must_match_the_exercises(track_course: Path) -> None:
    path = track_course / f"{workshop.EIGH}.ipynb"
    notebook = read_notebook(path)
    notebook["metadata"]["course"]["exercises"].pop()
    write_notebook(path, notebook)
    with pytest.raises(CourseError, match=r"course.exercises lists .* but the notebook's exercise directives are"):
        workshop.exercises(track_course)


def test_an_exercise_without_label_is_a_clear_error(course: Path) -> None:
    path = course / "notebooks" / "beta" / "beta.ipynb"
    notebook = read_notebook(path)
    notebook["cells"][4]["source"] = "```{exercise} No label\nDo it.\n```"
    write_notebook(path, notebook)
    with pytest.raises(CourseError, match=r"the exercise 'No label' \(cell 4\) has no :label:"):
        workshop.exercises(course)


def test_the_index_lists_each_lesson_that_asks_questions() -> None:
    from tools.author import quiz

    page = workshop.exercises_page()
    for entry, (chapter_quiz, questions) in quiz.lesson_questions().items():
        assert f"| {chapter_quiz.title} | {workshop.doc_link(entry)} | {len(questions)} |" in page


# ---- tracks --------------------------------------------------------------------------------------------------------

def check_track(track: workshop.Track) -> None:
    """The properties every track must have."""
    assert workshop.track_problems(track) == []
    slots = track.slots
    assert all(a.start + a.minutes == b.start for a, b in itertools.pairwise(slots)), "no gaps, no overlaps"
    block = 0
    for slot in slots:
        block = block + slot.minutes if slot.lesson else 0
        assert block <= workshop.LONGEST_BLOCK or block == slot.minutes, "a break at least every 90 minutes"
    assert any(slot.what == "Lunch" for slot in slots) is (track.day == "full")
    assert track.length <= track.limit
    text = workshop.track_table(track)
    hours = re.search(r"From (\d\d):(\d\d) to (\d\d):(\d\d): (\d+) h(?: (\d+) min)?", text)
    assert hours, text
    begin, end = int(hours[1]) * 60 + int(hours[2]), int(hours[3]) * 60 + int(hours[4])
    assert end - begin == track.length == int(hours[5]) * 60 + int(hours[6] or 0), "the stated duration adds up"
    for slot in slots:
        if slot.lesson:
            links = " / ".join(workshop.doc_link(entry) for entry in workshop.taught_entries(slot.lesson))
            assert f"| {workshop.clock_time(slot.start)} | {'breakout: ' if slot.lesson.parallel else ''}{links}" \
                in text
            parts = slot.lesson.teaching + slot.exercises + slot.quiz + slot.setup
            assert slot.minutes == parts + workshop.COVER_MINUTES * len(slot.covers), "the slot's minutes add up"
            assert slot.quiz == slot.lesson.questions * workshop.QUIZ_MINUTES, "the quiz is counted"
            kept = slot.lesson.kept(len(slot.kept) or slot.lesson.exercise_count)
            if slot.exercises:
                assert slot.exercises == sum(minutes for _, minutes in kept), "the kept exercises' minutes"
            for label in slot.kept:
                assert label in text, f"the table names the kept exercise {label}"
            assert slot.setup == (workshop.COLAB_SETUP if track.room.colab else 0), "Colab's restart is counted"


@pytest.mark.parametrize("room", workshop.ROOMS, ids=lambda room: room.key)
@pytest.mark.parametrize("day", ["half", "full"])
def test_a_track_teaches_every_objective_within_its_day(track_course: Path, room: workshop.Room, day: str) -> None:
    found = {lesson.entry: lesson for lesson in workshop.lessons(track_course)}
    track = workshop.build_track(room, day, found)
    check_track(track)
    scheduled = {slot.objective for slot in track.slots if slot.lesson}
    assert scheduled >= {o.key for o in workshop.OBJECTIVES if o.half_day or day == "full"}


def test_the_books_tracks_teach_every_objective_within_their_day() -> None:
    found = workshop.tracks()
    assert {(t.room.key, t.day) for t in found} == {(r.key, d) for r in workshop.ROOMS for d in ("half", "full")}
    for track in found:
        check_track(track)
        scheduled = {slot.objective for slot in track.slots if slot.lesson}
        assert scheduled >= {o.key for o in workshop.OBJECTIVES if o.half_day or track.day == "full"}


def test_the_books_tracks_ask_the_questions_of_the_lessons_they_teach() -> None:
    """Every track asks self-check questions, and only in lessons it teaches, each counted in its slot."""
    from tools.author import quiz

    asked = {entry: len(questions) for entry, (_, questions) in quiz.lesson_questions().items()}
    for track in workshop.tracks():
        slots = [slot for slot in track.slots if slot.lesson]
        assert sum(slot.quiz for slot in slots) >= 3 * workshop.QUIZ_MINUTES, f"{track.room.key} {track.day}"
        for slot in slots:
            assert slot.lesson is not None
            expected = max(asked.get(entry, 0) for entry in workshop.taught_entries(slot.lesson))
            assert slot.quiz == expected * workshop.QUIZ_MINUTES, slot.lesson.entry


def test_the_books_tracks_teach_or_cover_every_prerequisite() -> None:
    found = {lesson.entry: lesson for lesson in workshop.lessons()}
    assert found[workshop.COND].prerequisites == (workshop.ACCELERATOR_GRAPH,), "read from the header's links"
    for track in workshop.tracks():
        before: set[str] = set()
        for slot in track.slots:
            if slot.lesson:
                for entry in slot.lesson.prerequisites:
                    assert entry in before or entry in slot.covers, (track.room.key, track.day, slot.lesson.entry)
                before.update(workshop.taught_entries(slot.lesson))


def test_a_prerequisite_neither_taught_nor_covered_is_a_problem(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in workshop.lessons(track_course)}
    found[workshop.KNOBS] = dataclasses.replace(found[workshop.KNOBS], prerequisites=("notebooks/x/unknown",))
    found[workshop.EIGH] = dataclasses.replace(found[workshop.EIGH], prerequisites=(workshop.ACCELERATOR_GRAPH,))
    track = workshop.build_track(workshop.ROOMS[0], "half", found)
    problems = workshop.track_problems(track)
    assert problems == [f"nvidia half day: {workshop.KNOBS} needs notebooks/x/unknown, which is neither taught "
                        "before it nor covered (COVERS)"]
    eigh = next(slot for slot in track.slots if slot.lesson and slot.lesson.entry == workshop.EIGH)
    assert eigh.covers == (workshop.ACCELERATOR_GRAPH,) and "starts with five minutes on" in \
        workshop.track_table(track)


def test_the_mixed_room_has_a_breakout_slot_for_every_platform_lesson() -> None:
    mixed = next(room for room in workshop.ROOMS if room.breakout)
    for track in (t for t in workshop.tracks() if t.room is mixed):
        (breakout,) = [slot for slot in track.slots if slot.lesson and slot.lesson.parallel]
        assert breakout.lesson is not None
        assert workshop.taught_entries(breakout.lesson) == mixed.platform_lessons
        assert breakout.lesson.teaching == max(part.teaching for part in breakout.lesson.parallel)


def test_the_platform_lesson_fits_the_rooms_hardware() -> None:
    lessons = {lesson.entry: lesson for lesson in workshop.lessons()}
    for room in workshop.ROOMS:
        for entry in room.platform_lessons:
            # a breakout's lessons run on their groups' laptops (NVIDIA, Apple silicon, CPU-only)
            hardware = room.platforms | ({"cuda", "mps", "rocm", "xpu"} if room.breakout else set())
            assert set(lessons[entry].platforms) & hardware, f"{entry} does not run in the {room.key} room"


def test_objectives_and_tracks_check_each_other() -> None:
    keys = [objective.key for objective in workshop.OBJECTIVES]
    assert len(keys) == len(set(keys)) and "platform" in keys
    for objective in workshop.OBJECTIVES:
        assert objective.text and (objective.lessons or objective.key == "platform")
    guide = (ROOT / "chapters" / "workshop.md").read_text(encoding="utf-8")
    for objective in workshop.OBJECTIVES:
        assert f"- **{objective.key}**: {objective.text};" in guide, "the guide states every objective"
    for track in workshop.tracks():
        for slot in track.slots:
            assert not slot.lesson or slot.objective in [*keys, "extra"]


def test_a_lesson_the_room_cannot_run_is_a_problem(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in workshop.lessons(track_course)}
    found[workshop.KNOBS] = dataclasses.replace(found[workshop.KNOBS], platforms=("cuda",))
    cpu = next(room for room in workshop.ROOMS if room.key == "cpu")
    problems = workshop.track_problems(workshop.build_track(cpu, "half", found))
    assert any(workshop.KNOBS in problem and "none of which this room runs" in problem for problem in problems)


def test_a_day_too_long_is_a_problem(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in workshop.lessons(track_course)}
    found[workshop.EIGH] = dataclasses.replace(found[workshop.EIGH], teaching=200)
    nvidia = workshop.ROOMS[0]
    problems = workshop.track_problems(workshop.build_track(nvidia, "half", found))
    assert any("more than the 240 of a half day" in problem for problem in problems)


def test_a_full_day_adds_extras_that_fit_and_lists_the_others(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in workshop.lessons(track_course)}
    nvidia = workshop.ROOMS[0]
    track = workshop.build_track(nvidia, "full", found)
    taught = [slot.lesson.entry for slot in track.slots if slot.lesson]
    for extra in nvidia.extras:
        assert (extra in taught) != (found[extra] in track.left_out)


def test_a_half_day_keeps_the_flagship_and_migration_exercises(track_course: Path) -> None:
    found = {lesson.entry: lesson for lesson in workshop.lessons(track_course)}
    for room in workshop.ROOMS:
        track = workshop.build_track(room, "half", found)
        kept = {slot.lesson.entry: slot.exercises for slot in track.slots if slot.lesson}
        assert kept[workshop.EIGH] == found[workshop.EIGH].short_exercise > 0
        assert kept[workshop.UPGRADE] == found[workshop.UPGRADE].short_exercise > 0


# ---- pages ---------------------------------------------------------------------------------------------------------

def test_pages_are_written_then_fresh_then_stale_again(track_course: Path) -> None:
    guide = track_course / "chapters" / "workshop.md"
    assert len(workshop.stale_pages(track_course)) == 2
    assert len(workshop.write_pages(track_course)) == 2
    assert workshop.stale_pages(track_course) == []
    text = guide.read_text()
    assert text.startswith("# Workshop\n\nHand-written text.") and text.endswith("More hand-written text.\n")
    assert "old schedule" not in text and "old objectives" not in text
    assert "### CPU-only laptops or Colab: half day" in text and "### A mixed room: full day" in text
    path = track_course / f"{workshop.KNOBS}.ipynb"
    notebook = read_notebook(path)
    notebook["metadata"]["course"]["minutes"]["teaching"] = 31
    write_notebook(path, notebook)
    assert guide in workshop.stale_pages(track_course), "a change of minutes makes the schedule stale"


def test_a_guide_without_markers_is_a_clear_error(track_course: Path) -> None:
    (track_course / "chapters" / "workshop.md").write_text("# Workshop\n")
    with pytest.raises(CourseError, match="BEGIN GENERATED: schedules"):
        workshop.expected_pages(track_course)


def test_the_committed_pages_are_fresh(capsys: pytest.CaptureFixture[str]) -> None:
    status = workshop.main(["pages", "--check"])
    assert status == 0, capsys.readouterr().out


# ---- timings -------------------------------------------------------------------------------------------------------

def record(folder: Path, name: str, notebook: str, seconds: float, outcome: str = "pass") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps({"schema": 1, "notebook": notebook, "seconds": seconds,
                                           "outcome": outcome}))


def test_measured_seconds_take_the_median_of_passing_records(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    record(runs, "a.json", "notebooks/a/a.ipynb", 10)
    record(runs / "more", "b.json", "notebooks/a/a.ipynb", 30)
    record(runs, "c.json", "notebooks/a/a.ipynb", 20)
    record(runs, "d.json", "notebooks/a/a.ipynb", 900, outcome="fail")
    (runs / "benchmark.json").write_text(json.dumps({"rows": []}))  # not a run record: ignored
    single = tmp_path / "one.json"
    record(tmp_path, "one.json", "notebooks/b/b.ipynb", 5)
    assert workshop.measured_seconds([runs, single]) == {"notebooks/a/a.ipynb": 20, "notebooks/b/b.ipynb": 5}
    with pytest.raises(CourseError, match="no such file or folder"):
        workshop.measured_seconds([tmp_path / "missing"])


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
    record(runs, "eigh.json", f"{workshop.EIGH}.ipynb", 90)
    found = {t.entry: t for t in workshop.timings([runs], track_course)}
    eigh = found[workshop.EIGH]
    size = lesson_size.measure(track_course / f"{workshop.EIGH}.ipynb", run_seconds=90)
    assert eigh.words == size.words and eigh.code_lines == size.visible_code > 0
    assert eigh.teaching == size.teaching_minutes and eigh.exercises == 25
    assert found[workshop.KYA].teaching is None, "a lesson without a record keeps its minutes"
    assert workshop.write_timing(track_course, eigh)
    written = read_notebook(track_course / f"{workshop.EIGH}.ipynb")
    course = written["metadata"]["course"]
    assert course["minutes"] == {"exercises": 25, "teaching": eigh.teaching}
    assert course["timing"]["seconds"] == 90 and course["timing"]["words"] == eigh.words
    assert f"**Time**: {eigh.teaching} minutes of teaching" in cell_source(written["cells"][0]) or \
        "minutes of teaching" not in cell_source(written["cells"][0])
    assert not workshop.write_timing(track_course, found[workshop.KYA])


# ---- Colab runtimes ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("platforms", "gpu"), [(["cuda"], True), (["cuda", "rocm", "xpu"], True),
                                                 (["cuda", "cpu"], False), (["mps"], False), (["cpu"], False)])
def test_colab_gets_a_gpu_runtime_only_where_a_lesson_needs_nvidia(good_notebook: dict[str, Any],
                                                                  platforms: list[str], gpu: bool) -> None:
    good_notebook["metadata"]["course"]["platforms"] = platforms
    good_notebook["metadata"]["colab"] = {"provenance": [], "gpuType": "A100"}
    good_notebook["metadata"]["accelerator"] = "GPU"
    result = workshop.colab_runtime(good_notebook)
    if gpu:
        assert result["metadata"]["accelerator"] == "GPU"
        assert result["metadata"]["colab"] == {"provenance": [], "gpuType": workshop.COLAB_GPU}
    else:
        assert "accelerator" not in result["metadata"] and result["metadata"]["colab"] == {"provenance": []}
    assert workshop.colab_runtime(result) == result, "setting it twice changes nothing"


def test_every_notebook_opens_on_the_right_colab_runtime() -> None:
    """Run `python -m tools.workshop colab` to fix a failure."""
    assert workshop.colab_problems() == []


# ---- student notebooks ---------------------------------------------------------------------------------------------

def test_student_notebooks(tmp_path: Path) -> None:
    out = tmp_path / "student"
    assert workshop.main(["student", str(out)]) == 0
    originals = notebook_paths()
    assert originals
    for original_path in originals:
        original = read_notebook(original_path)
        path = out / original_path.relative_to(ROOT / "notebooks")
        nbformat.validate(nbformat.read(path, as_version=4))
        student = json.loads(path.read_text())
        assert len(student["cells"]) == len(original["cells"])
        for index, (before, after) in enumerate(zip(original["cells"], student["cells"], strict=True)):
            assert after["metadata"] == before["metadata"], "tags and metadata are kept"
            if "solution" in cell_tags(before):
                assert cell_source(after) == lesson.STUB, "the solution is replaced by the stub, whole"
            else:
                assert after == before, f"cell {index} (a check, the lesson or the setup) is kept as it was"
        assert conventions.exercises(student) == [], "the student notebook still passes the exercise checks"


def test_the_student_folder_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a-file"
    target.write_text("")
    assert workshop.main(["student", str(target)]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err


# ---- student copies --------------------------------------------------------------------------------------------------

@pytest.mark.integration
@pytest.mark.parametrize("entry", ["notebooks/graphs/accelerator-graph", "notebooks/mx-quantization/mx-matmul"])
def test_a_student_copy_runs_and_fails_only_at_the_checks_of_its_missing_solutions(entry: str, tmp_path: Path) -> None:
    """The copy the site publishes, run alone in an empty folder (two quick lessons here; the weekly workflow runs
    `python -m tools.workshop student --check` on all, and tools/execute/engine.py proves the stub against every
    check)."""
    assert workshop.student_copy_problems(entry, tmp_path) == []


@pytest.mark.integration
def test_a_student_copy_whose_later_cell_needs_the_solution_is_reported(tmp_path: Path) -> None:
    """A lesson cell after the exercise that uses the solution's result fails in the student copy: reported."""
    root = tmp_path / "book"
    entry = "notebooks/graphs/accelerator-graph"
    (root / "notebooks" / "graphs").mkdir(parents=True)
    notebook = read_notebook(ROOT / f"{entry}.ipynb")
    from tools.lesson import exercise_cells

    (first, *_) = exercise_cells(notebook, ROOT / f"{entry}.ipynb")
    names = re.findall(r"^(?:def\s+)?(\w+)\s*[=(]", cell_source(notebook["cells"][first.solution]), re.MULTILINE)
    assert names, "the solution defines a name"
    notebook["cells"].append(nbformat.v4.new_code_cell(f"print({names[0]})"))
    write_notebook(root / f"{entry}.ipynb", notebook)
    problems = workshop.student_copy_problems(entry, tmp_path / "run", root)
    assert problems == [f"{entry}: cell {len(notebook['cells']) - 1} failed in the student copy, and it is not the "
                        "check of an exercise"]


def test_student_copies_are_made_of_lessons_with_exercises_only(tmp_path: Path) -> None:
    written = workshop.write_student_notebooks(tmp_path)
    for path in written:
        student = read_notebook(path)
        solutions = [cell for cell in student["cells"] if "solution" in cell_tags(cell)]
        assert solutions and all(cell_source(cell) == lesson.STUB for cell in solutions), path
    lessons = {path.name for path in notebook_paths() if lesson.has_solutions(read_notebook(path))}
    assert {path.name for path in written} == lessons
    with pytest.raises(CourseError, match="under notebooks/ only"):
        workshop.student_path("chapters/workshop")
