"""The chapter quizzes: valid sources, generated cells that match them, a static rendering and a live form."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tools import quiz
from tools.course import ROOT, CourseError, cell_source, cell_tags, practice_chapters, read_notebook, write_notebook

QUIZZES = quiz.quizzes()


def test_every_practice_chapter_has_one_quiz_of_three_to_five_questions() -> None:
    assert [q.chapter for q in QUIZZES] == [c.stem for c in practice_chapters()]
    for each in QUIZZES:
        assert quiz.MIN_QUESTIONS <= len(each.questions) <= quiz.MAX_QUESTIONS, each.chapter
        assert each.notebook == next(c for c in practice_chapters() if c.stem == each.chapter).notebooks[-1]


def test_generated_snippets_match_their_quizzes() -> None:
    assert quiz.stale_snippets() == [], "run `python -m tools.quiz snippets`"


def _run_snippet(source: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], dict[str, Any]]:
    """Run a quiz cell outside a kernel; return what it displayed and its namespace."""
    import IPython.display

    shown: list[Any] = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kwargs: shown.append(obj))
    namespace: dict[str, Any] = {"__name__": "quiz_cell"}
    exec(compile(source, "quiz_cell", "exec"), namespace)
    return shown, namespace


@pytest.mark.parametrize("each", QUIZZES, ids=lambda q: q.chapter)
def test_the_cell_shows_every_answer_in_a_toggle_and_its_form_gives_feedback(
        each: quiz.Quiz, monkeypatch: pytest.MonkeyPatch) -> None:
    shown, namespace = _run_snippet(quiz.render(each), monkeypatch)
    page = shown[0].data
    assert page.count("<details><summary>Answer</summary>") == len(each.questions)
    for number, question in enumerate(each.questions, 1):
        correct = quiz.LETTERS[question.answer]
        answer = page.split("<summary>Answer</summary>")[number].split("</details>")[0]
        assert answer.startswith(f"<p>({correct}) "), f"question {number}: the toggle shows another choice"
    assert "application/vnd.jupyter.widget-view+json" in shown[1]
    form = namespace["form"]
    picks = [child for child in form.children if hasattr(child, "options")]
    button, feedback = form.children[-2], form.children[-1]
    for pick, question in zip(picks, each.questions, strict=True):
        pick.value = question.answer
    button.click()
    assert f"{len(each.questions)} of {len(each.questions)} right" in feedback.value
    picks[0].value = (each.questions[0].answer + 1) % len(each.questions[0].choices)
    picks[-1].value = None
    button.click()
    assert f"{len(each.questions) - 2} of {len(each.questions)} right" in feedback.value
    assert "1. not quite" in feedback.value and f"{len(each.questions)}. not answered yet" in feedback.value


def test_the_cell_works_without_ipywidgets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import raises ImportError
    shown, namespace = _run_snippet(quiz.render(QUIZZES[0]), monkeypatch)
    assert len(shown) == 1 and "<details>" in shown[0].data and "form" not in namespace


def test_the_cell_runs_in_a_kernel_with_no_repository_files(tmp_path: Path) -> None:
    """The stamped cell alone, executed where no course file is (as on Colab)."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(quiz.render(QUIZZES[0]))])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(notebook, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = notebook.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data", "display_data"]
    assert "<summary>Answer</summary>" in outputs[0].data["text/html"]
    assert outputs[1].data["text/plain"] == "(in a live notebook, an answer form appears here)"
    assert "application/vnd.jupyter.widget-view+json" in outputs[1].data


# ---- validation and attach, on a small book of their own ----------------------------------------------------------

GOOD = {"questions": [{"text": f"Question {n}?", "choices": ["yes", "no"], "answer": 1, "reason": "Because."}
                      for n in range(3)]}


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
    return tmp_path


def _write(book: Path, data: Any, name: str = "one") -> None:
    (book / "quizzes" / f"{name}.yml").write_text(yaml.safe_dump(data, allow_unicode=True))


