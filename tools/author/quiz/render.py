"""The quiz as the lessons and the room show it: each lesson's quiz cells and instructors/quiz-room.md.

The questions come from quizzes/<chapter>.yml, read and validated by tools/author/quiz/__init__.py (which describes
the file); `python -m tools.author.quiz` (tools/author/quiz/__main__.py) writes what this module renders. The runtime
needs no file of the repository (it runs on Colab): it shows every question with its choices and the answer in a
closed <details> toggle with its reason (what the static book shows) and, where ipywidgets imports, a form with a
Check button that gives feedback. `show_quiz(QUIZ, room=True)` shows only the room's questions (those marked
"room: yes", at most ROOM_QUESTIONS) and no answers until a Reveal button is pressed: the live version of the room
page, which lists the same questions.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.author.quiz import (
    ROOM_QUESTIONS,
    RUNTIME,
    Question,
    Quiz,
    lesson_questions,
    quizzes,
    runtime,
    runtime_source,
    translated,
)
from tools.course import (
    ROOT,
    CourseError,
    cell_source,
    cell_tags,
    notebook_paths,
    read_notebook,
    write_notebook,
)

LETTERS = "abcdef"
HEADING = "## Self-check quiz"
INTRO = (f"{HEADING}\n\nA few questions on this lesson's key points. In the book, open each answer under its "
         "question; in a live notebook, run the two cells below and check your answers with the form.")
WIDTH = 84  # the cell's lines stay within the notebooks' 88 columns
DATA_TAG = "quiz-data"  # the cell that holds a lesson's questions
OLD_TAG = "stamp:quiz_"  # the generated per-chapter quiz cells that the runtime replaced
ROOM_PAGE = Path("instructors") / "quiz-room.md"


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False)


def quiz_text(questions: tuple[Question, ...]) -> str:
    """The questions as the plain text the runtime parses: readable as it stands in Colab's code view."""
    lines = []
    for number, question in enumerate(questions, 1):
        lines += _wrap(question.text, f"{number}. ", "   ")
        for letter, choice in zip(LETTERS, question.choices, strict=False):
            lines += _wrap(choice, f"   {letter}) ", "      ")
        lines.append(f"   answer: {LETTERS[question.answer]}")
        lines += _wrap(question.reason, "   why: ", "      ")
        if question.room:
            lines.append("   room: yes")
    return "\n".join(lines)


def read_back(text: str, root: Path = ROOT) -> list[dict[str, Any]]:
    """QUIZ text parsed by the runtime's own parser."""
    return runtime(root)["read_quiz"](text)


def static_html(questions: tuple[Question, ...], labels: dict[str, str], root: Path = ROOT) -> str:
    """What the lesson's quiz cell shows in the book (the runtime's static_quiz), for these questions and words."""
    found = runtime(root)
    as_dicts = [dict(text=q.text, choices=list(q.choices), answer=q.answer, reason=q.reason) for q in questions]
    return str(found["static_quiz"](as_dicts, False, {**found["LABELS"], **labels}).data)



def data_source(quiz: Quiz, questions: tuple[Question, ...], root: Path = ROOT,
                labels: dict[str, str] | None = None) -> str:
    """A lesson's question cell; a CourseError if its text would not read back as the questions. `labels`: the
    quiz's words in an edition's language, which the cell then passes to show_quiz."""
    text = quiz_text(questions)
    expected = [dict(text=q.text, choices=list(q.choices), answer=q.answer, reason=q.reason, room=q.room)
                for q in questions]
    try:
        same = read_back(text, root) == expected
    except (ValueError, IndexError, KeyError, TypeError):
        same = False
    if not same:
        raise CourseError(f"{quiz.source.name}: a wrapped line would read back wrongly (no line of the text may "
                          "start with 'a) ', 'answer: ', 'why: ' or 'room: yes'); reword it")
    source = quiz.source.relative_to(root).as_posix()
    lines = [
        "# @title Self-check quiz: run this cell, then check your answers",
        f"# From {source} (written by `make quiz`): edit the YAML.",
        "# On a projector: show_quiz(QUIZ, room=True) asks only the questions marked",
        "# 'room: yes' and hides the answers until revealed.",
        'QUIZ = """',
        text,
        '"""',
    ]
    if labels is None:
        return "\n".join([*lines, "answer_form = show_quiz(QUIZ)"])
    words = ",\n".join(f"    {key!r}: {value!r}" for key, value in labels.items())
    return "\n".join([*lines, f"QUIZ_LABELS = {{\n{words},\n}}", "answer_form = show_quiz(QUIZ, labels=QUIZ_LABELS)"])


def _hidden(tags: list[str], cell_id: str, source: str) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "outputs": [], "source": source,
            "metadata": {"tags": tags, "jupyter": {"source_hidden": True}, "cellView": "form"}}


