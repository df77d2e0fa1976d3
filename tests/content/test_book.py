"""The book as committed hangs together, and every generated cell and page is fresh: part of the static step of
`make test` (`pytest tests/content -x`). Each message names the command that writes what is stale."""

from __future__ import annotations

from tools.author.quiz import render
from tools.checks import conventions
from tools.workshop import colab, pages


def test_the_toc_and_the_notebooks_agree() -> None:
    assert conventions.toc_problems() == []


def test_each_practice_chapter_has_enough_exercises() -> None:
    assert conventions.chapter_problems() == []


def test_every_notebook_carries_exactly_its_quiz_questions() -> None:
    stale = sorted(path.name for path in render.expected_notebooks())
    assert stale == [], "run `python -m tools.author.quiz attach`"


def test_the_quiz_room_page_is_fresh() -> None:
    assert not render.stale_room_page(), "run `python -m tools.author.quiz room`"


def test_the_workshop_pages_are_fresh() -> None:
    assert pages.stale_pages() == [], "run `python -m tools.workshop pages` (or `make workshop`)"


def test_every_notebook_opens_on_the_right_colab_runtime() -> None:
    assert colab.colab_problems() == [], "run `python -m tools.workshop colab`"
