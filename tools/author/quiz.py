"""Self-check quizzes: one YAML source per chapter; each question is asked at the end of the lesson that teaches it.

    python -m tools.author.quiz list            every lesson with questions: chapter, lesson, number of questions
    python -m tools.author.quiz attach          give each lesson with questions a "## Self-check quiz" section: the
                                                stamped quiz runtime (tools/snippets/quiz.py) and a cell of its
                                                questions as data; remove quiz cells where a lesson has none
    python -m tools.author.quiz attach --check  exit 1 and name each notebook whose quiz cells differ
    python -m tools.author.quiz room            write instructors/quiz-room.md: every question without its answer,
                                                for a projector or a printout; the instructor opens each answer
    python -m tools.author.quiz room --check    exit 1 when that page is stale

A quiz file `quizzes/<chapter>.yml` (the stem of the chapter page in _toc.yml) holds 3 to 8 questions. `lesson` is
the stem of the chapter's notebook that teaches the question, `answer` the index (from 0) of the correct choice, and
`reason` one line:

    questions:
      - lesson: accelerator-graph
        text: Which backend implements torch.accelerator.Graph in 2.12.0?
        choices: [CUDA, XPU, MPS]
        answer: 1
        reason: "Only XPU registers an implementation, in 2.12.0."

YAML reads an unquoted ` #` as the start of a comment and drops the rest of the line without a word, so a quiz file
may hold comments only in its header, above `questions:`; anywhere else a comment is an error. Quote a value that
contains ` #` (as above).

The runtime needs no file of the repository (it runs on Colab): it shows every question with its choices and the
answer in a closed <details> toggle with its reason (what the static book shows) and, where ipywidgets imports, a form
with a Check button that gives feedback. `show_quiz(QUIZ, room=True)` shows no answers until a Reveal button is
pressed: the live version of the room page.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import html
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tools.course import (
    ROOT,
    SNIPPETS,
    CourseError,
    cell_source,
    cell_tags,
    notebook_paths,
    practice_chapters,
    read_notebook,
    write_notebook,
)

QUIZZES = "quizzes"
MIN_QUESTIONS, MAX_QUESTIONS = 3, 8
MIN_CHOICES, MAX_CHOICES = 2, 6
LETTERS = "abcdef"
HEADING = "## Self-check quiz"
INTRO = (f"{HEADING}\n\nA few questions on this lesson's key points. In the book, open each answer under its "
         "question; in a live notebook, run the two cells below and check your answers with the form.")
WIDTH = 84  # the cell's lines stay within the notebooks' 88 columns
RUNTIME = "quiz"  # the stamped runtime: tools/snippets/quiz.py, tag stamp:quiz
DATA_TAG = "quiz-data"  # the cell that holds a lesson's questions
OLD_TAG = "stamp:quiz_"  # the generated per-chapter quiz cells that the runtime replaced
ROOM_PAGE = Path("instructors") / "quiz-room.md"


@dataclasses.dataclass(frozen=True)
class Question:
    text: str
    choices: tuple[str, ...]
    answer: int
    reason: str
    lesson: str  # the _toc.yml entry of the notebook that asks it, e.g. notebooks/graphs/cond-in-graphs


@dataclasses.dataclass(frozen=True)
class Quiz:
    chapter: str  # the chapter page's stem, e.g. "platform-cuda"
    title: str  # the chapter page's title
    questions: tuple[Question, ...]
    source: Path

    def lessons(self) -> dict[str, tuple[Question, ...]]:
        """Each lesson that asks questions of this quiz, in the quiz's order, with its questions."""
        found: dict[str, list[Question]] = {}
        for question in self.questions:
            found.setdefault(question.lesson, []).append(question)
        return {lesson: tuple(questions) for lesson, questions in found.items()}


