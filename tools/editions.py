"""The Chinese and Korean editions: Sphinx's gettext catalogs under locales/, one per page and language.

    python -m tools.editions update          extract the English messages of every page (Sphinx's gettext builder,
                                             nothing executed) and merge them into locales/<lang>/LC_MESSAGES/
                                             <page>.po: new messages arrive empty, changed ones fuzzy with their
                                             previous English, gone ones are dropped
    python -m tools.editions check           exit 1 and name every message that is missing, empty or fuzzy in an
                                             edition, or whose translation breaks the English's markup (code, roles,
                                             link targets, math), or that leaves a glossary term untranslated
    python -m tools.editions check --page P  the same, for one page (docname, such as notebooks/graphs/cond-in-graphs)
    python -m tools.editions build           render each edition into _build/html/<lang>/ from the executions the
                                             English build cached (run `make book` first)
    python -m tools.editions notebooks OUT   write each edition's notebooks, prose translated, into OUT/<lang>/

The editions are listed once, as `course_editions` in _config.yml. `check` compares the catalogs with the English
as it is now (a fresh extraction), so a changed English sentence fails it until the catalog is updated and the
sentence translated again.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sphinx.locale
import yaml
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from markdown_it import MarkdownIt

from tools import workshop
from tools.author import quiz
from tools.course import ROOT, CourseError, cell_source, cell_tags, notebook_paths, read_notebook, write_notebook

LOCALES = "locales"
TEMPLATES = Path("_build") / "gettext"
GLOSSARY = "glossary.yml"
EXTENSION_CATALOG = "course.po"  # the strings of _ext/*.py (their `_()`), outside LC_MESSAGES: no page's catalog
EXTENSION_PAGE = "(extensions)"  # its name where problems are reported
QUIZ_CATALOG = "quizzes.po"  # the quizzes' questions, choices and reasons, and the quiz's own words
QUIZ_PAGE = "(quizzes)"
# An English message of at least this many words that several pages share is translated the same way in each.
SAME_SENTENCE_WORDS = 1
EXTENSION_SOURCES = ["tools/records/runs.py"]  # modules outside _ext/ whose `_()` strings the extensions show
EDITIONS_BRANCH = "editions"  # the branch the publish workflow writes each edition's notebooks to, under <lang>/

# Markup a translation must carry over unchanged, found in this order (each kind is taken out of the text before the
# next is looked for, so that a role's backticks are not read as code, nor code's dollars as math).
MARKUP = {
    "role": re.compile(r"\{[a-z:-]+\}`[^`]*`"),
    "inline code": re.compile(r"(`+)(.+?)\1"),
    "link target": re.compile(r"\]\(([^)\s]+)\)"),
    "math": re.compile(r"\$[^$\n]+\$"),
    "placeholder": re.compile(r"\{[a-z_]+\}"),
}
# Not prose for the glossary: HTML tags (their attributes) and English quoted verbatim ("No space left on device").
NOT_PROSE = [re.compile(r"<[^>]+>"), re.compile(r'"[^"\n]*"')]


@dataclasses.dataclass(frozen=True)
class Edition:
    language: str  # Sphinx's language code, also the folder under locales/ and _build/html/
    name: str  # the language's name in itself, for the switcher
    html_lang: str  # BCP 47, for <html lang>
    search: str  # Sphinx's html_search_language


def editions(root: Path = ROOT) -> list[Edition]:
    """The editions `course_editions` in _config.yml lists."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    listed = config["sphinx"]["config"].get("course_editions")
    if not listed:
        raise CourseError("_config.yml: sphinx.config.course_editions lists no edition")
    return [Edition(**entry) for entry in listed]


def edition(language: str, root: Path = ROOT) -> Edition:
    for candidate in editions(root):
        if candidate.language == language:
            return candidate
    known = ", ".join(e.language for e in editions(root))
    raise CourseError(f"no edition {language!r}: _config.yml lists {known}")


