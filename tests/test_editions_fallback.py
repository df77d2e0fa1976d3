"""English edits never wait for a translator (tools/editions/): a message without a translation (missing, empty or
fuzzy) shows in English, passes `check` and fails only `check --complete`; a translated one whose markup or
glossary terms are wrong still fails `check`; each edition's page says how many of its passages are English, and the
front page lists those pages. The unit tests need no Sphinx; the one marked integration builds a small book."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from babel.messages.catalog import Catalog, Message

from tools.course import ROOT
from tools.editions import build, catalogs, extract, gate

TERMS = {"graph": "그래프"}


@pytest.mark.parametrize(("message", "shown"), [
    (None, None),  # no entry in the catalog
    (Message("A graph.", ""), None),  # an entry, not translated yet
    (Message("A graph.", "그래프입니다.", flags=["fuzzy"]), None),  # the English changed since
    (Message("A graph.", "그래프입니다."), "그래프입니다."),
])
def test_an_edition_shows_the_english_where_a_message_has_no_translation(message: Message | None,
                                                                         shown: str | None) -> None:
    assert catalogs.translation(message) == shown


def _catalog(**messages: tuple[str, bool]) -> Catalog:
    catalog = Catalog(locale="ko")
    for msgid, (msgstr, fuzzy) in messages.items():
        catalog.add(msgid, msgstr, flags=["fuzzy"] if fuzzy else [])
    return catalog


@pytest.mark.parametrize(("msgstr", "fuzzy", "everyday", "complete"), [
    (None, False, [], ["missing"]),
    ("", False, [], ["not translated yet"]),
    ("그래프를 `x`로 캡처합니다.", True, [], ["fuzzy"]),
    ("그래프를 `x`로 캡처합니다.", False, [], []),
    ("그래프를 캡처합니다.", False, ["drops or changes inline code `x`"], ["drops or changes inline code `x`"]),
    ("`x`로 캡처합니다.", False, ["translates 'graph'"], ["translates 'graph'"]),
])
def test_the_gate_fails_a_broken_translation_and_an_untranslated_message_only_when_complete(
        msgstr: str | None, fuzzy: bool, everyday: list[str], complete: list[str]) -> None:
    english = "Capture the graph with `x`."
    catalog = _catalog(**({english: (msgstr, fuzzy)} if msgstr is not None else {}))
    for strict, expected in ((False, everyday), (True, complete)):
        found = gate.message_problems(english, catalog, TERMS, complete=strict)
        assert len(found) == len(expected) and all(part in problem for part, problem in zip(expected, found,
                                                                                              strict=True)), found


def test_a_page_counts_the_messages_it_shows_in_english() -> None:
    """Numbers and code alone read the same in every edition: not counted."""
    template = Catalog()
    for msgid in ("One.", "Two.", "Three.", "Four.", "`torch.cond`", "2.12"):
        template.add(msgid)
    catalog = _catalog(**{"One.": ("하나.", False), "Two.": ("둘.", True), "Three.": ("", False)})
    assert build.untranslated(template, catalog) == 3  # Two (fuzzy), Three (empty), Four (missing)
    assert build.untranslated(template, None) == 4


def test_the_weekly_workflow_fails_on_untranslated_messages() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "weekly.yml").read_text(encoding="utf-8"))
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job.get("steps", [])]
    assert any("-m tools.editions check --complete" in run for run in runs), "weekly.yml must run check --complete"
    report = workflow["jobs"]["report"]
    job = next(name for name, job in workflow["jobs"].items()
               if any("check --complete" in step.get("run", "") for step in job.get("steps", [])))
    assert job in report["needs"], f"the report job opens no issue when {job} fails"


# ---- a small book: a changed English sentence passes the gate and its page says it shows in English ---------------

PAGE = "chapters/page"
SENTENCE = "A graph replays the kernels it captured."
CHANGED = "A graph replays every kernel it captured."


def _small_book(root: Path) -> Path:
    """The course's configuration, extensions, tools and its editions' glossaries and catalogs of the extensions'
    words, around two pages of its own."""
    for name in ("_config.yml", "_static"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, root / name)
    for name in ("_ext", "tools"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    for each in catalogs.editions():
        folder = root / catalogs.LOCALES / each.language
        folder.mkdir(parents=True)
        for name in (catalogs.GLOSSARY, catalogs.EXTENSION_CATALOG):
            shutil.copy(ROOT / catalogs.LOCALES / each.language / name, folder / name)
    (root / "_toc.yml").write_text("format: jb-book\nroot: index\nchapters:\n  - file: chapters/page\n")
    (root / "index.md").write_text("# The front page\n\nWelcome.\n")
    (root / "chapters").mkdir()
    (root / f"{PAGE}.md").write_text(f"# A page\n\n{SENTENCE}\n\nA second sentence.\n")
    (root / "_build").mkdir()
    return root


def _translate_everything(root: Path) -> None:
    """Every page's message translated, as a translator would leave the catalogs (the words are placeholders)."""
    extracted = extract.extract_templates(root)
    for each in catalogs.editions(root):
        terms = catalogs.glossary(each.language, root)
        for docname, template in extracted.items():
            catalog = Catalog(locale=each.language)
            for message in template:
                if message.id:
                    words = " ".join(terms[term] for term in terms if gate.uses(term, str(message.id), ""))
                    catalog.add(message.id, f"{words} [{each.language}] {message.id}")
            catalogs.write_catalog(catalogs.catalog_path(each.language, docname, root), catalog)


@pytest.mark.integration  # three Sphinx builds of a two-page book
def test_a_changed_english_sentence_passes_the_gate_and_its_page_says_it_is_english(tmp_path: Path) -> None:
    root = _small_book(tmp_path)
    _translate_everything(root)
    gate_problems = [p for p in gate.check(root, pages=["index", PAGE], complete=True)]
    assert gate_problems == [], "the translated small book passes the complete gate"
    page = root / f"{PAGE}.md"
    page.write_text(page.read_text().replace(SENTENCE, CHANGED))
    assert gate.check(root, pages=["index", PAGE]) == []
    strict = gate.check(root, pages=["index", PAGE], complete=True)
    assert len(strict) == len(catalogs.editions(root)) and all(CHANGED in p and "missing" in p for p in strict)

    (root / "_build" / "html").mkdir()
    (root / "_build" / "html" / "index.html").write_text("")  # build() renders from the English build's cache
    build.build(root, languages=["ko"])
    built = (root / "_build" / "html" / "ko" / f"{PAGE}.html").read_text(encoding="utf-8")
    korean = catalogs.translator("ko", catalogs.EXTENSION_PAGE, root)
    marker = korean("{count} passages are not translated yet and show in English.").format(count=1)
    assert marker != "1 passages are not translated yet and show in English.", "the marker is in Korean"
    assert marker in built and CHANGED in built and SENTENCE not in built
    front = (root / "_build" / "html" / "ko" / "index.html").read_text(encoding="utf-8")
    assert korean("Pages with passages not translated yet:") in front and 'href="chapters/page.html"' in front