def _text(value: Any, where: str, one_line: bool = True) -> str:
    if not isinstance(value, str | int | float) or isinstance(value, bool) or not str(value).strip():
        raise CourseError(f"{where} must be a non-empty string")
    text = str(value).strip()
    if one_line and "\n" in text:
        raise CourseError(f"{where} must be one line")
    if '"""' in text or "\\" in text:
        raise CourseError(f"{where} may not contain a backslash or three double quotes")
    return text


def comments_after_header(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every YAML comment that follows the first key: each one is text YAML would drop.

    PyYAML's scanner skips comments, so they are found between its tokens: whatever lies between the end of one
    token and the start of the next is blank or a comment. Before the first token (the header) comments are allowed.
    """
    tokens = [t for t in yaml.scan(text) if not isinstance(t, yaml.StreamStartToken | yaml.StreamEndToken)]
    lines = text.splitlines()
    found: dict[int, str] = {}
    for before, after in zip(tokens, [*tokens[1:], None], strict=True):
        start = before.end_mark.index
        end = after.start_mark.index if after is not None else len(text)
        first = text.count("\n", 0, start)  # the 0-based line on which the gap starts
        for number, part in enumerate(text[start:end].split("\n"), first + 1):
            if "#" in part:  # a gap holds only blanks and comments, so any '#' in it opens a comment
                found[number] = lines[number - 1].strip()
    return sorted(found.items())


def read_quiz_file(path: Path) -> Any:
    """A quiz file's YAML, read strictly: a CourseError for a comment after the header, where text would be lost."""
    name = f"{path.parent.name}/{path.name}"
    try:
        text = path.read_text(encoding="utf-8")
        comments = comments_after_header(text)
        data = yaml.safe_load(text)
    except FileNotFoundError as error:
        raise CourseError(f"{name}: missing") from error
    except yaml.YAMLError as error:
        raise CourseError(f"{name}: not valid YAML ({error})") from error
    if comments:
        where = "; ".join(f"line {line}: {source}" for line, source in comments)
        raise CourseError(f"{name}: YAML reads an unquoted ' #' as a comment and drops the rest of the line ({where}). "
                          "Quote the value (\"...\"), or move a real comment to the header above 'questions:'")
    return data


def parse(data: Any, path: Path, notebooks: tuple[str, ...]) -> tuple[Question, ...]:
    """The questions of one quiz file, or a CourseError that names the file, the question and the problem.
    `notebooks` are the chapter's lessons (_toc.yml entries), which a question's `lesson` must name by its stem."""
    name = f"{path.parent.name}/{path.name}"
    if not isinstance(data, dict) or set(data) != {"questions"} or not isinstance(data["questions"], list):
        raise CourseError(f"{name}: must hold one key, 'questions', with a list of questions")
    found = data["questions"]
    if not MIN_QUESTIONS <= len(found) <= MAX_QUESTIONS:
        raise CourseError(f"{name}: has {len(found)} question(s); a quiz has {MIN_QUESTIONS} to {MAX_QUESTIONS}")
    questions = []
    for number, item in enumerate(found, 1):
        where = f"{name}, question {number}"
        keys = {"lesson", "text", "choices", "answer", "reason"}
        if not isinstance(item, dict) or set(item) != keys:
            got = sorted(item) if isinstance(item, dict) else type(item).__name__
            raise CourseError(f"{where}: needs exactly the keys {sorted(keys)} (got {got})")
        choices = item["choices"]
        if not isinstance(choices, list) or not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
            raise CourseError(f"{where}: 'choices' must be a list of {MIN_CHOICES} to {MAX_CHOICES} choices")
        texts = tuple(_text(choice, f"{where}, choice {i}") for i, choice in enumerate(choices))
        if len(set(texts)) != len(texts):
            raise CourseError(f"{where}: two choices are the same")
        answer = item["answer"]
        if not isinstance(answer, int) or isinstance(answer, bool) or not 0 <= answer < len(texts):
            raise CourseError(f"{where}: 'answer' must be the index (from 0) of the correct choice, "
                              f"0 to {len(texts) - 1}; got {answer!r}")
        stems = {entry.rsplit("/", 1)[-1]: entry for entry in notebooks}
        if item["lesson"] not in stems:
            raise CourseError(f"{where}: 'lesson' must name one of the chapter's notebooks ({', '.join(stems)}); "
                              f"got {item['lesson']!r}")
        questions.append(Question(_text(item["text"], f"{where}, text"), texts, answer,
                                  _text(item["reason"], f"{where}, reason"), stems[item["lesson"]]))
    return tuple(questions)


def chapter_title(root: Path, entry: str) -> str:
    page = root / f"{entry}.md"
    first = page.read_text(encoding="utf-8").lstrip().split("\n", 1)[0] if page.is_file() else ""
    if not first.startswith("# "):
        raise CourseError(f"{entry}.md: must open with a '# Title' line")
    return first[2:].strip()


def quizzes(root: Path = ROOT) -> list[Quiz]:
    """Every chapter quiz in book order, validated; each practice chapter has exactly one."""
    folder = root / QUIZZES
    chapters = practice_chapters(root)
    known = {chapter.stem for chapter in chapters}
    strays = sorted(p.name for p in folder.glob("*.y*ml") if p.stem not in known) if folder.is_dir() else []
    if strays:
        raise CourseError(f"{QUIZZES}/: {', '.join(strays)} match(es) no chapter (known: {', '.join(sorted(known))})")
    found = []
    for chapter in chapters:
        path = folder / f"{chapter.stem}.yml"
        if not path.is_file():
            raise CourseError(f"{QUIZZES}/{chapter.stem}.yml: missing (every chapter of {chapter.part!r} has a quiz)")
        if not chapter.notebooks:
            raise CourseError(f"{chapter.entry}: has no notebook to attach its quiz to")
        found.append(Quiz(chapter.stem, chapter_title(root, chapter.entry),
                          parse(read_quiz_file(path), path, chapter.notebooks), path))
    return found


def lesson_questions(root: Path = ROOT) -> dict[str, tuple[Quiz, tuple[Question, ...]]]:
    """Every lesson that asks questions (its _toc.yml entry), with its chapter's quiz and its questions."""
    return {lesson: (quiz, questions) for quiz in quizzes(root) for lesson, questions in quiz.lessons().items()}


# ---- rendering ---------------------------------------------------------------------------------------------------

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
    return "\n".join(lines)


def runtime_source(root: Path = ROOT) -> str:
    path = root / SNIPPETS.relative_to(ROOT) / f"{RUNTIME}.py"
    if not path.is_file():
        raise CourseError(f"{path}: the quiz runtime is missing")
    return path.read_text(encoding="utf-8").rstrip("\n")


@functools.cache
def _runtime(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "quiz_runtime"}
    exec(compile(source, "quiz_runtime", "exec"), namespace)  # the runtime the notebooks carry
    return namespace


def runtime(root: Path = ROOT) -> dict[str, Any]:
    """The stamped runtime's functions and LABELS, run once per source."""
    return _runtime(runtime_source(root))


def read_back(text: str, root: Path = ROOT) -> list[dict[str, Any]]:
    """QUIZ text parsed by the runtime's own parser."""
    return runtime(root)["read_quiz"](text)


def static_html(questions: tuple[Question, ...], labels: dict[str, str], root: Path = ROOT) -> str:
    """What the lesson's quiz cell shows in the book (the runtime's static_quiz), for these questions and words."""
    found = runtime(root)
    as_dicts = [dict(text=q.text, choices=list(q.choices), answer=q.answer, reason=q.reason) for q in questions]
    return str(found["static_quiz"](as_dicts, False, {**found["LABELS"], **labels}).data)


def runtime_labels(root: Path = ROOT) -> dict[str, str]:
    """The quiz's own words (the runtime's LABELS), which an edition translates."""
    return dict(runtime(root)["LABELS"])


def translated(questions: tuple[Question, ...], translate: Callable[[str], str]) -> tuple[Question, ...]:
    """The questions with their text, choices and reasons translated (the answer and lesson unchanged)."""
    return tuple(
        dataclasses.replace(q, text=translate(q.text), choices=tuple(map(translate, q.choices)),
                            reason=translate(q.reason))
        for q in questions
    )


def data_source(quiz: Quiz, questions: tuple[Question, ...], root: Path = ROOT,
                labels: dict[str, str] | None = None) -> str:
    """A lesson's question cell; a CourseError if its text would not read back as the questions. `labels`: the
    quiz's words in an edition's language, which the cell then passes to show_quiz."""
    text = quiz_text(questions)
    expected = [dict(text=q.text, choices=list(q.choices), answer=q.answer, reason=q.reason) for q in questions]
    try:
        same = read_back(text, root) == expected
    except (ValueError, IndexError, KeyError, TypeError):
        same = False
    if not same:
        raise CourseError(f"{quiz.source.name}: a wrapped line would read back wrongly (no line of the text may "
                          "start with 'a) ', 'answer: ' or 'why: '); reword it")
    source = quiz.source.relative_to(root).as_posix()
    lines = [
        "# @title Self-check quiz: run this cell, then check your answers",
        f"# From {source} (written by `make quiz`): edit the YAML.",
        "# On a projector: show_quiz(QUIZ, room=True) hides the answers until revealed.",
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
            "metadata": {"tags": tags, "jupyter": {"source_hidden": True}, "colab": {"cellView": "form"}}}


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
    """Every lesson's questions without their answers; each answer in a closed toggle that the instructor opens.
    An edition passes `translate` for the questions and its word for `answer`; the rest of the page stays English
    here, for the page's own catalog to translate."""
    as_html = runtime(root)["as_html"]  # quiz text as HTML, as the lessons' cells show it
    lines = [
        "# Quizzes for the room",
        "",
        "<!-- Generated by `python -m tools.author.quiz room` from quizzes/*.yml; do not edit by hand. -->",
        "",
        "Each lesson's self-check questions, for a projector or a printout: the answers stay closed until you",
        "open them (a printed page leaves them out). In a live notebook, `show_quiz(QUIZ, room=True)` in the",
        "lesson's quiz cell does the same, with a button that reveals the answers.",
    ]
    for quiz in quizzes(root):
        lines += ["", f"## {quiz.title}"]
        for entry, questions in quiz.lessons().items():
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


def stale_room_page(root: Path = ROOT) -> bool:
    path = root / ROOM_PAGE
    return not path.is_file() or path.read_text(encoding="utf-8") != room_page(root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.author.quiz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every lesson with questions")
    attach_command = commands.add_parser("attach", help="write each lesson's quiz cells")
    attach_command.add_argument("--check", action="store_true", help="exit 1 when a notebook's quiz cells differ")
    room = commands.add_parser("room", help=f"write {ROOM_PAGE.as_posix()}")
    room.add_argument("--check", action="store_true", help="exit 1 when the page is stale, change nothing")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            for entry, (quiz, questions) in lesson_questions().items():
                print(f"{quiz.chapter:24} {len(questions)} question(s)  {entry}.ipynb")
        elif args.command == "attach" and args.check:
            stale = list(expected_notebooks())
            for path in stale:
                print(f"{path.relative_to(ROOT)}: its quiz cells differ from quizzes/ "
                      "(run `python -m tools.author.quiz attach`)")
            return 1 if stale else 0
        elif args.command == "attach":
            for path in attach():
                print(f"wrote {path.relative_to(ROOT)}")
        elif args.check:
            if stale_room_page():
                print(f"{ROOM_PAGE.as_posix()} is stale: run `python -m tools.author.quiz room`")
                return 1
        else:
            (ROOT / ROOM_PAGE).write_text(room_page(), encoding="utf-8")
            print(f"wrote {ROOM_PAGE.as_posix()}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
