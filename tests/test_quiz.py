"""The quizzes: valid sources, each question asked in the lesson that teaches it through one stamped runtime, a
static rendering, a live form, and a room page without answers."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tools.author import quiz
from tools.author.quiz import render
from tools.author.quiz.__main__ import main as quiz_main
from tools.course import (
    QUIZ_LESSONS,
    ROOT,
    CourseError,
    cell_source,
    cell_tags,
    practice_chapters,
    quiz_chapters,
    read_notebook,
    write_notebook,
)

QUIZZES = quiz.quizzes()
ASKED = quiz.lesson_questions()


def test_every_practice_chapter_has_one_quiz_of_three_to_eight_questions() -> None:
    assert [q.chapter for q in QUIZZES] == [c.stem for c in quiz_chapters()]
    assert {c.stem for c in practice_chapters()} < {q.chapter for q in QUIZZES}
    for each in QUIZZES:
        assert quiz.MIN_QUESTIONS <= len(each.questions) <= quiz.MAX_QUESTIONS, each.chapter


def test_a_lesson_that_is_a_chapter_of_its_own_asks_its_quiz() -> None:
    """The lesson that opens the CPU room's half day is no practice chapter's, and still asks a quiz."""
    for entry in QUIZ_LESSONS:
        (found,) = [q for q in QUIZZES if q.chapter == entry.rsplit("/", 1)[-1]]
        assert set(found.lessons()) == {entry}, found.lessons()
        heading = cell_source(read_notebook(ROOT / f"{entry}.ipynb")["cells"][0]).splitlines()[0]
        assert heading == f"# {found.title}", (heading, found.title)
        assert ASKED[entry][1], f"{entry} asks no question"



def _cell_sources(entry: str) -> str:
    """The runtime and the question cell of a lesson, as one source: what a kernel runs."""
    cells = read_notebook(ROOT / f"{entry}.ipynb")["cells"]
    runtime = [c for c in cells if f"stamp:{quiz.RUNTIME}" in cell_tags(c)]
    data = [c for c in cells if render.DATA_TAG in cell_tags(c)]
    assert len(runtime) == len(data) == 1, entry
    return cell_source(runtime[0]) + "\n" + cell_source(data[0])


def _run_cells(source: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], dict[str, Any]]:
    """Run quiz cells outside a kernel; return what they displayed and their namespace."""
    import IPython.display

    shown: list[Any] = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kwargs: shown.append(obj))
    namespace: dict[str, Any] = {"__name__": "quiz_cell"}
    exec(compile(source, "quiz_cell", "exec"), namespace)
    return shown, namespace


@pytest.mark.parametrize("entry", list(ASKED), ids=lambda e: e.rsplit("/", 1)[-1])
def test_the_cells_show_every_answer_in_a_toggle_and_the_form_gives_feedback(
        entry: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _, questions = ASKED[entry]
    shown, namespace = _run_cells(_cell_sources(entry), monkeypatch)
    page = shown[0].data
    assert page.count("<details><summary>Answer</summary>") == len(questions)
    for number, question in enumerate(questions, 1):
        correct = render.LETTERS[question.answer]
        answer = page.split("<summary>Answer</summary>")[number].split("</details>")[0]
        assert answer.startswith(f"<p>({correct}) "), f"question {number}: the toggle shows another choice"
    assert "application/vnd.jupyter.widget-view+json" in shown[1]
    form = namespace["answer_form"]
    picks = [child for child in form.children if hasattr(child, "options")]
    button, feedback = form.children[-2], form.children[-1]
    for pick, question in zip(picks, questions, strict=True):
        pick.value = question.answer
    button.click()
    assert f"{len(questions)} of {len(questions)} right" in feedback.value
    picks[0].value = (questions[0].answer + 1) % len(questions[0].choices)
    button.click()
    assert f"{len(questions) - 1} of {len(questions)} right" in feedback.value and "1. not quite" in feedback.value
    picks[-1].value = None
    button.click()
    assert f"{len(questions)}. not answered yet" in feedback.value


@pytest.mark.parametrize("entry", [e for e, (_, questions) in ASKED.items() if len(questions) > quiz.ROOM_QUESTIONS],
                         ids=lambda e: e.rsplit("/", 1)[-1])
def test_room_mode_asks_only_the_room_questions_and_shows_no_answer_until_revealed(
        entry: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _cell_sources(entry).replace("show_quiz(QUIZ)", "show_quiz(QUIZ, room=True)")
    shown, namespace = _run_cells(source, monkeypatch)
    _, questions = ASKED[entry]
    room = [q for q in questions if q.room]
    assert len(room) == quiz.ROOM_QUESTIONS < len(questions)
    assert "<details>" not in shown[0].data and "Answer" not in shown[0].data
    as_html = render.runtime()["as_html"]
    assert [as_html(q.text) in shown[0].data for q in questions] == [q.room for q in questions], "the room's only"
    form = namespace["answer_form"]
    button, feedback = form.children[-2], form.children[-1]
    assert len([child for child in form.children if hasattr(child, "options")]) == len(room)
    assert button.description == "Reveal the answers" and feedback.value == ""
    button.click()
    for number, question in enumerate(room, 1):
        assert f"{number}. ({render.LETTERS[question.answer]}) " in feedback.value
    assert f"{len(room) + 1}. (" not in feedback.value


def test_room_mode_without_room_questions_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    source = _cell_sources(next(iter(ASKED))).replace("   room: yes\n", "").replace("show_quiz(QUIZ)",
                                                                                      "show_quiz(QUIZ, room=True)")
    with pytest.raises(ValueError, match="no question to ask: in room mode, mark some 'room: yes'"):
        _run_cells(source, monkeypatch)


def test_the_cells_work_without_ipywidgets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import raises ImportError
    shown, namespace = _run_cells(_cell_sources(next(iter(ASKED))), monkeypatch)
    assert len(shown) == 1 and "<details>" in shown[0].data and namespace["answer_form"] is None


@pytest.mark.integration
def test_the_cells_run_in_a_kernel_with_no_repository_files(tmp_path: Path) -> None:
    """The stamped runtime and a question cell alone, executed where no course file is (as on Colab)."""
    import nbformat
    from nbclient import NotebookClient

    runtime, data = _cell_sources(next(iter(ASKED))).split("\n# @title Self-check quiz")
    cells = [nbformat.v4.new_code_cell(runtime), nbformat.v4.new_code_cell("# @title Self-check quiz" + data)]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert notebook.cells[0].outputs == []
    outputs = notebook.cells[1].outputs
    assert [o.output_type for o in outputs] == ["display_data", "display_data"]
    assert "<summary>Answer</summary>" in outputs[0].data["text/html"]
    assert outputs[1].data["text/plain"] == "(in a live notebook, an answer form appears here)"
    assert "application/vnd.jupyter.widget-view+json" in outputs[1].data


def test_the_room_page_holds_each_lessons_room_questions_with_their_answers_closed() -> None:
    page = render.room_page()
    assert "<details open" not in page
    assert page.count("<details><summary>Answer</summary>") == sum(
        min(len(questions), quiz.ROOM_QUESTIONS) for _, questions in ASKED.values())
    sections = page.split("\n### ")[1:]
    assert len(sections) == len(ASKED)
    for entry, (_, questions) in ASKED.items():
        (section,) = [s for s in sections if s.startswith(f"{{doc}}`../{entry}`")]
        asked = section.count('<div class="course-quiz">')
        assert 1 <= asked <= quiz.ROOM_QUESTIONS, f"{entry}: {asked} questions in the room"
        for question in questions:
            assert (render.runtime()["as_html"](question.text) in section) == question.room, question.text


# A PR or issue number (#123, pull/123, issues/123) on a projector means nothing to a room: the lessons' Sources
# carry them. Fails on any of them in a question, choice or reason of quizzes/*.yml.
NUMBERED = re.compile(r"#\d+|\b(?:pull|issues)/\d+")


def test_no_question_choice_or_reason_names_a_pr_or_issue_number() -> None:
    found = [f"{each.source.name}, question {number}: {match}"
             for each in QUIZZES for number, question in enumerate(each.questions, 1)
             for text in (question.text, *question.choices, question.reason)
             for match in NUMBERED.findall(text)]
    assert found == [], "move these to the lesson's Sources: " + "; ".join(found)
    for bad in ("fixed in #175699", "see pull/175699", "pytorch/pytorch#1", "issues/192483"):
        assert NUMBERED.search(bad), bad
    for fine in ("`# noqa: RULE`", "C# code", "2:4 sparsity", "pull the 12.6 wheel"):
        assert not NUMBERED.search(fine), fine


# ---- validation and attach, on a small book of their own ----------------------------------------------------------

GOOD = {"questions": [{"lesson": "first" if n == 0 else "last", "text": f"Question {n}?", "choices": ["yes", "no"],
                       "answer": 1, "reason": "Because."} for n in range(3)]}


def _book(tmp_path: Path, good_notebook: dict[str, Any]) -> Path:
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: index\nparts:\n"
        "  - caption: Getting started\n    chapters:\n      - file: chapters/intro\n"
        "  - caption: Features\n    chapters:\n      - file: chapters/one\n        sections:\n"
        "          - file: notebooks/one/first\n          - file: notebooks/one/last\n")
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "one.md").write_text("# Chapter one\n\nText.\n")
    (tmp_path / "notebooks" / "one").mkdir(parents=True)
    for name in ("first", "last"):
        write_notebook(tmp_path / "notebooks" / "one" / f"{name}.ipynb", good_notebook)
    (tmp_path / "quizzes").mkdir()
    _write(tmp_path, GOOD)
    (tmp_path / "tools" / "snippets").mkdir(parents=True)
    (tmp_path / "tools" / "snippets" / "quiz.py").write_text((ROOT / "tools" / "snippets" / "quiz.py").read_text())
    return tmp_path


def _write(book: Path, data: Any, name: str = "one") -> None:
    (book / "quizzes" / f"{name}.yml").write_text(yaml.safe_dump(data, allow_unicode=True))


def test_a_valid_quiz_is_read(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    (found,) = quiz.quizzes(_book(tmp_path, good_notebook))
    assert (found.chapter, found.title) == ("one", "Chapter one")
    first = quiz.Question("Question 0?", ("yes", "no"), 1, "Because.", "notebooks/one/first", room=True)
    assert found.questions[0] == first
    assert {lesson: len(questions) for lesson, questions in found.lessons().items()} == {
        "notebooks/one/first": 1, "notebooks/one/last": 2}


def test_a_room_asks_every_question_of_a_small_lesson_and_the_marked_ones_of_a_larger(
        tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    book = _book(tmp_path, good_notebook)
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    data["questions"] += [{**data["questions"][1], "text": f"Question {n}?"} for n in (3, 4)]
    data["questions"][2]["room"] = data["questions"][4]["room"] = True
    _write(book, data)
    (found,) = quiz.quizzes(book)
    assert [q.room for q in found.questions] == [True, False, True, False, True]
    assert {lesson: [q.text for q in questions] for lesson, questions in found.room_lessons().items()} == {
        "notebooks/one/first": ["Question 0?"], "notebooks/one/last": ["Question 2?", "Question 4?"]}
    source = render.data_source(found, found.lessons()["notebooks/one/last"], book)
    assert source.count("   room: yes") == 2
    assert [q["room"] for q in render.read_back(source.split('"""')[1], book)] == [False, True, False, True]
    page = render.room_page(book)
    assert "Question 2?" in page and "Question 4?" in page and "Question 1?" not in page and "Question 3?" not in page


