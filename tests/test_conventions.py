"""Each convention check catches what it should (tests/content/ runs them over every lesson)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tools.checks import conventions
from tools.course import ROOT, notebook_paths, write_notebook


def test_the_fixture_notebook_is_clean(good_notebook: dict[str, Any]) -> None:
    assert [p for check in conventions.CHECKS for p in check(good_notebook)] == []


def test_a_stored_output_is_caught(good_notebook: dict[str, Any]) -> None:
    good_notebook["cells"][3]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "4\n"}]
    good_notebook["cells"][3]["execution_count"] = 3
    assert len(conventions.stored_outputs(good_notebook)) == 2


def test_a_notebook_without_assertions_is_caught(good_notebook: dict[str, Any]) -> None:
    for cell in good_notebook["cells"]:
        if cell["cell_type"] == "code" and "assert" in cell["source"]:
            cell["source"] = "print('looks fine')"
    assert conventions.assertions(good_notebook)


def test_an_incomplete_header_is_caught(good_notebook: dict[str, Any]) -> None:
    good_notebook["cells"][0]["source"] = "# A lesson\n\n**Runs on**: CUDA and CPU."
    problems = conventions.header(good_notebook)
    assert any("What you will learn" in p for p in problems)
    assert any("ROCm" in p for p in problems)


def test_missing_metadata_is_caught(good_notebook: dict[str, Any]) -> None:
    good_notebook["metadata"]["course"]["platforms"] = ["tpu"]
    del good_notebook["metadata"]["course"]["minutes"]
    assert len(conventions.metadata(good_notebook)) == 2


def test_a_visible_solution_is_caught(good_notebook: dict[str, Any]) -> None:
    del good_notebook["cells"][5]["metadata"]["jupyter"]
    assert any("source_hidden" in p for p in conventions.exercises(good_notebook))


def test_a_solution_without_a_check_is_caught(good_notebook: dict[str, Any]) -> None:
    good_notebook["cells"][6]["source"] = "print(total)"
    assert any("must assert" in p for p in conventions.exercises(good_notebook))


def test_a_missing_setup_cell_is_caught(good_notebook: dict[str, Any]) -> None:
    good_notebook["cells"][2]["metadata"]["tags"] = ["hide-input"]
    assert conventions.setup_cell(good_notebook)


def _book_copy(tmp_path: Path) -> Path:
    """A copy of the book's table of contents and pages, to break without touching the repository."""
    for name in ("_toc.yml", "_config.yml", "index.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("chapters", "notebooks", "instructors"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    return tmp_path


def test_an_orphaned_notebook_is_caught(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    book = _book_copy(tmp_path)
    write_notebook(book / "notebooks" / "orphan.ipynb", good_notebook)
    assert conventions.toc_problems(book) == ["notebooks/orphan.ipynb is not listed in _toc.yml (an orphaned notebook)"]


def test_a_toc_entry_without_a_file_is_caught(tmp_path: Path) -> None:
    book = _book_copy(tmp_path)
    first_notebook = notebook_paths()[0].relative_to(ROOT)
    (book / first_notebook).unlink()
    problems = conventions.toc_problems(book)
    assert problems == [f"_toc.yml lists {first_notebook.with_suffix('').as_posix()!r}, "
                        f"but there is no {first_notebook.with_suffix('').as_posix()}.md or "
                        f"{first_notebook.with_suffix('').as_posix()}.ipynb"]


def test_a_solution_without_toggle_prompts_is_caught(good_notebook: dict[str, Any]) -> None:
    del good_notebook["cells"][5]["metadata"]["mystnb"]
    (problem,) = conventions.solution_prompts(good_notebook)
    assert problem.startswith("solution cell 5: add cell metadata") and "Show solution" in problem


def test_exercise_metadata_must_list_each_exercise(good_notebook: dict[str, Any]) -> None:
    course = good_notebook["metadata"]["course"]
    course["exercises"][0]["level"] = "tricky"
    assert "course.exercises[0].level: 'tricky' is not one of" in conventions.metadata(good_notebook)[0]
    course["exercises"] = [{"label": "other", "minutes": 3, "level": "easy"}]
    problems = conventions.metadata(good_notebook)
    assert "lists ['other'] but the notebook's exercise directives are ['add']" in problems[0]
    assert "course.minutes.exercises is 5, but course.exercises adds up to 3 minutes" in problems[1]
    del course["exercises"]
    assert "'exercises' is a required property" in conventions.metadata(good_notebook)[0]


def test_a_figure_without_a_real_alt_text_is_caught(good_notebook: dict[str, Any]) -> None:
    cell = good_notebook["cells"][3]
    cell["source"] = "fig, ax = plt.subplots()\nax.plot([1, 2])"
    assert "cell 3 draws a figure ('plt.subplots'): add cell metadata" in conventions.figure_alt_text(good_notebook)[0]
    cell["metadata"]["mystnb"] = {"image": {"alt": "timings.png"}}
    assert "is not a sentence" in conventions.figure_alt_text(good_notebook)[0]
    cell["metadata"]["mystnb"] = {"image": {"alt": "A line rising from 1 to 2."}}
    assert conventions.figure_alt_text(good_notebook) == []
    cell["source"] = "config.update(fig=None)  # fig.savefig is only mentioned here"
    cell["metadata"] = {}
    assert conventions.figure_alt_text(good_notebook) == []


def test_small_fonts_are_caught(good_notebook: dict[str, Any]) -> None:
    good_notebook["cells"][3]["source"] = "ax.set_title('a', fontsize=9)\nax.legend(fontsize = 7.5)"
    (problem,) = conventions.font_sizes(good_notebook)
    assert problem.startswith("cell 3 sets 'fontsize = 7.5'")


def test_long_cells_are_caught_except_stamped_ones(good_notebook: dict[str, Any]) -> None:
    good_notebook["cells"][3]["source"] = "x = 1\n" * 31
    assert conventions.cell_length(good_notebook) == [
        "code cell 3 has 31 lines: split it into cells of at most 30 lines, one idea each, with prose between them"]
    good_notebook["cells"][3]["source"] = "x = 1\n" * 30
    good_notebook["cells"][2]["source"] = "x = 1\n" * 40  # the stamped setup cell
    assert conventions.cell_length(good_notebook) == []


def test_a_chapter_with_too_few_exercises_is_caught(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: index\nparts:\n"
        "  - caption: Getting started\n    chapters:\n      - file: chapters/intro\n"
        "  - caption: Features\n    chapters:\n      - file: chapters/one\n"
        "        sections:\n          - file: notebooks/one/lesson\n")
    (tmp_path / "notebooks" / "one").mkdir(parents=True)
    write_notebook(tmp_path / "notebooks" / "one" / "lesson.ipynb", good_notebook)
    assert conventions.chapter_problems(tmp_path) == [
        "chapters/one has 1 exercise(s) across its notebooks (notebooks/one/lesson): give it at least 3, "
        "graded easy to hard"]
    good_notebook["cells"] += good_notebook["cells"][4:7] * 2
    write_notebook(tmp_path / "notebooks" / "one" / "lesson.ipynb", good_notebook)
    assert conventions.chapter_problems(tmp_path) == []