def catalog_dir(language: str, root: Path = ROOT) -> Path:
    return root / LOCALES / language / "LC_MESSAGES"


def _sphinx_build(builder: str, outdir: Path, overrides: dict[str, Any], doctrees: Path, root: Path = ROOT) -> None:
    """One Jupyter Book build (its config from _config.yml), strict, as `jupyter-book build --all` runs it: every
    page is written again, as new outputs in the execution cache are no change to a source."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        str(root),
        str(outdir),
        noconfig=True,
        path_config=str(root / "_config.yml"),
        doctreedir=str(doctrees),
        confoverrides={"latex_individualpages": False, "external_toc_path": "_toc.yml", "nitpicky": True, **overrides},
        builder=builder,
        force_all=True,
        quiet=True,
        warningiserror=True,
        keep_going=True,
    )
    if result != 0:
        raise CourseError(f"the {builder} build into {outdir} failed ({result}); its warnings are above")


def extract_templates(out: Path, root: Path = ROOT) -> dict[str, Catalog]:
    """Every page's English messages by docname, written as one .pot per page under `out`, nothing executed."""
    shutil.rmtree(out, ignore_errors=True)
    _sphinx_build(
        "gettext",
        out,
        {"nb_execution_mode": "off", "gettext_uuid": False, "gettext_location": False},
        out / ".doctrees",
        root,
    )
    found = templates(out)
    # A figure's alt text lies in its cell's metadata, and the figure only in the executed outputs: add it here.
    for path in notebook_paths(root):
        docname = path.relative_to(root).with_suffix("").as_posix()
        for alt in figure_alts(read_notebook(path)):
            found.setdefault(docname, Catalog()).add(alt, locations=[(f"{docname}.ipynb", 0)])
    return found


def figure_alts(notebook: dict[str, Any]) -> list[str]:
    """The alt texts the notebook's figures get from their cells' metadata (myst-nb's `mystnb.image.alt`)."""
    alts = []
    for cell in notebook["cells"]:
        alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt")
        if alt:
            alts.append(str(alt))
    return alts


def templates(folder: Path) -> dict[str, Catalog]:
    """The extracted catalogs by docname."""
    found: dict[str, Catalog] = {}
    for pot in sorted(folder.rglob("*.pot")):
        docname = pot.relative_to(folder).with_suffix("").as_posix()
        with pot.open("rb") as handle:
            found[docname] = read_po(handle)
    if not found:
        raise CourseError(f"{folder}: the gettext build wrote no catalog")
    return found


def extension_template(root: Path = ROOT) -> Catalog:
    """The strings the book's extensions generate (each `_()` in _ext/*.py and EXTENSION_SOURCES)."""
    template = Catalog(project="PyTorch 2.12 on Every Accelerator")
    for path in sorted((root / "_ext").glob("*.py")) + [root / source for source in EXTENSION_SOURCES]:
        for lineno, message, _comments, _context in extract_from_file("python", str(path), keywords={"_": None}):
            template.add(message, locations=[(path.relative_to(root).as_posix(), lineno)])
    return template


def quiz_template(root: Path = ROOT) -> Catalog:
    """Every quiz question's text, choices and reason (quizzes/*.yml), and the words of the quiz runtime."""
    template = Catalog(project="PyTorch 2.12 on Every Accelerator")
    for each in quiz.quizzes(root):
        where = [(each.source.relative_to(root).as_posix(), 0)]
        for question in each.questions:
            for text in (question.text, *question.choices, question.reason):
                template.add(text, locations=where)
    for label in quiz.runtime_labels(root).values():
        template.add(label, locations=[("tools/snippets/quiz.py", 0)])
    return template


def all_templates(out: Path, root: Path = ROOT) -> dict[str, Catalog]:
    """Every catalog an edition needs, by name: one per page (docname), the extensions' and the quizzes'."""
    return {**extract_templates(out, root), EXTENSION_PAGE: extension_template(root), QUIZ_PAGE: quiz_template(root)}


