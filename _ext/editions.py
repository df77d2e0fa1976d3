"""The book's editions in every build: a language switcher on each page, the page's English revision in a
translated edition, the right <html lang>, and search that finds Korean words with their particles.

Sphinx's own translation (its Locale transform, from the page's catalog) misses a few texts of this book; they are
translated here: exercise titles (sphinx-exercise), the _toc.yml's captions (sphinx-external-toc), figures' alt
texts and hidden cells' buttons (myst-nb), and the quizzes (tools/author/quiz/, from locales/<language>/quizzes.po).

tools/editions/build.py builds each edition (Sphinx's `language` and the catalogs under locales/) and passes
`course_edition_pages`: for each page, the English revision it translates and how many of its messages are
still untranslated (shown in English). The editions themselves are listed once, as `course_editions`.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode
from myst_parser.parsers.sphinx_ import MystParser
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.locale import get_translation
from sphinx.locale import init as init_locale
from sphinx.search import SearchLanguage
from sphinx.search.zh import SearchChinese as SphinxSearchChinese
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain
from sphinx_exercise.nodes import exercise_subtitle

from tools.author import quiz
from tools.author.quiz import render
from tools.course import ROOT, toc_files
from tools.editions import catalogs

CATALOG = "course"  # the extensions' own strings: locales/<language>/course.po, compiled by tools/editions/build.py
_ = get_translation(CATALOG)

ENGLISH = {"language": "en", "name": "English", "html_lang": "en"}

# Korean writes particles onto the word they follow (텐서는, 그래프를): index and search the word without them.
KOREAN_PARTICLES = sorted(
    "은 는 이 가 을 를 의 에 에서 에게 으로 로 와 과 도 만 까지 부터 보다 처럼 이나 나 이며 이고 입니다".split(),
    key=len,
    reverse=True,
)


class SearchKorean(SearchLanguage):
    lang = "ko"
    language_name = "Korean"
    # A run of one script is a word: Korean writes particles straight onto Latin names and numbers (`eigh`를, 2.12의).
    _word = re.compile(r"[가-힣]+|[^\W가-힣]+")
    # The search page stems the reader's query the same way as the index.
    js_stemmer_code = """
var Stemmer = function() {
  const particles = PARTICLES;
  this.stemWord = function(word) {
    word = word.toLowerCase();
    if (/[\\uac00-\\ud7a3]$/.test(word)) {
      for (const particle of particles) {
        if (word.endsWith(particle) && word.length > particle.length + 1) return word.slice(0, -particle.length);
      }
    }
    return word;
  };
};
""".replace("PARTICLES", json.dumps(KOREAN_PARTICLES, ensure_ascii=False))

    def split(self, input: str) -> list[str]:
        return self._word.findall(input)

    def word_filter(self, word: str) -> bool:
        return (len(word) > 1 or not word.isascii()) and word not in KOREAN_PARTICLES

    def stem(self, word: str) -> str:
        word = word.lower()
        if re.search(r"[가-힣]$", word):
            for particle in KOREAN_PARTICLES:
                if word.endswith(particle) and len(word) > len(particle) + 1:
                    return word[: -len(particle)]
        return word


class _LatinWords(set[str]):
    """A set that Sphinx's Chinese search fills through `extend`, as it would fill its list."""

    def extend(self, words: Iterable[str]) -> None:
        self.update(words)


# Local patch, written for Sphinx 7.4.7: upstream in sphinx-doc/sphinx#12995 ("Convert latin_terms to a set",
# released in Sphinx 8.1, which jupyter-book 1.x does not allow yet). Drop it with Sphinx 8.1 or later.
class SearchChinese(SphinxSearchChinese):
    """Sphinx 7's Chinese search, with the Latin words it has seen in a set: Sphinx keeps them in a list shared by
    every page and searches it once per word it stems, which took 62 of the Chinese edition's 71 seconds."""

    def init(self, options: dict[str, str]) -> None:
        super().init(options)
        self.latin_terms = _LatinWords()  # type: ignore[assignment]