def quiz_cells(quiz: Quiz, questions: tuple[Question, ...], root: Path = ROOT) -> list[dict[str, Any]]:
    """The heading, the stamped runtime and the question cell that close a lesson with questions."""
    return [
        {"cell_type": "markdown", "id": "self-check-quiz-heading", "metadata": {}, "source": INTRO},
        _hidden([f"stamp:{RUNTIME}", "remove-input"], "self-check-quiz-runtime", runtime_source(root)),
        _hidden([DATA_TAG, "remove-input"], "self-check-quiz", data_source(quiz, questions, root)),
    ]


def is_quiz_cell(cell: dict[str, Any]) -> bool:
    tags = cell_tags(cell)
    if any(tag.startswith(OLD_TAG) or tag in (f"stamp:{RUNTIME}", DATA_TAG) for tag in tags):
        return True
    return cell.get("cell_type") == "markdown" and cell_source(cell).startswith(HEADING)


def with_quiz(notebook: dict[str, Any], cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The notebook without its quiz cells, then `cells` at its end (outputs of unchanged cells kept)."""
    kept = [cell for cell in notebook["cells"] if not is_quiz_cell(cell)]
    old = {cell.get("id"): cell for cell in notebook["cells"] if is_quiz_cell(cell)}
    added = []
    for cell in cells:
        before = old.get(cell["id"])
        same = before is not None and cell_source(before) == cell["source"] and cell_tags(before) == cell_tags(cell)
        added.append(before if same else cell)
    if notebook.get("nbformat_minor", 0) < 5:  # cells carry ids from nbformat 4.5 on
        added = [{key: value for key, value in cell.items() if key != "id"} for cell in added]
    return {**notebook, "cells": [*kept, *added]}


def expected_notebooks(root: Path = ROOT) -> dict[Path, dict[str, Any]]:
    """Every notebook whose quiz cells differ from its questions, with the cells they should have."""
    asked = lesson_questions(root)
    changed = {}
    for path in notebook_paths(root):
        entry = path.relative_to(root).with_suffix("").as_posix()
        notebook = read_notebook(path)
        cells = quiz_cells(*asked[entry], root) if entry in asked else []
        updated = with_quiz(notebook, cells)
        if updated != notebook:
            changed[path] = updated
    return changed


def attach(root: Path = ROOT) -> list[Path]:
    """Write each lesson's quiz cells (and remove them where a lesson has no questions); return the changed files."""
    changed = expected_notebooks(root)
    for path, notebook in changed.items():
        write_notebook(path, notebook)
    return list(changed)


# ---- the room page -----------------------------------------------------------------------------------------------

def _same(text: str) -> str:
    return text


def room_page(root: Path = ROOT, translate: Callable[[str], str] = _same, answer: str = "Answer") -> str:
    """Each lesson's room questions (at most ROOM_QUESTIONS) without their answers; each answer in a closed toggle
    that the instructor opens.
    An edition passes `translate` for the questions and its word for `answer`; the rest of the page stays English
    here, for the page's own catalog to translate."""
    as_html = runtime(root)["as_html"]  # quiz text as HTML, as the lessons' cells show it
    lines = [
        "# Quizzes for the room",
        "",
        "<!-- Generated by `python -m tools.author.quiz room` from quizzes/*.yml; do not edit by hand. -->",
        "",
        f"The self-check questions a room is asked, at most {ROOM_QUESTIONS} per lesson, for a projector or a",
        "printout: the answers stay closed until you open them (a printed page leaves them out). The lessons ask",
        "every question for self-study. In a live notebook, `show_quiz(QUIZ, room=True)` in the lesson's quiz",
        "cell asks the same questions, with a button that reveals the answers.",
    ]
    for quiz in quizzes(root):
        lines += ["", f"## {quiz.title}"]
        for entry, questions in quiz.room_lessons().items():
            lines += ["", f"### {{doc}}`../{entry}`", ""]
            for number, question in enumerate(translated(questions, translate), 1):
                items = "".join(f"<li>{as_html(choice)}</li>" for choice in question.choices)
                letter = LETTERS[question.answer]
                lines += [
                    f'<div class="course-quiz"><p><strong>{number}. {as_html(question.text)}</strong></p>'
                    f'<ol type="a">{items}</ol>',
                    f"<details><summary>{html.escape(answer)}</summary><p>({letter}) "
                    f"{as_html(question.choices[question.answer])}. {as_html(question.reason)}</p></details></div>",
                    "",
                ]
    return "\n".join(lines).rstrip("\n") + "\n"


def write_room_page(root: Path = ROOT) -> Path:
    """Write the quiz room page; return its path."""
    path = root / ROOM_PAGE
    path.write_text(room_page(root), encoding="utf-8")
    return path


def stale_room_page(root: Path = ROOT) -> bool:
    path = root / ROOM_PAGE
    return not path.is_file() or path.read_text(encoding="utf-8") != room_page(root)