def catalog_path(language: str, name: str, root: Path = ROOT) -> Path:
    if name == EXTENSION_PAGE:
        return root / LOCALES / language / EXTENSION_CATALOG
    if name == QUIZ_PAGE:
        return root / LOCALES / language / QUIZ_CATALOG
    return catalog_dir(language, root) / f"{name}.po"


def translator(language: str, name: str, root: Path = ROOT) -> Callable[[str], str]:
    """A function from English to the catalog's translation (the English where it has none, or a fuzzy one)."""
    path = catalog_path(language, name, root)
    catalog = read_catalog(path, language) if path.exists() else Catalog(locale=language)

    def translate(english: str) -> str:
        message = catalog.get(english)
        return str(message.string) if message is not None and message.string and not message.fuzzy else english

    return translate


def quiz_labels(language: str, root: Path = ROOT) -> dict[str, str]:
    """The quiz runtime's words in an edition's language."""
    translate = translator(language, QUIZ_PAGE, root)
    return {key: translate(value) for key, value in quiz.runtime_labels(root).items()}


def read_catalog(path: Path, language: str) -> Catalog:
    try:
        with path.open("rb") as handle:
            return read_po(handle, locale=language.replace("-", "_"))
    except Exception as error:  # babel raises several kinds for a malformed file
        raise CourseError(f"{path}: not a readable .po file ({error})") from error


def write_catalog(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog, width=0, ignore_obsolete=True, include_previous=True, sort_output=False)


def update(root: Path = ROOT) -> list[Path]:
    """Merge the fresh English into every edition's catalogs; return the files written or removed."""
    extracted = all_templates(root / TEMPLATES, root)
    touched: list[Path] = []
    for each in editions(root):
        folder = catalog_dir(each.language, root)
        for docname, template in extracted.items():
            path = catalog_path(each.language, docname, root)
            if path.exists():
                catalog = read_catalog(path, each.language)
            else:
                catalog = Catalog(locale=each.language, project="PyTorch 2.12 on Every Accelerator")
            catalog.update(template, update_header_comment=False, update_creation_date=False)
            for message in catalog:
                if message.id and not message.string and not re.search(r"[^\W\d_]", _prose(str(message.id))):
                    message.string = message.id  # nothing to translate: numbers, times, code, links
            catalog.project = "PyTorch 2.12 on Every Accelerator"
            catalog.language_team = each.name
            write_catalog(path, catalog)
            touched.append(path)
        for stale in sorted(folder.rglob("*.po")):
            docname = stale.relative_to(folder).with_suffix("").as_posix()
            if docname not in extracted:
                stale.unlink()
                touched.append(stale)
    return touched


def markup(text: str) -> Counter[str]:
    """The pieces of markup a translation keeps verbatim, counted."""
    pieces: Counter[str] = Counter()
    for kind, pattern in MARKUP.items():
        for match in pattern.finditer(text):
            pieces[f"{kind} {match.group(0)}"] += 1
        text = pattern.sub(" ", text)
    return pieces


def glossary(language: str, root: Path = ROOT) -> dict[str, str]:
    """English term -> the edition's one translation of it (locales/<lang>/glossary.yml)."""
    path = root / LOCALES / language / GLOSSARY
    if not path.exists():
        raise CourseError(f"{path}: the edition has no glossary")
    terms = yaml.safe_load(path.read_text(encoding="utf-8")).get("terms") or {}
    if not isinstance(terms, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in terms.items()):
        raise CourseError(f"{path}: `terms` must map each English term to one translation")
    return terms


def _prose(text: str) -> str:
    """The text without its markup, HTML tags and quoted English: where a term is prose to translate."""
    for pattern in [*MARKUP.values(), *NOT_PROSE]:
        text = pattern.sub(" ", text)
    return text


