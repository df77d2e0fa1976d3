"""Every exercise's check rejects the student stub and each wrong answer, and accepts the solution.

The wrong answers live beside this file: tests/exercises/<label>/wrong_<slug>.py, each the complete source of a
solution cell a learner might write, opening with '# Wrong: <what the learner did>'. The course's notebooks are
proved inside `make test`'s one nbval run of each (the one command, tools/execute/command.py:
`NOTEBOOK::exercise[LABEL]` tests); the tests here are the static ones, and the harness
(tools/execute/harness.py) on tests/exercises/fixtures/, a small notebook that shows what it catches.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tools import lesson
from tools.course import ROOT, CourseError, read_notebook, write_notebook
from tools.execute import command, exercises, harness
from tools.records import runs

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "harness.ipynb"
LABELS = harness.course_labels()


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("label", sorted(LABELS))
def test_each_exercise_has_three_wrong_answers(label: str) -> None:
    count = len(harness.wrong_answer_files(label))
    assert count >= harness.MIN_WRONG_ANSWERS, (
        f"{label} ({_name(LABELS[label])}) has {count} wrong answer(s): write at least "
        f"{harness.MIN_WRONG_ANSWERS} as tests/exercises/{label}/wrong_<slug>.py, first line '# Wrong: ...'")


def test_wrong_answers_belong_to_exercises_and_say_what_is_wrong() -> None:
    problems = [p for p in harness.wrong_answer_problems(LABELS) if "wrong answer(s) under" not in p]
    assert problems == []


def _prove(path: Path, folder: Path, *options: str) -> tuple[int, str, dict[str, Any]]:
    """The one command on a copy of a notebook laid out as a lesson (folder/notebooks/fixtures/), the wrong answers
    from fixtures/: exit code, output and its run record."""
    lesson = folder / "notebooks" / "fixtures" / path.name
    lesson.parent.mkdir(parents=True, exist_ok=True)
    write_notebook(lesson, read_notebook(path))
    args = command.notebooks_command(sys.executable, "--rootdir", str(folder), "-c", os.devnull, "--wrong-answers",
                                     str(FIXTURES), "--run-records", str(folder / "records"), *options, jobs=1,
                                     targets=["notebooks"], root=folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(args, cwd=folder, capture_output=True, text=True, timeout=600, env=env, check=False)
    [(_, record)] = runs.load_records(folder / "records")
    return done.returncode, done.stdout + done.stderr, record


@pytest.fixture(scope="module")
def fixture_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    _, output, record = _prove(FIXTURE, tmp_path_factory.mktemp("fixture"))
    return output, record


@pytest.fixture(scope="module")
def fixture_reports(fixture_run: tuple[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {report["label"]: report for report in fixture_run[1]["exercises"]}


def test_a_strong_check_passes(fixture_reports: dict[str, dict[str, Any]]) -> None:
    report = fixture_reports["fixture-mean"]
    assert report["ok"], report
    assert report["wrong_answers"] == 3


def test_a_wrong_answer_that_passes_fails_the_harness(fixture_reports: dict[str, dict[str, Any]]) -> None:
    """The weak check accepts `xs[1]`; the harness names the file and its '# Wrong:' line, and nothing else:
    the answer that defines no function fails although an earlier answer defined one (names are reset)."""
    assert fixture_reports["fixture-largest"]["problems"] == [
        "the check ACCEPTED the wrong answer tests/exercises/fixtures/fixture-largest/wrong_b_second_item.py "
        "('# Wrong: took the second item'): make the check catch this mistake"]


def test_failures_without_a_message_are_reported(fixture_reports: dict[str, dict[str, Any]]) -> None:
    problems = fixture_reports["fixture-bare"]["problems"]
    assert "with the student stub the check failed with AssertionError (no message)" in problems[0]
    assert len(problems) == 4 and all("no message" in p for p in problems[1:])


def test_a_rejected_solution_is_reported_with_the_checks_message(
        fixture_run: tuple[str, dict[str, Any]], fixture_reports: dict[str, dict[str, Any]]) -> None:
    """The real solution runs as a cell of nbval's run: its check cell's test fails, and the record says why."""
    assert fixture_reports["fixture-broken"]["problems"] == [
        "the check REJECTED the real solution: AssertionError: triple(2) should be 7, got 6"]
    output, record = fixture_run
    assert record["failed_cell"]["error"] == "AssertionError: triple(2) should be 7, got 6"
    assert "FAILED notebooks/fixtures/harness.ipynb::exercise[fixture-largest]" in output


def test_a_stub_that_passes_and_a_broken_cell_are_reported(tmp_path: Path) -> None:
    notebook = read_notebook(FIXTURE)
    notebook["cells"] = copy.deepcopy(notebook["cells"][:5])
    notebook["cells"][4]["source"] = 'print("Checked: nothing")'
    notebook["cells"].insert(1, {"cell_type": "code", "id": "zero-division", "metadata": {}, "outputs": [],
                                 "execution_count": None,
                                 "source": "1 / 0"})
    path = tmp_path / "broken.ipynb"
    write_notebook(path, notebook)
    code, output, record = _prove(path, tmp_path / "first")
    assert "FAILED notebooks/fixtures/broken.ipynb::Cell 0" in output
    assert code == 1 and record["failed_cell"] == {"index": 0, "error": "ZeroDivisionError: division by zero"}
    assert record["exercises"][0]["problems"] == ["not checked: an earlier cell failed"]
    del notebook["cells"][1]
    write_notebook(path, notebook)
    code, output, record = _prove(path, tmp_path / "second")
    assert code == 1 and "FAILED notebooks/fixtures/broken.ipynb::exercise[fixture-mean]" in output
    (report,) = record["exercises"]
    assert "PASSED with the student stub" in report["problems"][0]
    assert sum("ACCEPTED the wrong answer" in p for p in report["problems"]) == 3


def test_the_full_run_proves_the_same_and_runs_every_cell(tmp_path: Path) -> None:
    """`make test`'s run: the same reports, the real solutions' outputs kept, the cells after the checks run."""
    notebook = read_notebook(FIXTURE)
    notebook["cells"][15]["source"] = 'print("Checked: triple")'  # fixture-broken's check, now passing
    notebook["cells"][17]["source"] = 'print("after the last check:", mean([1, 3]))'
    path = tmp_path / "full.ipynb"
    write_notebook(path, notebook)
    _, _, record = _prove(path, tmp_path / "run", "--save-executed", str(tmp_path / "executed"))
    assert record["outcome"] == "pass", record["failed_cell"]
    reports = {report["label"]: report for report in record["exercises"]}
    assert reports["fixture-mean"]["ok"] and reports["fixture-mean"]["wrong_answers"] == 3
    assert not reports["fixture-largest"]["ok"]
    executed = read_notebook(Path(record["executed_notebook"]))
    printed = ["".join("".join(out.get("text", "")) for out in cell["outputs"]) for cell in executed["cells"]
               if cell["cell_type"] == "code"]
    assert printed[2:] == ["Checked: mean\n", "", "", "Checked: largest\n", "", "Checked: double\n", "",
                           "Checked: triple\n", "after the last check: 2.0\n"], printed


def test_the_command_line_reports_and_fails(capfd: pytest.CaptureFixture[str]) -> None:
    """`python -m tools.execute.exercises`, an alias of the one command with --exercise / --exercises-only."""
    args = ["--wrong-answers", str(FIXTURES), "--only", "fixture-mean", "--only", "fixture-largest", str(FIXTURE)]
    assert exercises.main(args) == 1
    out = capfd.readouterr().out
    assert "FAILED tests/exercises/fixtures/harness.ipynb::exercise[fixture-largest]" in out
    assert "exercise[fixture-mean]" not in out.split("short test summary")[-1]
    assert "fixture-bare" not in out, "--only proves only the exercises named"
    assert exercises.main(["--only", "no-such-label", str(FIXTURE)]) == 4
    assert "--exercise no-such-label: no such exercise" in capfd.readouterr().err


def test_a_solution_without_its_exercise_or_check_is_a_clear_error(tmp_path: Path) -> None:
    notebook = read_notebook(FIXTURE)
    del notebook["cells"][2]  # the directive of the first exercise
    with pytest.raises(CourseError, match=r"solution cell 2 has no \{exercise\} directive above it"):
        lesson.exercise_cells(notebook, tmp_path / "x.ipynb")
    notebook = read_notebook(FIXTURE)
    notebook["cells"] = notebook["cells"][:4]
    with pytest.raises(CourseError, match=r"solution cell 3 \(fixture-mean\) has no check cell after it"):
        lesson.exercise_cells(notebook, tmp_path / "x.ipynb")


def test_static_problems_are_named(tmp_path: Path) -> None:
    (tmp_path / "known").mkdir()
    (tmp_path / "known" / "wrong_a.py").write_text("def f():\n    pass\n")
    (tmp_path / "stray").mkdir()
    (tmp_path / "fixtures").mkdir()
    problems = harness.wrong_answer_problems({"known": FIXTURE}, tmp_path)
    assert len(problems) == 3, problems
    assert "known" in problems[0] and "has 1 wrong answer(s)" in problems[0]
    assert "wrong_a.py must start with '# Wrong: " in problems[1]
    assert "stray/ matches no exercise label" in problems[2]
