"""The student-copy check (tools/execute/student_copies.py): a student copy, run alone as a learner runs it, fails
only at the checks after its stubbed solutions, and its command line says so or names what else failed."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from tools.course import ROOT, CourseError, cell_source, read_notebook, write_notebook
from tools.execute import student_copies
from tools.lesson import exercise_cells


@pytest.mark.integration
@pytest.mark.parametrize("entry", ["notebooks/graphs/accelerator-graph", "notebooks/mx-quantization/mx-matmul"])
def test_a_student_copy_runs_and_fails_only_at_the_checks_of_its_missing_solutions(entry: str, tmp_path: Path) -> None:
    """The copy the site publishes, run alone in an empty folder (two quick lessons here; the weekly workflow runs
    `python -m tools.execute.student_copies` on all, and `make test`'s nbval run proves the stub against every
    check)."""
    assert student_copies.student_copy_problems(entry, tmp_path) == []


@pytest.mark.integration
def test_a_student_copy_whose_later_cell_needs_the_solution_is_reported(tmp_path: Path) -> None:
    """A lesson cell after the exercise that uses the solution's result fails in the student copy: reported."""
    root = tmp_path / "book"
    entry = "notebooks/graphs/accelerator-graph"
    for part in ("notebooks", "chapters"):  # the pages the copy's links name
        shutil.copytree(ROOT / part, root / part)
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")  # the book's address, for those links
    notebook = read_notebook(ROOT / f"{entry}.ipynb")
    (first, *_) = exercise_cells(notebook, ROOT / f"{entry}.ipynb")
    names = re.findall(r"^(?:def\s+)?(\w+)\s*[=(]", cell_source(notebook["cells"][first.solution]), re.MULTILINE)
    assert names, "the solution defines a name"
    notebook["cells"].append(nbformat.v4.new_code_cell(f"print({names[0]})"))
    write_notebook(root / f"{entry}.ipynb", notebook)
    problems = student_copies.student_copy_problems(entry, tmp_path / "run", root)
    last = len(notebook["cells"]) - 1
    assert problems == [f"{entry}: cell {last} failed in the student copy, and it is not the check of an exercise",
                        f"{entry}: Run All stops at cell {last} and never reaches the end"]


@pytest.mark.integration
def test_a_check_that_may_not_raise_stops_run_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the raises-exception tag on its checks, a copy's Run All stops at the first unsolved check (as
    JupyterLab's does): reported, though that check failed as it should."""
    entry = "notebooks/mx-quantization/mx-matmul"
    monkeypatch.setattr("tools.workshop.student.RAISES", "no-such-tag")
    problems = student_copies.student_copy_problems(entry, tmp_path)
    assert len(problems) == 1 and problems[0].startswith(f"{entry}: Run All stops at cell "), problems


def test_a_lesson_that_is_not_there_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert student_copies.main(["notebooks/graphs/no-such-lesson"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: notebooks/graphs/no-such-lesson: no such lesson") and err.count("\n") == 1, err


def test_a_lesson_without_exercises_has_no_copy_to_run(tmp_path: Path) -> None:
    entry = "notebooks/intro/intro"
    (tmp_path / "notebooks" / "intro").mkdir(parents=True)
    intro = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Intro")])
    write_notebook(tmp_path / f"{entry}.ipynb", intro)
    with pytest.raises(CourseError, match="has no exercises, so it has no student copy"):
        student_copies.checked_entry(entry, tmp_path)
    assert student_copies.lessons_with_copies(tmp_path) == []


def test_every_lesson_with_exercises_has_a_copy_to_run() -> None:
    entries = student_copies.lessons_with_copies()
    assert "notebooks/graphs/accelerator-graph" in entries
    assert student_copies.checked_entry(f"{entries[0]}.ipynb") == entries[0], "a notebook's path names it too"


@pytest.mark.integration
def test_the_learners_path_names_the_taught_release_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the learner's path (a kernel in another interpreter, here this one), the copy's first output line must name
    the taught torch: it does here; with another taught release (as a venv holding a newer torch would), it fails."""
    entry = "notebooks/mx-quantization/mx-matmul"
    assert student_copies.student_copy_problems(entry, tmp_path / "a", python=sys.executable) == []
    monkeypatch.setattr(student_copies, "taught_release", lambda: "9.9.0")
    [problem] = student_copies.student_copy_problems(entry, tmp_path / "b", python=sys.executable)
    assert problem.startswith(f"{entry}: its first output line does not name torch 9.9.0: 'torch 2.12"), problem


def test_a_missing_interpreter_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert student_copies.main(["--python", "/no/such/python"]) == 2
    assert capsys.readouterr().err == "error: --python /no/such/python: no such interpreter\n"