_MARKDOWN = MarkdownIt("commonmark")


def stray_emphasis(text: str) -> int:
    """How many `*` or `_` markers a text leaves unrendered: CommonMark will not close `**` after punctuation or
    a code span when a letter follows (`**时间：**后`, `**`x`**는`), a frequent break in CJK text."""
    rendered = re.sub(r"<code>.*?</code>", "", _MARKDOWN.renderInline(text))
    return len(re.findall(r"\*\*|(?<![\w*])\*(?!\s)", rendered))


def glossary_problems(msgid: str, msgstr: str, terms: dict[str, str]) -> list[str]:
    """Each glossary term the English uses whose translation is missing from the translated text."""
    found = []
    prose = _prose(msgid)
    for term, translation in terms.items():
        used = re.search(rf"(?<![\w-]){re.escape(term)}s?(?![\w-])", prose, re.IGNORECASE)
        if used and translation.lower() not in msgstr.lower():
            found.append(f"the glossary translates {term!r} as {translation!r}, which this translation lacks")
    return found


def message_problems(msgid: str, catalog: Catalog, terms: dict[str, str]) -> list[str]:
    """What is wrong with one English message's translation in a catalog, worded for its translator."""
    message = catalog.get(msgid)
    if message is None:
        return ["missing: the catalog has no entry for it (run `python -m tools.editions update`)"]
    if not message.string:
        return ["not translated yet"]
    if message.fuzzy:
        return ["fuzzy: the English changed since it was translated; translate it again and remove the fuzzy flag"]
    translated = str(message.string)
    problems = []
    lost = markup(msgid) - markup(translated)
    added = markup(translated) - markup(msgid)
    if lost:
        problems.append("the translation drops or changes " + "; ".join(sorted(lost)))
    if added:
        problems.append("the translation adds " + "; ".join(sorted(added)))
    if stray_emphasis(translated) > stray_emphasis(msgid):
        problems.append("bold or italic that does not render: put a space after a closing `**` that follows "
                        "punctuation or code, or move the punctuation outside the markers")
    return problems + glossary_problems(msgid, translated, terms)


def check(root: Path = ROOT, pages: list[str] | None = None) -> list[str]:
    """Every problem of every edition's catalogs against the English as it is now."""
    with tempfile.TemporaryDirectory(dir=root / "_build" if (root / "_build").is_dir() else None) as scratch:
        extracted = all_templates(Path(scratch) / "gettext", root)
    if pages:
        unknown = sorted(set(pages) - set(extracted))
        if unknown:
            raise CourseError(f"no page {', '.join(unknown)}: pages are docnames such as index or chapters/graphs")
        extracted = {name: extracted[name] for name in pages}
    problems = []
    for each in editions(root):
        terms = glossary(each.language, root)
        ways: dict[str, dict[str, list[str]]] = {}  # a repeated English sentence -> its translations -> where
        for docname, template in extracted.items():
            path = catalog_path(each.language, docname, root)
            if not path.exists():
                problems.append(f"{path.relative_to(root)}: missing (run `python -m tools.editions update`)")
                continue
            catalog = read_catalog(path, each.language)
            for english in template:
                if not english.id:
                    continue
                msgid = str(english.id)
                found = message_problems(msgid, catalog, terms)
                for problem in found:
                    problems.append(f"{path.relative_to(root)}: {problem}: {_short(msgid)}")
                if not found and len(msgid.split()) >= SAME_SENTENCE_WORDS:
                    ways.setdefault(msgid, {}).setdefault(str(catalog[msgid].string), []).append(docname)
        for msgid, translations in ways.items():
            if len(translations) > 1:
                where = "; ".join(f"{', '.join(pages)}" for pages in translations.values())
                problems.append(f"locales/{each.language}: translated {len(translations)} ways in different pages "
                                f"({where}); use one: {_short(msgid)}")
    return problems