def _editions(app: Sphinx) -> list[dict[str, str]]:
    return [ENGLISH, *app.config.course_editions]


def _current(app: Sphinx) -> dict[str, str]:
    for edition in _editions(app):
        if edition["language"] == (app.config.language or "en"):
            return edition
    return ENGLISH


def _href(app: Sphinx, pagename: str, target: dict[str, str]) -> str:
    """The same page in another edition, relative to this page: English at the site's root, each edition in
    the root's <language>/ folder."""
    up = "../" * pagename.count("/")
    if _current(app) is not ENGLISH:
        up += "../"
    folder = "" if target is ENGLISH else f"{target['language']}/"
    return f"{up}{folder}{pagename}.html"


def switcher(app: Sphinx, pagename: str) -> str:
    current = _current(app)
    links = []
    for edition in _editions(app):
        name = html.escape(edition["name"])
        if edition is current:
            links.append(f'<span class="edition-current" aria-current="page">{name}</span>')
        else:
            href = html.escape(_href(app, pagename, edition))
            links.append(f'<a href="{href}" hreflang="{edition["html_lang"]}" lang="{edition["html_lang"]}">{name}</a>')
    label = html.escape(_("Language"))
    return f'<nav class="edition-switcher" aria-label="{label}">{" · ".join(links)}</nav>'


def revision_note(app: Sphinx, pagename: str) -> str:
    page = app.config.course_edition_pages.get(pagename)
    if _current(app) is ENGLISH or page is None:
        return ""
    english = html.escape(_href(app, pagename, ENGLISH))
    note = _("Translated from the English page at revision {revision}.").format(revision=page["revision"])
    if page["untranslated"]:
        note += " " + _("{count} passages are not translated yet and show in English.").format(
            count=page["untranslated"]
        )
    link = html.escape(_("English page"))
    return f'<p class="edition-revision">{html.escape(note)} <a href="{english}" hreflang="en">{link}</a></p>'


def english_pages(app: Sphinx, pagename: str) -> str:
    """On an edition's front page, the pages that still show passages in English, with how many, in book order."""
    if _current(app) is ENGLISH or pagename != app.config.root_doc:
        return ""
    pages = app.config.course_edition_pages
    counted = [docname for docname in toc_files(Path(app.srcdir))
               if pages.get(docname, {}).get("untranslated") and docname in app.env.titles]
    if not counted:
        return ""
    items = []
    for docname in counted:
        href = html.escape(app.builder.get_relative_uri(pagename, docname))
        title = html.escape(app.env.titles[docname].astext())
        count = _("{count} in English").format(count=pages[docname]["untranslated"])
        items.append(f'<li><a href="{href}">{title}</a> ({html.escape(count)})</li>')
    heading = html.escape(_("Pages with passages not translated yet:"))
    return f'<div class="edition-english-pages"><p>{heading}</p><ul>{"".join(items)}</ul></div>'


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if not app.config.course_editions or "body" not in context:
        return
    context["language"] = _current(app)["html_lang"]
    context["body"] = switcher(app, pagename) + revision_note(app, pagename) + english_pages(app, pagename) \
        + context["body"]


# Local patch of MyST-Parser's parser, written for myst-parser 3.0.1 (Sphinx 7.4.7): upstream in
# executablebooks/MyST-Parser#884 (also #445 and #801), a footnote reference in a translated message.
def _footnotes_resolve_in_translations() -> None:
    """Sphinx parses each translated message alone, so a footnote reference `[^label]` in it has no definition and
    MyST leaves it as text; Sphinx then rejects the message ("inconsistent footnote references"). Give such a
    message a placeholder definition of each label it cites: Sphinx keeps only the message's first node, whose
    references it then links to the page's real footnotes."""
    parse = MystParser.parse
    if getattr(parse, "_course_footnotes", False):
        return

    def parse_with_definitions(self: MystParser, inputstring: str, document: Any) -> None:
        if str(document.current_source or "").endswith("<translated>"):
            labels = dict.fromkeys(re.findall(r"\[\^([^\]\s]+)\]", inputstring))
            inputstring += "".join(f"\n\n[^{label}]: -" for label in labels)
        parse(self, inputstring, document)

    parse_with_definitions._course_footnotes = True  # type: ignore[attr-defined]
    MystParser.parse = parse_with_definitions  # type: ignore[method-assign]


