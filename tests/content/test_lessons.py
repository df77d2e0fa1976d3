"""Every lesson as committed follows the course's rules: the static step of `make test` (`pytest tests/content -x`).

Each test names the fix in its message; the checks themselves (and the inputs on which each fails) are unit-tested
in tests/test_conventions.py, tests/test_stamp.py and tests/test_lesson_size.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.author.stamp import drifted, stamped_cells
from tools.checks import conventions, lesson_size
from tools.course import ROOT, cell_tags, notebook_paths, read_notebook
from tools.lesson import HIDES_SOURCE

NOTEBOOKS = notebook_paths()


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks found under notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_follows_the_conventions(path: Path) -> None:
    """Stored without outputs; header, course metadata and kernelspec; install and setup cells; assertions;
    exercises with hidden solutions and asserting checks; alt texts, font sizes and cell lengths."""
    assert conventions.notebook_problems(path) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_stamped_cells_match_their_snippets(path: Path) -> None:
    assert drifted(path) == [], "run `python -m tools.author.stamp` (edit tools/snippets/, never the copy)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_is_within_the_size_limits(path: Path) -> None:
    problems = lesson_size.measure(path).problems() + lesson_size.exercise_floor_problems(path)
    assert problems == [], "; ".join(problems) + " (`python -m tools.checks.lesson_size NOTEBOOK` measures it)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_every_stamped_cell_is_hidden_in_the_book(path: Path) -> None:
    """A stamped cell is plumbing shared with other lessons or tools (the setup, helpers, the quiz runtime): the book
    hides it, and so does a day's copy (tools/workshop/student.py collapses what the book hides)."""
    shown = [f"stamp:{name}" for cell, name in stamped_cells(read_notebook(path))
             if not set(cell_tags(cell)) & HIDES_SOURCE]
    assert shown == [], f"tag these cells hide-input: {shown}"
