"""The quiz's sources, read and validated: each chapter's questions (quizzes/*.yml) and the runtime that asks them.

A quiz file `quizzes/<chapter>.yml` (the stem of the chapter page in _toc.yml, or of a lesson that is a chapter of its
own, tools.course.QUIZ_LESSONS) holds 3 to 8 questions. `lesson` is
the stem of the chapter's notebook that teaches the question, `answer` the index (from 0) of the correct choice, and
`reason` one line:

    questions:
      - lesson: accelerator-graph
        text: Which backend implements torch.accelerator.Graph in 2.12.0?
        choices: [CUDA, XPU, MPS]
        answer: 1
        reason: "Only XPU registers an implementation, in 2.12.0."
        room: true

A room (the room page, `show_quiz(QUIZ, room=True)`) asks at most ROOM_QUESTIONS questions of a lesson: every
question of a lesson that has ROOM_QUESTIONS or fewer, and of a lesson with more, exactly ROOM_QUESTIONS, each
marked `room: true` (the key is left out of the others). Self-study asks every question.

YAML reads an unquoted ` #` as the start of a comment and drops the rest of the line without a word, so a quiz file
may hold comments only in its header, above `questions:`; anywhere else a comment is an error. Quote a value that
contains ` #` (as above). tools/author/quiz/render.py renders the questions into the lessons and the room
page; `python -m tools.author.quiz` writes them. The runtime, tools/snippets/quiz.py, is stamped into each lesson
with questions; this module runs it to read its own words (LABELS) and, for render.py, its functions.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tools.course import ROOT, SNIPPETS, CourseError, cell_source, quiz_chapters, read_notebook

QUIZZES = "quizzes"
MIN_QUESTIONS, MAX_QUESTIONS = 3, 8
MIN_CHOICES, MAX_CHOICES = 2, 6
RUNTIME = "quiz"  # the stamped runtime: tools/snippets/quiz.py, tag stamp:quiz
ROOM_QUESTIONS = 2  # at most this many of a lesson's questions are asked in a room (the room page, the timing rule)


@dataclasses.dataclass(frozen=True)
class Question:
    text: str
    choices: tuple[str, ...]
    answer: int
    reason: str
    lesson: str  # the _toc.yml entry of the notebook that asks it, e.g. notebooks/graphs/cond-in-graphs
    room: bool = False  # asked in a room too (marked `room: true`, or one of a lesson's ROOM_QUESTIONS or fewer)


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

    def room_lessons(self) -> dict[str, tuple[Question, ...]]:
        """Each lesson's questions that a room is asked (at most ROOM_QUESTIONS), in the quiz's order."""
        return {lesson: tuple(q for q in questions if q.room) for lesson, questions in self.lessons().items()}


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
        if not isinstance(item, dict) or not keys <= set(item) <= keys | {"room"}:
            got = sorted(item) if isinstance(item, dict) else type(item).__name__
            raise CourseError(f"{where}: needs exactly the keys {sorted(keys)}, and 'room' where a room asks it "
                              f"(got {got})")
        if item.get("room", True) is not True:
            raise CourseError(f"{where}: 'room' may only be true (leave it out where a room does not ask the "
                              f"question); got {item['room']!r}")
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
                                  _text(item["reason"], f"{where}, reason"), stems[item["lesson"]],
                                  "room" in item))
    return _room(questions, name)


def _room(questions: list[Question], name: str) -> tuple[Question, ...]:
    """The questions with `room` resolved: all of a lesson with ROOM_QUESTIONS or fewer, else exactly the marked
    ROOM_QUESTIONS (a CourseError naming the lesson and its marked questions otherwise)."""
    numbers: dict[str, list[int]] = {}
    for number, question in enumerate(questions, 1):
        numbers.setdefault(question.lesson, []).append(number)
    resolved = []
    for number, question in enumerate(questions, 1):
        lesson = numbers[question.lesson]
        marked = [n for n in lesson if questions[n - 1].room]
        stem = question.lesson.rsplit("/", 1)[-1]
        if len(lesson) > ROOM_QUESTIONS and len(marked) != ROOM_QUESTIONS:
            which = f" (question {', '.join(map(str, marked))})" if marked else ""
            raise CourseError(f"{name}: lesson {stem!r} has {len(lesson)} questions and marks {len(marked)} "
                              f"'room: true'{which}; a room is asked exactly ROOM_QUESTIONS = {ROOM_QUESTIONS} "
                              "of a lesson with more, so mark that many")
        resolved.append(dataclasses.replace(question, room=len(lesson) <= ROOM_QUESTIONS or number in marked))
    return tuple(resolved)


def chapter_title(root: Path, entry: str) -> str:
    """The title of a chapter page, or of a lesson that is a chapter of its own (its first cell's heading)."""
    notebook = root / f"{entry}.ipynb"
    if notebook.is_file():
        cells = read_notebook(notebook)["cells"]
        page, text = f"{entry}.ipynb", (cell_source(cells[0]) if cells else "")
    else:
        page = f"{entry}.md"
        text = (root / page).read_text(encoding="utf-8") if (root / page).is_file() else ""
    first = text.lstrip().split("\n", 1)[0]
    if not first.startswith("# "):
        raise CourseError(f"{page}: must open with a '# Title' line")
    return first[2:].strip()


def quizzes(root: Path = ROOT) -> list[Quiz]:
    """Every chapter quiz in book order, validated; each chapter of tools.course.quiz_chapters has exactly one."""
    folder = root / QUIZZES
    chapters = quiz_chapters(root)
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



def translated(questions: tuple[Question, ...], translate: Callable[[str], str]) -> tuple[Question, ...]:
    """The questions with their text, choices and reasons translated (the answer and lesson unchanged)."""
    return tuple(
        dataclasses.replace(q, text=translate(q.text), choices=tuple(map(translate, q.choices)),
                            reason=translate(q.reason))
        for q in questions
    )


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


def runtime_labels(root: Path = ROOT) -> dict[str, str]:
    """The quiz's own words (the runtime's LABELS), which an edition translates."""
    return dict(runtime(root)["LABELS"])
