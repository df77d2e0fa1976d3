"""The editions and their gettext catalogs: which editions _config.yml lists, where each catalog lies under
locales/, and reading, writing and looking up a catalog's translations."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import yaml
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, unescape, write_po

from tools.author import quiz
from tools.course import ROOT, CourseError

PROJECT = "PyTorch 2.12 on Every Accelerator"
LOCALES = "locales"
GLOSSARY = "glossary.yml"
EXTENSION_CATALOG = "course.po"  # the strings of _ext/*.py (their `_()`), outside LC_MESSAGES: no page's catalog
EXTENSION_PAGE = "(extensions)"  # its name where problems are reported
QUIZ_CATALOG = "quizzes.po"  # the quizzes' questions, choices and reasons, and the quiz's own words
QUIZ_PAGE = "(quizzes)"


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


def catalog_path(language: str, name: str, root: Path = ROOT) -> Path:
    if name == EXTENSION_PAGE:
        return root / LOCALES / language / EXTENSION_CATALOG
    if name == QUIZ_PAGE:
        return root / LOCALES / language / QUIZ_CATALOG
    return catalog_dir(language, root) / f"{name}.po"


def read_catalog(path: Path, language: str) -> Catalog:
    try:
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=language.replace("-", "_"))
    except Exception as error:  # babel raises several kinds for a malformed file
        raise CourseError(f"{path}: not a readable .po file ({error})") from error
    for message in catalog:
        _previous_english(message)
    return catalog


# babel (2.19) writes a fuzzy message's previous English as `#| msgid "..."` lines, wrapped, and reads them back as
# translator comments ("| msgid ..."), which stayed in the catalog once the message was translated again.
PREVIOUS = "| "


def _previous_english(message: Message) -> None:
    """Put the previous English that babel read as comments back where it belongs: a fuzzy message keeps it (what
    the translator compares the new English with); a translated one drops it."""
    lines = [comment.removeprefix(PREVIOUS) for comment in message.user_comments if comment.startswith(PREVIOUS)]
    if not lines:
        return
    message.user_comments = [comment for comment in message.user_comments if not comment.startswith(PREVIOUS)]
    text = " ".join(lines)  # babel wrapped it at spaces (or after a hyphen: the text is for the translator to read)
    if message.fuzzy and not message.previous_id and text.startswith('msgid "') and text.endswith('"'):
        message.previous_id = [unescape(text.removeprefix("msgid "))]


def write_catalog(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog, width=0, ignore_obsolete=True, include_previous=True, sort_output=False)


def translation(message: Message | None) -> str | None:
    """What an edition shows for an English message: its translation, or None where the edition shows the English
    (the fallback): the catalog has no entry for it, an empty one, or a fuzzy one (the English changed since it was
    translated). Every part of the editions decides this here: the gate, the count on each page, the notebooks."""
    if message is None or not message.string or message.fuzzy:
        return None
    return str(message.string)


def translator(language: str, name: str, root: Path = ROOT) -> Callable[[str], str]:
    """A function from English to the catalog's translation (the English where `translation` finds none)."""
    path = catalog_path(language, name, root)
    catalog = read_catalog(path, language) if path.exists() else Catalog(locale=language)

    def translate(english: str) -> str:
        return translation(catalog.get(english)) or english

    return translate


def quiz_labels(language: str, root: Path = ROOT) -> dict[str, str]:
    """The quiz runtime's words in an edition's language."""
    translate = translator(language, QUIZ_PAGE, root)
    return {key: translate(value) for key, value in quiz.runtime_labels(root).items()}


def _glossary_file(language: str, root: Path) -> dict[str, object]:
    path = root / LOCALES / language / GLOSSARY
    if not path.exists():
        raise CourseError(f"{path}: the edition has no glossary")
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def glossary(language: str, root: Path = ROOT) -> dict[str, str]:
    """English term -> the edition's one translation of it (locales/<lang>/glossary.yml)."""
    terms = _glossary_file(language, root).get("terms") or {}
    if not isinstance(terms, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in terms.items()):
        raise CourseError(f"{root / LOCALES / language / GLOSSARY}: `terms` must map each English term to one "
                          "translation")
    return terms


def retired(language: str, root: Path = ROOT) -> dict[str, list[str]]:
    """English word -> the words the edition no longer translates it as (glossary.yml's `retired`): a message whose
    English uses the word must not give it in one of them, even beside the glossary's word. A word that `terms` does
    not hold (one the English also uses in another sense, "no room for it") has only its retired words checked."""
    path = root / LOCALES / language / GLOSSARY
    words = _glossary_file(language, root).get("retired") or {}
    if not isinstance(words, dict) or not all(isinstance(k, str) and isinstance(v, list)
                                              and all(isinstance(w, str) for w in v) for k, v in words.items()):
        raise CourseError(f"{path}: `retired` must map each English term to a list of the words it replaced")
    return words
