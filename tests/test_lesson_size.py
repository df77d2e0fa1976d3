"""The lesson-size check: what it counts, what it leaves out, and that every lesson of the course passes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.checks import lesson_size
from tools.course import write_notebook


def md(text: str, tags: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {"tags": list(tags)}, "source": text}


def code(text: str, tags: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text, "outputs": [],
            "execution_count": None}


def lesson(tmp_path: Path, *cells: dict[str, Any], seconds: float = 0.0) -> Path:
    notebook = {"cells": [md("# Title\n\n**What you will learn** many words here"), *cells],
                "metadata": {"course": {"timing": {"seconds": seconds}}}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "lesson.ipynb"
    write_notebook(path, notebook)
    return path


def test_counts_prose_and_code_of_the_teaching_cells_only(tmp_path: Path) -> None:
    path = lesson(
        tmp_path,
        code("# Setup\nimport torch\n", tags=("stamp:setup", "hide-input")),
        md("One two three.\n\n```python\nx = 1\n# a comment\ny = 2\n```\n"),
        code("x = 1\n\n# only a comment\ny = x + 1\n"),
        code("helper = 1\n", tags=("hide-input",)),
        md("```{exercise} Do it\n:label: ex\n\nMany words of the task.\n```"),
        code("# @title Solution\nanswer = 1\n", tags=("solution", "hide-input")),
        code("assert answer == 1\n"),
        md("## Summary\n\nWords that sum up."),
        md("### A point of the summary\n\nStill the summary."),
        md("## Sources\n\n- [#123456](https://github.com/pytorch/pytorch/pull/123456)"),
    )
    size = lesson_size.measure(path)
    assert size.words == 3  # "One two three.": not the header, the task, the summary or the sources
    assert size.visible_code == 2 + 2  # the fenced block's two lines and the code cell's two
    assert size.hidden_code == 1
    assert size.pr_references == 0 and size.version_branches == 0 and size.problems() == []


def test_a_heading_after_the_closing_section_counts_again(tmp_path: Path) -> None:
    path = lesson(tmp_path, md("## Clean up\n\nGone."), md("## Another topic\n\nfour words of prose"))
    assert lesson_size.measure(path).words == 7  # "## Another topic" and its four words


@pytest.mark.parametrize(("cell", "problem"), [
    (md("word " * (lesson_size.MAX_WORDS + 1)), "words of prose"),
    (code("x = 1\n" * (lesson_size.MAX_VISIBLE_CODE + 1)), "visible code lines"),
    (code("x = 1\n" * (lesson_size.MAX_HIDDEN_CODE + 1), tags=("hide-input",)), "hidden code lines"),
    (md("Added in [#175699](https://github.com/pytorch/pytorch/pull/175699)."), "PR or issue number"),
    (md("See pytorch/pytorch#136040 for the symptom."), "PR or issue number"),
    (code('if torch.__version__ >= "2.13":\n    x = 1\n'), "version branch"),
    (code("newer = tuple(map(int, release.split('.')[:2])) >= (2, 15)\n"), "version branch"),
    (code("%%writefile -a {work}/job.py\nx = 1\n"), "%%writefile -a"),
])
def test_each_limit_fails_a_lesson_over_it(tmp_path: Path, cell: dict[str, Any], problem: str) -> None:
    problems = lesson_size.measure(lesson(tmp_path, cell)).problems()
    assert any(problem in found for found in problems), problems


def test_what_does_not_count_against_a_lesson(tmp_path: Path) -> None:
    path = lesson(
        tmp_path,
        code('if torch.__version__ >= "2.13":\n    x = 1\n', tags=("version-difference",)),
        code('print(f"torch {torch.__version__}")\n'),  # printing the release decides nothing
        md("A claim.[^pr]\n\n[^pr]: [#175699](https://github.com/pytorch/pytorch/pull/175699)"),
        md("Colour #ff0000 and step #3 are not references."),
    )
    size = lesson_size.measure(path)
    assert size.version_branches == 0 and size.pr_references == 0, size


def test_the_timing_rule_counts_the_run_framing_and_questions_and_rounds_up(tmp_path: Path) -> None:
    path = lesson(tmp_path, md("word " * 650), code("x = 1\n" * 60), seconds=120)
    size = lesson_size.measure(path)  # 5 + 4 + 2 (run) + 2 (framing) = 13 minutes
    assert size.objectives == 0 and size.teaching_minutes == 15
    assert lesson_size.measure(path, run_seconds=0).teaching_minutes == 15  # 11 -> 15
    notebook_path = tmp_path / "ideas.ipynb"
    header = md("# T\n\n**What you will learn**\n\n- one idea;\n- a second idea that\n  wraps;\n- a third.\n\n"
                "**Prerequisites**: none.")
    write_notebook(notebook_path, {"cells": [header, md("word " * 650)], "metadata": {}, "nbformat": 4,
                                   "nbformat_minor": 5})
    size = lesson_size.measure(notebook_path)  # 5 + 2 + 3 x 1.5 = 11.5 minutes
    assert size.objectives == 3 and size.teaching_minutes == 15


def test_a_missing_notebook_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert lesson_size.main([str(tmp_path / "missing.ipynb")]) == 2
    assert "no such notebook" in capsys.readouterr().err