class ExerciseTitlesTranslatable(SphinxTransform):
    """sphinx-exercise builds an exercise's title (its directive's argument) with no source, so Sphinx would neither
    extract it into the catalogs nor translate it. Give it its source text before Sphinx's Locale transform (20).
    sphinx-exercise later folds the title into a plain one (a post-transform), out of the gettext builder's sight, so
    that builder also gets the title as a paragraph of its own (its doctrees are never rendered)."""

    default_priority = 10

    def apply(self, **kwargs: Any) -> None:
        for subtitle in list(self.document.findall(exercise_subtitle)):
            subtitle.source = subtitle.source or self.document["source"]
            subtitle.line = subtitle.line or 0
            subtitle.rawsource = "".join(
                f"`{child.astext()}`" if isinstance(child, nodes.literal) else child.astext()
                for child in subtitle.children
            )
            if self.app.builder.name == "gettext":
                title = subtitle.parent
                extracted = nodes.paragraph(subtitle.rawsource, "", *[child.deepcopy() for child in subtitle.children])
                extracted.source, extracted.line = subtitle.source, subtitle.line
                title.parent.insert(title.parent.index(title) + 1, extracted)


class LateMessagesTranslated(SphinxTransform):
    """Two kinds of a page's messages arrive after Sphinx's Locale transform (20) has translated the page:
    sphinx-external-toc's captions from _toc.yml ("Getting started", ...; its transform's priority is 100) and the
    alt texts myst-nb gives figures from their cells' metadata. Translate both here, from the page's own catalog
    (tools/editions/extract.py extracts the alt texts into it)."""

    default_priority = 101

    def apply(self, **kwargs: Any) -> None:
        if (self.config.language or "en") == "en":
            return
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        folders = [str(Path(self.env.srcdir) / folder) for folder in self.config.locale_dirs]
        catalog, found = init_locale(folders, self.config.language, domain)
        if not found:
            return
        for toctree in self.document.findall(addnodes.toctree):
            if toctree.get("rawcaption"):
                toctree["caption"] = catalog.gettext(toctree["rawcaption"])
        for image in self.document.findall(nodes.image):
            if image.get("alt"):
                image["alt"] = catalog.gettext(image["alt"])


def hidden_cell_prompts() -> dict[str, str]:
    """The edition's words for the buttons of a hidden cell: myst-nb's ("Show code cell source", ...) and the
    course's own, which the notebooks set in a solution cell's metadata ("Show solution")."""
    return {
        "Show code cell content": _("Show code cell content"),
        "Hide code cell content": _("Hide code cell content"),
        "Show code cell source": _("Show code cell source"),
        "Hide code cell source": _("Hide code cell source"),
        "Show code cell output": _("Show code cell output"),
        "Hide code cell output": _("Hide code cell output"),
        "Show code cell outputs": _("Show code cell outputs"),
        "Hide code cell outputs": _("Hide code cell outputs"),
        "Show solution": _("Show solution"),
        "Hide solution": _("Hide solution"),
    }


class HiddenCellPromptsTranslated(SphinxPostTransform):
    """myst-nb words a hidden cell's button in a post-transform of its own (priority 199): translate after it."""

    default_priority = 200
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        if (self.config.language or "en") == "en":
            return
        prompts = hidden_cell_prompts()
        for node in self.document.findall(HideCodeCellNode):
            node["prompt_show"] = prompts.get(node["prompt_show"], node["prompt_show"])
            node["prompt_hide"] = prompts.get(node["prompt_hide"], node["prompt_hide"])


def _edition_language(app: Sphinx) -> str | None:
    language = _current(app)["language"]
    return None if language == "en" else language


