"""Self-check quizzes: one YAML source per chapter, rendered into a stamped cell of the chapter's last notebook.

    python -m tools.quiz snippets            validate quizzes/*.yml and write tools/snippets/quiz_<chapter>.py
    python -m tools.quiz snippets --check    exit 1 when a generated snippet differs from its quiz
    python -m tools.quiz list                chapter, number of questions, notebook of every quiz
    python -m tools.quiz attach              write the snippets, then give the last notebook of each chapter a
                                             "## Self-check quiz" cell and the stamped quiz cell (idempotent)

A quiz file `quizzes/<chapter>.yml` (the stem of the chapter page in _toc.yml) holds 3 to 5 questions; `answer`
is the index (from 0) of the correct choice, and `reason` is one line:

    questions:
      - text: Which backend implements torch.accelerator.Graph in 2.12.0?
        choices: [CUDA, XPU, MPS]
        answer: 1
        reason: "Only XPU registers an implementation (#176421)."

YAML reads an unquoted ` #` as the start of a comment and drops the rest of the line without a word, so a quiz file
may hold comments only in its header, above `questions:`; anywhere else a comment is an error. Quote a value that
contains ` #` (as above).

The generated cell needs no file of the repository (it runs on Colab): it shows every question with its choices
and the answer in a <details> toggle with its reason (what the static book shows), and, where ipywidgets imports,
a form with a Check button that gives feedback.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml

from tools.course import (
    ROOT,
    CourseError,
    cell_tags,
    practice_chapters,
    read_notebook,
    write_notebook,
)

QUIZZES = "quizzes"
MIN_QUESTIONS, MAX_QUESTIONS = 3, 5
MIN_CHOICES, MAX_CHOICES = 2, 6
LETTERS = "abcdef"
HEADING = "## Self-check quiz"
INTRO = (f"{HEADING}\n\nA few questions on this chapter's key points. In the book, open each answer under its "
         "question; in a live notebook, run the cell below and check your answers with the form.")
WIDTH = 84  # the snippet's lines stay within the notebooks' 88 columns


@dataclasses.dataclass(frozen=True)
class Question:
    text: str
    choices: tuple[str, ...]
    answer: int
    reason: str


@dataclasses.dataclass(frozen=True)
class Quiz:
    chapter: str  # the chapter page's stem, e.g. "platform-cuda"
    title: str  # the chapter page's title
    questions: tuple[Question, ...]
    notebook: str  # the _toc.yml entry of the notebook the quiz attaches to (the chapter's last)
    source: Path

    @property
    def snippet(self) -> str:
        """The snippet's name, which is also the stamp tag's suffix."""
        return "quiz_" + self.chapter.replace("-", "_")


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


def parse(data: Any, path: Path) -> tuple[Question, ...]:
    """The questions of one quiz file, or a CourseError that names the file, the question and the problem."""
    name = f"{path.parent.name}/{path.name}"
    if not isinstance(data, dict) or set(data) != {"questions"} or not isinstance(data["questions"], list):
        raise CourseError(f"{name}: must hold one key, 'questions', with a list of questions")
    found = data["questions"]
    if not MIN_QUESTIONS <= len(found) <= MAX_QUESTIONS:
        raise CourseError(f"{name}: has {len(found)} question(s); a quiz has {MIN_QUESTIONS} to {MAX_QUESTIONS}")
    questions = []
    for number, item in enumerate(found, 1):
        where = f"{name}, question {number}"
        keys = {"text", "choices", "answer", "reason"}
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
        questions.append(Question(_text(item["text"], f"{where}, text"), texts, answer,
                                  _text(item["reason"], f"{where}, reason")))
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
        found.append(Quiz(chapter.stem, chapter_title(root, chapter.entry), parse(read_quiz_file(path), path),
                          chapter.notebooks[-1], path))
    return found


# ---- rendering ---------------------------------------------------------------------------------------------------

def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False)


def quiz_text(quiz: Quiz) -> str:
    """The questions as the plain text the cell parses: readable as it stands in Colab's code view."""
    lines = []
    for number, question in enumerate(quiz.questions, 1):
        lines += _wrap(question.text, f"{number}. ", "   ")
        for letter, choice in zip(LETTERS, question.choices, strict=False):
            lines += _wrap(choice, f"   {letter}) ", "      ")
        lines.append(f"   answer: {LETTERS[question.answer]}")
        lines += _wrap(question.reason, "   why: ", "      ")
    return "\n".join(lines)


