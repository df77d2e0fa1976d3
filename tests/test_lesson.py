"""The lesson model (tools/lesson.py) is the one reader of a lesson's anatomy, and besides nbval tools/execute/kernel.py
(the learner's Run All) the one place that starts kernels: a second parser of the exercise directive or a second
executor fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tools import lesson
from tools.course import ROOT, CourseError

CODE = [path for folder in ("tools", "_ext", "torch_upgrade_scan") for path in sorted((ROOT / folder).rglob("*.py"))]
DIRECTIVE = re.compile(r"```\{exercise|\\\{exercise\\\}")  # the directive as a fence, or as a pattern
KERNEL_LIBRARIES = ("nbclient", "jupyter_client")


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_only_the_lesson_model_parses_the_exercise_directive() -> None:
    parsers = [path.relative_to(ROOT).as_posix() for path in CODE
               if DIRECTIVE.search(path.read_text(encoding="utf-8"))]
    assert parsers == ["tools/lesson.py"], f"ask tools/lesson.py instead of parsing the directive in {parsers}"


def test_only_the_kernel_module_starts_kernels() -> None:
    starters = [path.relative_to(ROOT).as_posix() for path in CODE if _imports(path) & set(KERNEL_LIBRARIES)]
    assert starters == ["tools/execute/kernel.py"], (
        f"run notebooks through nbval (tools/execute/command.py), or as a learner through kernel.py, not {starters}")


def test_the_checks_would_see_a_second_parser(tmp_path: Path) -> None:
    second = tmp_path / "second.py"
    second.write_text('import nbclient\nPATTERN = r"```\\{exercise\\}"\n', encoding="utf-8")
    assert DIRECTIVE.search(second.read_text(encoding="utf-8"))
    assert _imports(second) & set(KERNEL_LIBRARIES)


def _lesson(*cells: dict[str, object], course: dict[str, object] | None = None) -> dict[str, object]:
    return {"cells": list(cells), "metadata": {"course": course} if course is not None else {}}


def _markdown(text: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _code(text: str, *tags: str) -> dict[str, object]:
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text, "outputs": []}


EXERCISE = "```{exercise} Add\n:label: add\n\nAdd two numbers.\n```"
COURSE = {"platforms": ["cpu"], "minutes": {"teaching": 5, "exercises": 5}, "multi_process": False,
          "budget_seconds": 30, "exercises": [{"label": "add", "minutes": 5, "level": "easy"}]}


def test_exercise_cells_pair_each_solution_with_its_check() -> None:
    notebook = _lesson(_markdown(EXERCISE), _code("x = 1 + 1", "solution"), _code("assert x == 2"))
    assert lesson.exercise_cells(notebook, Path("x.ipynb")) == [lesson.ExerciseCells("add", 1, 2)]
    assert lesson.exercise_blocks(notebook) == [lesson.ExerciseBlock(0, "add", "Add")]


@pytest.mark.parametrize("cells, problem", [
    ((_markdown(EXERCISE.replace(":label: add\n", "")), _code("x = 2", "solution"), _code("assert x")), "no ':label:'"),
    ((_markdown(EXERCISE), _code("x = 2"), _code("assert x")), "has no solution cell"),
    ((_code("x = 2", "solution"), _code("assert x")), "no {exercise} directive above it"),
    ((_markdown(EXERCISE), _code("x = 2", "solution")), "no check cell after it"),
    ((_markdown(EXERCISE), _markdown(EXERCISE), _code("x = 2", "solution"), _code("assert x")), "before the next"),
])
def test_exercise_cells_name_what_is_missing(cells: tuple[dict[str, object], ...], problem: str) -> None:
    with pytest.raises(CourseError, match=re.escape(problem)):
        lesson.exercise_cells(_lesson(*cells), Path("x.ipynb"))


def test_metadata_follows_the_schema() -> None:
    notebook = _lesson(_markdown(EXERCISE), course=COURSE)
    assert lesson.metadata_problems(notebook) == []
    broken = {**COURSE, "budget_seconds": 45, "platforms": ["tpu"], "colour": "red"}
    problems = " ".join(lesson.metadata_problems(_lesson(_markdown(EXERCISE), course=broken)))
    assert "course.budget_seconds: 45 is not one of [30, 90]" in problems
    assert "course.platforms[0]: 'tpu' is not one of" in problems
    assert "'colour' was unexpected" in problems


def test_metadata_lists_the_exercises_and_their_minutes_add_up() -> None:
    renamed = {**COURSE, "exercises": [{"label": "sum", "minutes": 5, "level": "easy"}]}
    assert "but the notebook's exercise directives are ['add']" in lesson.metadata_problems(
        _lesson(_markdown(EXERCISE), course=renamed))[0]
    longer = {**COURSE, "minutes": {"teaching": 5, "exercises": 10}}
    assert "adds up to 5 minutes" in lesson.metadata_problems(_lesson(_markdown(EXERCISE), course=longer))[0]
    assert "lacks 'course'" in lesson.metadata_problems(_lesson(_markdown(EXERCISE)))[0]
