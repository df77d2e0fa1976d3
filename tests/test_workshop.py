"""The workshop kit: schedules that fit their day, a complete exercise index, fresh pages, student notebooks."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tools import conventions, workshop
from tools.course import ROOT, CourseError, cell_source, cell_tags, notebook_paths, read_notebook, write_notebook

GUIDE = f"""# Workshop

Hand-written text.

{workshop.BEGIN.format(name="schedules")}
old schedule
{workshop.END.format(name="schedules")}

More hand-written text.
"""


def make_course(root: Path, notebook: dict[str, Any], minutes: dict[str, tuple[int, int]]) -> None:
    """A small course: one notebook per entry of `minutes` (name -> teaching, exercises), in _toc.yml order."""
    (root / "chapters").mkdir(parents=True)
    (root / "chapters" / "workshop.md").write_text(GUIDE)
    (root / "intro.md").write_text("# Intro\n")
    toc = ["format: jb-book", "root: intro", "chapters:"]
    for index, (name, (teaching, exercises)) in enumerate(minutes.items()):
        lesson = copy.deepcopy(notebook)
        lesson["metadata"]["course"]["minutes"] = {"teaching": teaching, "exercises": exercises}
        lesson["cells"][0]["source"] = lesson["cells"][0]["source"].replace("# A lesson", f"# Lesson {name}")
        lesson["cells"][3]["source"] = f"```{{exercise}} Task {name}\n:label: task-{index}\nDo it.\n```"
        path = root / "notebooks" / name / f"{name}.ipynb"
        path.parent.mkdir(parents=True)
        write_notebook(path, lesson)
        toc.append(f"  - file: notebooks/{name}/{name}")
    (root / "_toc.yml").write_text("\n".join(toc) + "\n")


@pytest.fixture
def course(tmp_path: Path, good_notebook: dict[str, Any]) -> Path:
    # _toc.yml order (zeta before alpha) differs from the alphabetical order on disk, on purpose.
    make_course(tmp_path, good_notebook, {"zeta": (30, 10), "alpha": (50, 20), "beta": (25, 5), "gamma": (40, 10),
                                          "delta": (60, 15), "eps": (20, 5), "eta": (45, 15), "theta": (30, 10)})
    return tmp_path


def test_lessons_follow_the_table_of_contents(course: Path) -> None:
    assert [lesson.entry.split("/")[-1] for lesson in workshop.lessons(course)][:3] == ["zeta", "alpha", "beta"]


@pytest.mark.parametrize("length", [workshop.HALF_DAY, workshop.FULL_DAY])
def test_a_schedule_fits_its_day(course: Path, length: int) -> None:
    lessons = workshop.lessons(course)
    slots, left_out = workshop.schedule(lessons, length)
    end = slots[-1].start + slots[-1].minutes
    assert end - workshop.START <= length
    assert all(a.start + a.minutes == b.start for a, b in itertools.pairwise(slots)), "no gaps, no overlaps"
    taught = [slot.lesson for slot in slots if slot.lesson]
    assert sorted(taught + left_out, key=lessons.index) == lessons, "each lesson is taught or listed as left out"
    assert taught == sorted(taught, key=lessons.index), "book order"
    block = 0
    for slot in slots:
        block = block + slot.minutes if slot.lesson else 0
        assert block <= workshop.LONGEST_BLOCK or block == slot.minutes, "a break at least every 90 minutes"
    assert any(slot.what == "Break" for slot in slots)
    assert any(slot.what == "Lunch" for slot in slots) is (length == workshop.FULL_DAY)
    assert end - workshop.START >= length - 60, "the day is mostly used"


def test_the_pre_flight_opens_the_day(course: Path, good_notebook: dict[str, Any]) -> None:
    preflight = course / f"{workshop.PREFLIGHT}.ipynb"
    preflight.parent.mkdir(parents=True)
    write_notebook(preflight, good_notebook)
    slots, _ = workshop.schedule(workshop.lessons(course), workshop.HALF_DAY)
    assert slots[0].lesson is not None and slots[0].lesson.entry == workshop.PREFLIGHT


def test_the_exercise_index_lists_every_exercise(course: Path) -> None:
    found = workshop.exercises(course)
    assert [e.label for e in found] == [f"task-{i}" for i in range(8)]
    assert found[1] == workshop.Exercise("task-1", "Task alpha", "notebooks/alpha/alpha", 20)
    page = workshop.exercises_page(course)
    assert "| `task-1` | Task alpha | {doc}`../notebooks/alpha/alpha` | 20 |" in page


def test_an_exercise_without_label_is_a_clear_error(course: Path) -> None:
    path = course / "notebooks" / "beta" / "beta.ipynb"
    notebook = read_notebook(path)
    notebook["cells"][3]["source"] = "```{exercise} No label\nDo it.\n```"
    write_notebook(path, notebook)
    with pytest.raises(CourseError, match="'No label' has no :label:"):
        workshop.exercises(course)


def test_pages_are_written_then_fresh_then_stale_again(course: Path) -> None:
    guide = course / "chapters" / "workshop.md"
    assert len(workshop.stale_pages(course)) == 2
    assert len(workshop.write_pages(course)) == 2
    assert workshop.stale_pages(course) == []
    text = guide.read_text()
    assert text.startswith("# Workshop\n\nHand-written text.") and text.endswith("More hand-written text.\n")
    assert "old schedule" not in text and "### Half day" in text and "### Full day" in text
    path = course / "notebooks" / "zeta" / "zeta.ipynb"
    notebook = read_notebook(path)
    notebook["metadata"]["course"]["minutes"]["teaching"] = 31
    write_notebook(path, notebook)
    assert guide in workshop.stale_pages(course), "a change of minutes makes the schedule stale"


def test_a_guide_without_markers_is_a_clear_error(course: Path) -> None:
    (course / "chapters" / "workshop.md").write_text("# Workshop\n")
    with pytest.raises(CourseError, match="BEGIN GENERATED: schedules"):
        workshop.expected_pages(course)


def test_the_committed_pages_are_fresh(capsys: pytest.CaptureFixture[str]) -> None:
    status = workshop.main(["pages", "--check"])
    assert status == 0, capsys.readouterr().out


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
                assert cell_source(after) == workshop.STUB, "the solution is replaced by the stub, whole"
            else:
                assert after == before, f"cell {index} (a check, the lesson or the setup) is kept as it was"
        assert conventions.exercises(student) == [], "the student notebook still passes the exercise checks"


def test_the_student_folder_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "a-file"
    target.write_text("")
    assert workshop.main(["student", str(target)]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err