# The cell's parser of QUIZ, also run here to prove that the text reads back as the quiz it came from.
READ_QUIZ = r'''def read_quiz(text):
    """Questions as dicts: text, choices, answer (an index) and reason."""
    import re

    questions, field = [], None
    for line in text.strip().splitlines():
        item = re.match(r"(\d+)\. |   ([a-f])\) |   answer: |   why: ", line)
        if item and item.group(1):
            questions.append(dict(text="", choices=[], answer=None, reason=""))
            field = "text"
        elif item and item.group(2):
            questions[-1]["choices"].append("")
            field = "choice"
        elif item and "answer" in item.group(0):
            questions[-1]["answer"] = "abcdef".index(line.split(":")[1].strip())
            continue
        elif item:
            field = "reason"
        words = line[item.end() if item else 0 :].strip()
        if field == "choice":
            choices = questions[-1]["choices"]
            choices[-1] = f"{choices[-1]} {words}".strip()
        else:
            questions[-1][field] = f"{questions[-1][field]} {words}".strip()
    return questions
'''

CELL = r'''# @title Self-check quiz: run this cell, then check your answers
# Generated from __SOURCE__ by tools/quiz.py; do not edit.
from IPython.display import HTML, display

QUIZ = """
__TEXT__
"""


__READ_QUIZ__

def as_html(text):
    """Escape, then show `code` as code."""
    import html
    import re

    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def static_quiz(questions):
    """Every question with its choices, the answer and its reason in a toggle."""
    parts = []
    for number, q in enumerate(questions, 1):
        items = "".join(f"<li>{as_html(c)}</li>" for c in q["choices"])
        letter = "abcdef"[q["answer"]]
        correct = as_html(q["choices"][q["answer"]])
        parts.append(
            f"<p><strong>{number}. {as_html(q['text'])}</strong></p>"
            f'<ol type="a">{items}</ol><details><summary>Answer</summary>'
            f"<p>({letter}) {correct}. {as_html(q['reason'])}</p></details>"
        )
    return HTML('<div class="course-quiz">' + "".join(parts) + "</div>")


def quiz_form(questions, widgets):
    """One set of radio buttons per question and a Check button that gives feedback."""
    picks = [
        widgets.RadioButtons(
            options=[(f"({'abcdef'[i]}) {c}", i) for i, c in enumerate(q["choices"])],
            value=None,
            layout=widgets.Layout(width="auto"),
        )
        for q in questions
    ]
    feedback = widgets.HTML()

    def check(_):
        lines, right = [], 0
        for number, (q, pick) in enumerate(zip(questions, picks, strict=True), 1):
            if pick.value is None:
                lines.append(f"{number}. not answered yet")
                continue
            right += pick.value == q["answer"]
            verdict = "right" if pick.value == q["answer"] else "not quite"
            lines.append(f"{number}. {verdict}: {as_html(q['reason'])}")
        score = f"<p><strong>{right} of {len(questions)} right.</strong></p>"
        feedback.value = score + "<br>".join(lines)

    button = widgets.Button(description="Check my answers", button_style="primary")
    button.on_click(check)
    rows = []
    for number, (q, pick) in enumerate(zip(questions, picks, strict=True), 1):
        rows += [widgets.HTML(f"<strong>{number}. {as_html(q['text'])}</strong>"), pick]
    return widgets.VBox([*rows, button, feedback])


questions = read_quiz(QUIZ)
display(static_quiz(questions))
try:
    import ipywidgets
except ImportError:  # the answers above are in their toggles
    ipywidgets = None
if ipywidgets is not None:
    form = quiz_form(questions, ipywidgets)
    if hasattr(form, "_repr_mimebundle_"):  # ipywidgets 8: a line for static pages
        bundle = form._repr_mimebundle_()
        bundle["text/plain"] = "(in a live notebook, an answer form appears here)"
        display(bundle, raw=True)
    else:
        display(form)
'''


def read_back(text: str) -> list[dict[str, Any]]:
    """QUIZ text parsed by the cell's own parser."""
    namespace: dict[str, Any] = {"re": re}
    exec(READ_QUIZ, namespace)  # the parser that the generated cell carries
    return namespace["read_quiz"](text)