def untranslated(template: Catalog, catalog: Catalog | None) -> int:
    """How many of a page's English messages its catalog leaves untranslated (missing, empty or fuzzy)."""
    count = 0
    for english in template:
        if not english.id:
            continue
        message = catalog.get(english.id) if catalog is not None else None
        if message is None or not message.string or message.fuzzy:
            count += 1
    return count


def english_revision(docname: str, root: Path = ROOT) -> str:
    """The last commit that changed a page's English source, as `abc1234 (2026-12-01)`."""
    sources = [p for p in (root / f"{docname}.md", root / f"{docname}.ipynb") if p.exists()]
    try:
        found = subprocess.run(
            ["git", "log", "-1", "--format=%h (%cs)", "--", *map(str, sources)],
            cwd=root, capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        found = ""
    return found or "unknown (not a git checkout)"


def compile_extension_catalog(language: str, root: Path = ROOT) -> None:
    """locales/<lang>/course.po (the extensions' own strings) as the .mo Sphinx reads, under _build/locale/."""
    source = root / LOCALES / language / EXTENSION_CATALOG
    target = root / "_build" / "locale" / language / "LC_MESSAGES" / "course.mo"
    target.parent.mkdir(parents=True, exist_ok=True)
    catalog = read_catalog(source, language) if source.exists() else Catalog(locale=language)
    with target.open("wb") as handle:
        write_mo(handle, catalog)


def _require_english_book(root: Path) -> Path:
    """_build/html, where the English build that every edition renders from must be."""
    html_root = root / "_build" / "html"
    if not (html_root / "index.html").exists():
        raise CourseError("_build/html has no English book yet: run `make book` first")
    return html_root


def build_side_by_side(languages: list[str], jobs: int, root: Path = ROOT) -> None:
    """Render the editions in processes of their own, `jobs` at a time: each edition is one Sphinx build, which
    uses one core, and the editions share nothing but the English build they read."""
    _require_english_book(root)
    running: list[tuple[str, subprocess.Popen[bytes]]] = []
    failed: list[str] = []
    for language in [*languages, None]:
        while running and (language is None or len(running) >= jobs):
            finished, process = running.pop(0)
            if process.wait() != 0:
                failed.append(finished)
        if language is not None:
            command = [sys.executable, "-m", "tools.editions", "build", "--language", language]
            running.append((language, subprocess.Popen(command, cwd=root)))
    if failed:
        raise CourseError(f"the build of {', '.join(failed)} failed (its output is above)")


def build(root: Path = ROOT, languages: list[str] | None = None) -> list[Path]:
    """Render each edition into _build/html/<lang>/ from the executions the English build cached."""
    html_root = _require_english_book(root)
    with tempfile.TemporaryDirectory(dir=root / "_build") as scratch:
        extracted = extract_templates(Path(scratch) / "gettext", root)
    built = []
    for each in editions(root):
        if languages and each.language not in languages:
            continue
        started = time.monotonic()
        folder = catalog_dir(each.language, root)
        pages = {}
        for docname, template in extracted.items():
            path = folder / f"{docname}.po"
            catalog = read_catalog(path, each.language) if path.exists() else None
            pages[docname] = {
                "revision": english_revision(docname, root),
                "untranslated": untranslated(template, catalog),
            }
        compile_extension_catalog(each.language, root)
        # Sphinx keeps each message catalog it has loaded for the process, and adds a later language's only as a
        # fallback: without this, the second edition would render in the first one's language.
        sphinx.locale.translators.clear()
        # Merged into Jupyter Book's own theme options: Colab and Binder open the edition's notebooks from its branch.
        theme = {"repository_branch": EDITIONS_BRANCH, "path_to_docs": each.language}
        out = html_root / each.language
        # Sphinx adds a page's words to the search index it finds and never takes the old ones out.
        (out / "searchindex.js").unlink(missing_ok=True)
        _sphinx_build(
            "html",
            out,
            {
                "language": each.language,
                "html_search_language": each.search,
                "course_edition_pages": pages,
                "html_theme_options": theme,
            },
            root / "_build" / f".doctrees-{each.language}",
            root,
        )
        write_notebooks(out / "_sources", each.language, root)
        write_student_notebooks(out / workshop.STUDENT_FOLDER, each.language, root)
        built.append(out)
        print(f"built {out.relative_to(root)} in {time.monotonic() - started:.0f} s", flush=True)
    return built


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
    translations = {str(m.id): str(m.string) for m in catalog if m.id and m.string and not m.fuzzy}
    used: set[str] = set()
    for cell in notebook["cells"]:
        if asked and language and quiz.DATA_TAG in cell_tags(cell):
            chapter, questions = asked
            english = translator(language, QUIZ_PAGE, root)
            cell["source"] = quiz.data_source(chapter, quiz.translated(questions, english), root,
                                              labels=quiz_labels(language, root))
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
        catalog_path = catalog_dir(language, root) / f"{docname}.po"
        if not catalog_path.exists():
            continue
        notebook, _used = translated_notebook(path, read_catalog(catalog_path, language), root, questions)
        target = out / f"{docname}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(target, notebook)
        written.append(target)
    return written


def write_student_notebooks(out: Path, language: str, root: Path = ROOT) -> list[Path]:
    """Each lesson's student copy (tools/workshop.py) made from the edition's notebook, under out/."""

    questions = quiz.lesson_questions(root)

    def translated(path: Path) -> dict[str, Any]:
        docname = path.relative_to(root).with_suffix("").as_posix()
        catalog = catalog_path(language, docname, root)
        if not catalog.exists():
            return read_notebook(path)
        return translated_notebook(path, read_catalog(catalog, language), root, questions)[0]

    return workshop.write_student_notebooks(out, root, translated)


def student_branch_folder(language: str) -> str:
    """Where an edition's student copies lie in the editions branch (the publish workflow writes them there)."""
    return f"{language}/{workshop.STUDENT_FOLDER}/"


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.editions", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("update", help="merge the English into every edition's catalogs")
    check_parser = commands.add_parser("check", help="fail on a missing, fuzzy or broken translation")
    check_parser.add_argument("--page", action="append", help="a docname; repeat for several")
    build_parser = commands.add_parser("build", help="render each edition into _build/html/<lang>/")
    build_parser.add_argument("--language", action="append", help="one edition; repeat for several")
    build_parser.add_argument("--jobs", type=int, default=1, help="editions rendered side by side (default 1)")
    notebooks_parser = commands.add_parser("notebooks", help="write each edition's notebooks into OUT/<lang>/")
    notebooks_parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "update":
            touched = update()
            print(f"updated {len(touched)} catalogs under {LOCALES}/")
            return 0
        if args.command == "build":
            if args.jobs < 1:
                raise CourseError(f"--jobs must be 1 or more, not {args.jobs}")
            known = [each.language for each in editions()]
            unknown = [language for language in args.language or [] if language not in known]
            if unknown:
                known_list = ', '.join(known)
                raise CourseError(f"no edition {', '.join(unknown)} in _config.yml's course_editions ({known_list})")
            selected = args.language or known
            if args.jobs > 1 and len(selected) > 1:
                build_side_by_side(selected, args.jobs)
            else:
                build(languages=selected)
            return 0
        if args.command == "notebooks":
            for each in editions():
                written = write_notebooks(args.out / each.language, each.language)
                students = write_student_notebooks(args.out / student_branch_folder(each.language), each.language)
                print(f"wrote {len(written)} notebooks and {len(students)} student copies into "
                      f"{args.out / each.language}")
            return 0
        problems = check(pages=args.page)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problems in the editions' catalogs", file=sys.stderr)
        return 1
    print("every edition translates every message of every page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