@pytest.mark.parametrize(("change", "message"), [
    (lambda q: q["questions"].pop(), "has 2 question(s); a quiz has 3 to 8"),
    (lambda q: q["questions"][1].update(lesson="elsewhere"), "question 2: 'lesson' must name one of the chapter's "
                                                              "notebooks (first, last); got 'elsewhere'"),
    (lambda q: q["questions"][1].update(answer=2), "question 2: 'answer' must be the index (from 0) of the correct "
                                                   "choice, 0 to 1; got 2"),
    (lambda q: q["questions"][0].update(answer=True), "question 1: 'answer' must be the index"),
    (lambda q: q["questions"][2].pop("reason"), "question 3: needs exactly the keys"),
    (lambda q: q["questions"][0].update(reason="one\ntwo"), "question 1, reason must be one line"),
    (lambda q: q["questions"][0].update(choices=["same", "same"]), "question 1: two choices are the same"),
    (lambda q: q["questions"][0].update(choices=["only"]), "'choices' must be a list of 2 to 6 choices"),
    (lambda q: q.update(title="extra"), "must hold one key, 'questions'"),
    (lambda q: q["questions"][0].update(room="yes"), "question 1: 'room' may only be true"),
    (lambda q: q["questions"][0].update(room=False), "question 1: 'room' may only be true"),
    (lambda q: q["questions"][0].update(extra=1), "question 1: needs exactly the keys"),
    (lambda q: [q["questions"].append({**q["questions"][1], "text": "Question 3?"}),
                [item.update(room=True) for item in q["questions"][1:]]],
     "lesson 'last' has 3 questions and marks 3 'room: true' (question 2, 3, 4); a room is asked exactly "
     "ROOM_QUESTIONS = 2"),
    (lambda q: [q["questions"].append({**q["questions"][1], "text": "Question 3?"}),
                q["questions"][1].update(room=True)],
     "lesson 'last' has 3 questions and marks 1 'room: true' (question 2)"),
    (lambda q: q["questions"].append({**q["questions"][1], "text": "Question 3?"}),
     "lesson 'last' has 3 questions and marks 0 'room: true'; a room is asked exactly"),
])
def test_invalid_quizzes_get_clear_errors(tmp_path: Path, good_notebook: dict[str, Any], change: Any,
                                          message: str) -> None:
    book = _book(tmp_path, good_notebook)
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    change(data)
    _write(book, data)
    with pytest.raises(CourseError, match=r"quizzes/one\.yml") as error:
        quiz.quizzes(book)
    assert message in str(error.value)


