"""The translated notebooks: each lesson with its markdown prose, figures' alt texts and quiz in an edition's
language (its code and outputs untouched), and the student copies made from them. The one module of the package
that uses the workshop kit (tools/workshop/student.py)."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog

from tools.author import quiz
from tools.author.quiz import render
from tools.course import ROOT, cell_source, cell_tags, notebook_paths, read_notebook, write_notebook
from tools.editions import catalogs
from tools.workshop import student

EDITIONS_BRANCH = "editions"  # the branch the publish workflow writes each edition's notebooks to, under <lang>/
STUDENT_FOLDER = student.STUDENT_FOLDER  # where an edition's student copies lie, in its HTML and its branch

# What may stand before a message on its line: a heading's hashes, a list marker, a blockquote, a footnote's label,
# a directive's opening (its title), an option name, or the cells before it in a table row.
_LINE_PREFIX = re.compile(
    r"[ \t>]*(?:#{1,6}[ \t]+|[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d+[.)][ \t]+|\[\^[^\]]+\]:[ \t]*"
    r"|[`:]{3,}\{[\w-]+\}[ \t]*|:[\w-]+:[ \t]*|(?:\|[^\n]*)?\|[ \t]*)?"
)


@functools.cache
def _message_pattern(msgid: str) -> re.Pattern[str]:
    """A message as it stands in markdown: its spaces may be line breaks (with a blockquote's `>`), and it is whole."""
    body = re.escape(msgid).replace("\\ ", r"(?:[ \t]|\n[ \t>]*)")
    return re.compile(rf"(?<![^\s|]){body}(?=[ \t]*(?:\n|\Z|\|))")


def translate_markdown(text: str, translations: dict[str, str]) -> tuple[str, set[str]]:
    """A markdown cell with each message Sphinx extracted from it replaced by its translation, and the messages
    found. A message is a whole paragraph, heading, list item, table cell or title: it ends its line (or table
    cell) and only markup stands before it on the line; Sphinx's message joins the source's lines with spaces."""
    found: set[str] = set()
    for msgid in sorted(translations, key=len, reverse=True):
        if msgid.split(" ", 1)[0] not in text:  # its pattern starts with this word as it is: no match
            continue
        pattern = _message_pattern(msgid)
        position = 0
        while match := pattern.search(text, position):
            line_start = text.rfind("\n", 0, match.start()) + 1
            if _LINE_PREFIX.fullmatch(text[line_start : match.start()]):
                found.add(msgid)
                text = text[: match.start()] + translations[msgid] + text[match.end() :]
                position = match.start() + len(translations[msgid])
            else:
                position = match.start() + 1
    return text, found


def translated_notebook(path: Path, catalog: Catalog, root: Path = ROOT,
                        questions: dict[str, tuple[quiz.Quiz, tuple[quiz.Question, ...]]] | None = None
                        ) -> tuple[dict[str, Any], set[str]]:
    """A notebook with its markdown cells translated by its page's catalog and its quiz's questions by the quiz
    catalog (its other code and every output untouched), and the page's messages it used. Untranslated and fuzzy
    messages stay English. `questions` is quiz.lesson_questions(root), read here when not given."""
    notebook = read_notebook(path)
    language = catalog.locale_identifier if catalog.locale else ""
    lessons = quiz.lesson_questions(root) if questions is None else questions
    asked = lessons.get(path.relative_to(root).with_suffix("").as_posix())
    translations = {str(m.id): shown for m in catalog if m.id and (shown := catalogs.translation(m)) is not None}
    used: set[str] = set()
    for cell in notebook["cells"]:
        if asked and language and render.DATA_TAG in cell_tags(cell):
            chapter, lesson_quiz = asked
            english = catalogs.translator(language, catalogs.QUIZ_PAGE, root)
            cell["source"] = render.data_source(chapter, quiz.translated(lesson_quiz, english), root,
                                                labels=catalogs.quiz_labels(language, root))
            cell["outputs"] = []
            continue
        image = cell.get("metadata", {}).get("mystnb", {}).get("image", {})
        if image.get("alt") in translations:
            used.add(image["alt"])
            image["alt"] = translations[image["alt"]]
        if cell["cell_type"] != "markdown":
            continue
        text, found = translate_markdown(cell_source(cell), translations)
        used |= found
        cell["source"] = text.splitlines(keepends=True)
    notebook["metadata"]["language"] = catalog.locale_identifier if catalog.locale else ""
    return notebook, used


def write_notebooks(out: Path, language: str, root: Path = ROOT) -> list[Path]:
    """Each notebook of the book with its prose in the edition's language, at out/<docname>.ipynb."""
    written = []
    questions = quiz.lesson_questions(root)
    for path in notebook_paths(root):
        docname = path.relative_to(root).with_suffix("").as_posix()
        page_catalog = catalogs.catalog_dir(language, root) / f"{docname}.po"
        if not page_catalog.exists():
            continue
        notebook, _used = translated_notebook(path, catalogs.read_catalog(page_catalog, language), root, questions)
        target = out / f"{docname}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(target, notebook)
        written.append(target)
    return written


def write_student_notebooks(out: Path, language: str, root: Path = ROOT) -> list[Path]:
    """Each lesson's student copy (tools/workshop/student.py) made from the edition's notebook, under out/."""

    questions = quiz.lesson_questions(root)

    def translated(path: Path) -> dict[str, Any]:
        docname = path.relative_to(root).with_suffix("").as_posix()
        page_catalog = catalogs.catalog_path(language, docname, root)
        if not page_catalog.exists():
            return read_notebook(path)
        return translated_notebook(path, catalogs.read_catalog(page_catalog, language), root, questions)[0]

    return student.write_student_notebooks(out, root, translated)


def student_branch_folder(language: str) -> str:
    """Where an edition's student copies lie in the editions branch (the publish workflow writes them there)."""
    return f"{language}/{STUDENT_FOLDER}/"