def test_a_valid_quiz_is_read(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    (found,) = quiz.quizzes(_book(tmp_path, good_notebook))
    assert (found.chapter, found.title, found.notebook, found.snippet) == (
        "one", "Chapter one", "notebooks/one/last", "quiz_one")
    assert found.questions[0] == quiz.Question("Question 0?", ("yes", "no"), 1, "Because.")


@pytest.mark.parametrize(("change", "message"), [
    (lambda q: q["questions"].pop(), "has 2 question(s); a quiz has 3 to 5"),
    (lambda q: q["questions"][1].update(answer=2), "question 2: 'answer' must be the index (from 0) of the correct "
                                                   "choice, 0 to 1; got 2"),
    (lambda q: q["questions"][0].update(answer=True), "question 1: 'answer' must be the index"),
    (lambda q: q["questions"][2].pop("reason"), "question 3: needs exactly the keys"),
    (lambda q: q["questions"][0].update(reason="one\ntwo"), "question 1, reason must be one line"),
    (lambda q: q["questions"][0].update(choices=["same", "same"]), "question 1: two choices are the same"),
    (lambda q: q["questions"][0].update(choices=["only"]), "'choices' must be a list of 2 to 6 choices"),
    (lambda q: q.update(title="extra"), "must hold one key, 'questions'"),
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
  - text: Question 0?
    choices: [up, down]
    answer: 1
    reason: {reason}
  - text: Question 1?
    choices:
      - up
      - down
    answer: 1
    reason: Because.
  - text: Question 2?
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
    (lambda raw: raw.format(reason="Fixed in #1 and #2; see both."), 6),
    (lambda raw: raw.format(reason="Fixed.").replace("      - down\n", "      - down #1\n"), 10),
    (lambda raw: raw.format(reason="Fixed.").replace("text: Question 2?", "text: Is C #1?"), 13),
    (lambda raw: raw.format(reason="Fixed.").replace("answer: 1", "answer: 1  # index from 0", 1), 5),
    (lambda raw: raw.format(reason="Fixed.").replace("  - text: Question 1?", "  # a note\n  - text: Question 1?"), 7),
    (lambda raw: raw.format(reason="Fixed.") + "# a closing note\n", 17),
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
        quiz.render(found, book)


def test_attach_appends_once_and_restamps(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    book = _book(tmp_path, good_notebook)
    last = book / "notebooks" / "one" / "last.ipynb"
    before = len(read_notebook(last)["cells"])
    assert quiz.attach(book) == [book / "tools" / "snippets" / "quiz_one.py", last]
    cells = read_notebook(last)["cells"]
    assert len(cells) == before + 2
    heading, cell = cells[-2:]
    assert cell_source(heading).startswith("## Self-check quiz")
    assert cell_tags(cell) == ["stamp:quiz_one", "remove-input"]
    assert cell_source(cell) == (book / "tools" / "snippets" / "quiz_one.py").read_text().rstrip("\n")
    assert len(read_notebook(book / "notebooks" / "one" / "first.ipynb")["cells"]) == before
    assert quiz.attach(book) == [], "a second attach changes nothing"
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    data["questions"][0]["text"] = "A reworded question?"
    _write(book, data)
    assert quiz.attach(book) == [book / "tools" / "snippets" / "quiz_one.py", last]
    cells = read_notebook(last)["cells"]
    assert len(cells) == before + 2 and "A reworded question?" in cell_source(cells[-1])


def test_list_names_chapter_questions_and_notebook(capsys: pytest.CaptureFixture[str]) -> None:
    assert quiz.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(QUIZZES)
    assert lines[0].split() == ["batched-eigh", str(len(QUIZZES[0].questions)), "questions",
                                "notebooks/batched-eigh/batched-eigh.ipynb"]


def test_the_quizzes_are_in_the_repository_root() -> None:
    assert all(q.source.parent == ROOT / "quizzes" for q in QUIZZES)