# A quiz as a person writes it: a header comment, then the questions, with `{reason}` as the last value.
RAW = """# Self-check quiz for chapters/one.md.
questions:
  - lesson: first
    text: Question 0?
    choices: [up, down]
    answer: 1
    reason: {reason}
  - lesson: last
    text: Question 1?
    choices:
      - up
      - down
    answer: 1
    reason: Because.
  - lesson: last
    text: Question 2?
    choices: [up, down]
    answer: 1
    reason: Because.
"""


def test_quoted_text_with_a_hash_is_kept_whole(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    book = _book(tmp_path, good_notebook)
    (book / "quizzes" / "one.yml").write_text(RAW.format(reason='"Fixed in #1 and #2; see both."'))
    (found,) = quiz.quizzes(book)
    assert found.questions[0].reason == "Fixed in #1 and #2; see both."


@pytest.mark.parametrize(("change", "line"), [
    # How the issue found text cut off (a reason), and the other places an unquoted ' #' or a comment can hide.
    (lambda raw: raw.format(reason="Fixed in #1 and #2; see both."), 7),
    (lambda raw: raw.format(reason="Fixed.").replace("      - down\n", "      - down #1\n"), 12),
    (lambda raw: raw.format(reason="Fixed.").replace("text: Question 2?", "text: Is C #1?"), 16),
    (lambda raw: raw.format(reason="Fixed.").replace("answer: 1", "answer: 1  # index from 0", 1), 6),
    (lambda raw: raw.format(reason="Fixed.").replace("    text: Question 1?", "    # note\n    text: Question 1?"), 9),
    (lambda raw: raw.format(reason="Fixed.") + "# a closing note\n", 20),
])
def test_an_unquoted_hash_fails_instead_of_losing_text(tmp_path: Path, good_notebook: dict[str, Any], change: Any,
                                                        line: int) -> None:
    """YAML would drop the text after an unquoted ' #' without a word; the strict reader names the line instead."""
    book = _book(tmp_path, good_notebook)
    raw = change(RAW)
    (book / "quizzes" / "one.yml").write_text(raw)
    assert yaml.safe_load(raw)["questions"], "plain YAML reads this file without complaint"
    with pytest.raises(CourseError, match=r"quizzes/one\.yml: YAML reads an unquoted ' #' as a comment") as error:
        quiz.quizzes(book)
    assert f"line {line}: {raw.splitlines()[line - 1].strip()}" in str(error.value)


def test_the_course_quizzes_have_comments_only_in_their_headers() -> None:
    for each in QUIZZES:
        assert quiz.comments_after_header(each.source.read_text(encoding="utf-8")) == [], each.source.name


def test_a_missing_or_stray_quiz_is_caught(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    book = _book(tmp_path, good_notebook)
    _write(book, GOOD, "two")
    with pytest.raises(CourseError, match=r"two\.yml match"):
        quiz.quizzes(book)
    (book / "quizzes" / "two.yml").unlink()
    (book / "quizzes" / "one.yml").unlink()
    with pytest.raises(CourseError, match=r"quizzes/one\.yml: missing"):
        quiz.quizzes(book)


def test_text_that_would_read_back_wrongly_is_refused(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    book = _book(tmp_path, good_notebook)
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    data["questions"][0]["text"] = "x " * 40 + "answer: this word starts a wrapped line"
    _write(book, data)
    (found,) = quiz.quizzes(book)
    with pytest.raises(CourseError, match="would read back wrongly"):
        render.data_source(found, found.questions, book)


def test_attach_asks_each_question_in_its_lesson_once(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    book = _book(tmp_path, good_notebook)
    first, last = (book / "notebooks" / "one" / f"{name}.ipynb" for name in ("first", "last"))
    before = len(read_notebook(last)["cells"])
    assert render.attach(book) == [first, last]
    cells = read_notebook(last)["cells"]
    assert len(cells) == before + 3
    heading, runtime, data = cells[-3:]
    assert cell_source(heading).startswith("## Self-check quiz")
    assert cell_tags(runtime) == ["stamp:quiz", "remove-input"] and cell_tags(data) == ["quiz-data", "remove-input"]
    assert "1. Question 1?" in cell_source(data) and "2. Question 2?" in cell_source(data)
    assert "Question 1?" not in cell_source(read_notebook(first)["cells"][-1])
    assert render.attach(book) == [], "a second attach changes nothing"
    data_file = yaml.safe_load(yaml.safe_dump(GOOD))
    data_file["questions"][0]["lesson"] = "last"
    data_file["questions"][0]["room"] = data_file["questions"][2]["room"] = True
    _write(book, data_file)
    assert render.attach(book) == [first, last]
    assert len(read_notebook(first)["cells"]) == before, "a lesson left without questions loses its quiz cells"
    assert "3. Question 2?" in cell_source(read_notebook(last)["cells"][-1])


def test_list_names_chapter_questions_and_lesson(capsys: pytest.CaptureFixture[str]) -> None:
    assert quiz_main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(ASKED)
    assert lines[1].split() == ["batched-eigh", "5", "question(s),", "2", "in", "a", "room",
                                "notebooks/batched-eigh/batched-eigh.ipynb"]


def test_the_quizzes_are_in_the_repository_root() -> None:
    assert all(q.source.parent == ROOT / "quizzes" for q in QUIZZES)