def _translated_room_page(app: Sphinx, docname: str, source: list[str]) -> None:
    """The room page of the quizzes, its questions in the edition's language (the rest stays English here, for
    the page's own catalog)."""
    language = _edition_language(app)
    if language is None or docname != Path(render.ROOM_PAGE).with_suffix("").as_posix():
        return
    labels = catalogs.quiz_labels(language, ROOT)
    source[0] = render.room_page(ROOT, catalogs.translator(language, catalogs.QUIZ_PAGE, ROOT), labels["answer"])


def _lesson_questions(app: Sphinx) -> dict[str, Any]:
    """Each lesson's quiz questions, read once per build."""
    if not hasattr(app, "_course_lesson_questions"):
        app._course_lesson_questions = quiz.lesson_questions(ROOT)  # type: ignore[attr-defined]
    return app._course_lesson_questions  # type: ignore[attr-defined,no-any-return]


def _quiz_words(app: Sphinx, language: str) -> tuple[dict[str, str], Any]:
    """The quiz runtime's labels and the quizzes' translator in an edition's language, read once per build."""
    if not hasattr(app, "_course_quiz_words"):
        app._course_quiz_words = (  # type: ignore[attr-defined]
            catalogs.quiz_labels(language, ROOT),
            catalogs.translator(language, catalogs.QUIZ_PAGE, ROOT),
        )
    return app._course_quiz_words  # type: ignore[attr-defined,no-any-return]


def _translated_quiz_output(app: Sphinx, doctree: nodes.document) -> None:
    """A lesson's quiz as its cell showed it when executed, in the edition's language."""
    language = _edition_language(app)
    asked = _lesson_questions(app).get(app.env.docname)
    if language is None or asked is None:
        return
    labels, translate = _quiz_words(app, language)
    questions = quiz.translated(asked[1], translate)
    english_live_form = quiz.runtime_labels(ROOT)["live form"]
    for cell in doctree.findall(nodes.container):
        if f"tag_{render.DATA_TAG}" not in cell.get("classes", []):
            continue
        for raw in cell.findall(nodes.raw):
            if 'class="course-quiz"' in raw.astext():
                raw.parent.replace(raw, nodes.raw("", render.static_html(questions, labels, ROOT), format="html"))
        for block in cell.findall(nodes.literal_block):
            if block.astext().strip() == english_live_form:
                block.parent.replace(block, nodes.literal_block(labels["live form"], labels["live form"]))


# Local fix of Sphinx's Locale transform, written for Sphinx 7.4.7 (docutils 0.21): no upstream issue found as of
# 2026-12-02 (the nearest, sphinx-doc/sphinx#12705, is the environment pickle's size, another cause).
def _translated_nodes_in_their_page(app: Sphinx, doctree: nodes.document) -> None:
    """Sphinx parses each translated message as a document of its own, and the nodes it moves into the page still
    name that document, whose settings hold the whole build environment: pickled with the page, every doctree of an
    edition grew to about 4.5 MB (100 KB in English), and reading them back took half of an edition's build."""
    for node in doctree.findall(include_self=False):
        if node.__dict__.get("_document", doctree) is not doctree:
            node.document = doctree


def setup(app: Sphinx) -> dict[str, Any]:
    _footnotes_resolve_in_translations()
    app.add_transform(ExerciseTitlesTranslatable)
    app.add_transform(LateMessagesTranslated)
    app.add_post_transform(HiddenCellPromptsTranslated)
    app.connect("source-read", _translated_room_page)
    app.connect("doctree-read", _translated_quiz_output)
    app.connect("doctree-read", _translated_nodes_in_their_page)
    app.add_config_value("course_editions", [], "html", types=[list])
    app.add_config_value("course_edition_pages", {}, "html", types=[dict])
    app.add_message_catalog(CATALOG, str(Path(app.srcdir) / "_build" / "locale"))  # tools/editions/build.py's
    app.add_search_language(SearchKorean)
    app.add_search_language(SearchChinese)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