def render(quiz: Quiz, root: Path = ROOT) -> str:
    """The snippet: a self-contained cell that shows the quiz; a CourseError if its text would not read back."""
    text = quiz_text(quiz)
    expected = [dict(text=q.text, choices=list(q.choices), answer=q.answer, reason=q.reason) for q in quiz.questions]
    try:
        same = read_back(text) == expected
    except (ValueError, IndexError, KeyError, TypeError):
        same = False
    if not same:
        raise CourseError(f"{quiz.source.name}: a wrapped line would read back wrongly (no line of the text may "
                          "start with 'a) ', 'answer: ' or 'why: '); reword it")
    return (CELL.replace("__SOURCE__", quiz.source.relative_to(root).as_posix()).replace("__TEXT__", text)
            .replace("__READ_QUIZ__", READ_QUIZ))


def snippet_path(quiz: Quiz, root: Path = ROOT) -> Path:
    return root / "tools" / "snippets" / f"{quiz.snippet}.py"


def stale_snippets(root: Path = ROOT) -> list[Path]:
    stale = []
    for quiz in quizzes(root):
        path = snippet_path(quiz, root)
        if not path.is_file() or path.read_text(encoding="utf-8") != render(quiz, root):
            stale.append(path)
    return stale


def write_snippets(root: Path = ROOT) -> list[Path]:
    """Write every quiz's snippet; return those that changed."""
    changed = stale_snippets(root)
    for quiz in quizzes(root):
        path = snippet_path(quiz, root)
        if path in changed:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(quiz, root), encoding="utf-8")
    return changed


def quiz_cells(quiz: Quiz, root: Path = ROOT) -> list[dict[str, Any]]:
    """The heading cell and the stamped quiz cell that attach appends."""
    return [
        {"cell_type": "markdown", "metadata": {}, "source": INTRO},
        {"cell_type": "code", "execution_count": None, "outputs": [], "source": render(quiz, root).rstrip("\n"),
         "metadata": {"tags": [f"stamp:{quiz.snippet}", "remove-input"], "jupyter": {"source_hidden": True},
                      "colab": {"cellView": "form"}}},
    ]


def attach(root: Path = ROOT) -> list[Path]:
    """Append each quiz to its notebook unless it is there, and stamp the quiz cells; return the changed files."""
    changed = write_snippets(root)
    for quiz in quizzes(root):
        path = root / f"{quiz.notebook}.ipynb"
        notebook = read_notebook(path)
        tag = f"stamp:{quiz.snippet}"
        cells = [cell for cell in notebook["cells"] if tag in cell_tags(cell)]
        source = render(quiz, root).rstrip("\n")
        if not cells:
            added = quiz_cells(quiz, root)
            if notebook.get("nbformat_minor", 0) >= 5:  # nbformat 4.5 cells carry ids
                added[0]["id"], added[1]["id"] = "self-check-quiz-heading", "self-check-quiz"
            notebook["cells"] += added
        elif all("".join(cell["source"]) == source for cell in cells):
            continue
        for cell in notebook["cells"]:
            if tag in cell_tags(cell):
                cell["source"] = source
        write_notebook(path, notebook)
        changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.quiz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    snippets = commands.add_parser("snippets", help="write tools/snippets/quiz_*.py from quizzes/*.yml")
    snippets.add_argument("--check", action="store_true", help="exit 1 when a snippet is stale, change nothing")
    commands.add_parser("list", help="chapter, questions and notebook of every quiz")
    commands.add_parser("attach", help="append each quiz to the last notebook of its chapter, and stamp it")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            for quiz in quizzes():
                print(f"{quiz.chapter:24} {len(quiz.questions)} questions  {quiz.notebook}.ipynb")
        elif args.command == "snippets" and args.check:
            stale = stale_snippets()
            for path in stale:
                print(f"{path.relative_to(ROOT)} differs from its quiz: run `python -m tools.quiz snippets`")
            return 1 if stale else 0
        elif args.command == "snippets":
            for path in write_snippets():
                print(f"wrote {path.relative_to(ROOT)}")
        else:
            for path in attach():
                print(f"wrote {path.relative_to(ROOT)}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
