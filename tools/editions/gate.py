"""The translation gate (`check`), which no library offers: every translated message of every page keeps its
markup, uses its glossary terms, and a sentence several pages share is translated one way, all against a fresh
extraction of the English as it is now. A message without a translation (missing, empty or fuzzy) shows in English
(catalogs.translation) and passes, so that an English edit never waits for a translator; `complete=True` (`check
--complete`, the weekly workflow) fails on those too."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.catalog import Catalog, Message

from tools.course import ROOT, CourseError
from tools.editions import catalogs, extract
from tools.editions.markup import markup, prose, stray_emphasis

# An English message of at least this many words that several pages share is translated the same way in each.
SAME_SENTENCE_WORDS = 1


def term_pattern(term: str) -> re.Pattern[str]:
    """The term as English writes it in a sentence, case ignored: a one-word term as a noun or a verb (launch,
    launches, launched, launching; release, released, releasing), a term of several words as a noun (kernel launch,
    kernel launches: "a graph captured earlier" is not a graph capture); a plural term's singular too (prerequisite
    for prerequisites)."""
    head, space, last = term.rpartition(" ")
    base = last[:-1] if last.endswith("s") and not last.endswith("ss") else last
    forms = {base, base + "s", base + "es"}
    if not head:
        forms |= {base + "ed", base + "ing"}
        if base.endswith("e"):
            forms |= {base + "d", base[:-1] + "ing"}
    if re.search(r"[^aeiou]y$", base):
        forms |= {base[:-1] + "ies"} | ({base[:-1] + "ied"} if not head else set())
    alternatives = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![\w-]){re.escape(head + space)}(?:{alternatives})(?![\w-])", re.IGNORECASE)


def uses(term: str, msgid: str, msgstr: str) -> bool:
    """Whether the English uses the term in its prose (not in code, link targets, HTML or quoted English that the
    translation keeps verbatim)."""
    return term_pattern(term).search(prose(msgid, msgstr)) is not None


def retired_pattern(word: str) -> re.Pattern[str]:
    """A word a term no longer translates as: a Korean or Chinese word anywhere (particles attach to it), an English
    one as a word of its own, a plural too."""
    if word.isascii():
        return re.compile(rf"(?<![A-Za-z_-]){re.escape(word)}s?(?![A-Za-z_-])", re.IGNORECASE)
    return re.compile(re.escape(word))


def glossary_problems(msgid: str, msgstr: str, terms: dict[str, str],
                      retired: dict[str, list[str]] | None = None) -> list[str]:
    """Each glossary term the English uses whose translation is missing from the translated text, or which the
    translated text also gives in a word the glossary retired (형식 beside 포맷: two words for one idea)."""
    found = []
    translated = prose(msgstr, msgid)
    for term in [*terms, *(word for word in retired or {} if word not in terms)]:
        if not uses(term, msgid, msgstr):
            continue
        translation = terms.get(term)
        if translation is not None and translation.lower() not in msgstr.lower():
            found.append(f"the glossary translates {term!r} as {translation!r}, which this translation lacks")
        for old in (retired or {}).get(term, []):
            if retired_pattern(old).search(translated):
                instead = f"as {translation!r}" if translation is not None else "in the word its catalogs use"
                found.append(f"the glossary translates {term!r} {instead}, not {old!r}, which this translation "
                             "also uses")
    return found


def untranslated_problem(message: Message | None) -> str:
    """Why a message shows in English (catalogs.translation found none), worded for its translator."""
    if message is None:
        return "missing: the catalog has no entry for it (run `python -m tools.editions update`)"
    if not message.string:
        return "not translated yet"
    return "fuzzy: the English changed since it was translated; translate it again and remove the fuzzy flag"


def message_problems(msgid: str, catalog: Catalog, terms: dict[str, str],
                     retired: dict[str, list[str]] | None = None, complete: bool = False) -> list[str]:
    """What is wrong with one English message's translation in a catalog, worded for its translator. A message the
    edition shows in English is a problem only where `complete` asks for every message translated."""
    message = catalog.get(msgid)
    translated = catalogs.translation(message)
    if translated is None:
        return [untranslated_problem(message)] if complete else []
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
    return problems + glossary_problems(msgid, translated, terms, retired)


def check(root: Path = ROOT, pages: list[str] | None = None, complete: bool = False) -> list[str]:
    """Every problem of every edition's catalogs against the English as it is now; with `complete`, every message
    shown in English (a page without a catalog, a message missing, empty or fuzzy) too."""
    extracted = extract.all_templates(root)
    if pages:
        unknown = sorted(set(pages) - set(extracted))
        if unknown:
            raise CourseError(f"no page {', '.join(unknown)}: pages are docnames such as index or chapters/graphs")
        extracted = {name: extracted[name] for name in pages}
    problems = []
    for each in catalogs.editions(root):
        terms = catalogs.glossary(each.language, root)
        retired = catalogs.retired(each.language, root)
        ways: dict[str, dict[str, list[str]]] = {}  # a repeated English sentence -> its translations -> where
        for docname, template in extracted.items():
            path = catalogs.catalog_path(each.language, docname, root)
            if not path.exists():
                if complete:
                    problems.append(f"{path.relative_to(root)}: missing (run `python -m tools.editions update`)")
                continue
            catalog = catalogs.read_catalog(path, each.language)
            for english in template:
                if not english.id:
                    continue
                msgid = str(english.id)
                found = message_problems(msgid, catalog, terms, retired, complete)
                for problem in found:
                    problems.append(f"{path.relative_to(root)}: {problem}: {_short(msgid)}")
                translated = catalogs.translation(catalog.get(msgid))
                if not found and translated is not None and len(msgid.split()) >= SAME_SENTENCE_WORDS:
                    ways.setdefault(msgid, {}).setdefault(translated, []).append(docname)
        for msgid, translations in ways.items():
            if len(translations) > 1:
                where = "; ".join(f"{', '.join(pages)}" for pages in translations.values())
                problems.append(f"locales/{each.language}: translated {len(translations)} ways in different pages "
                                f"({where}); use one: {_short(msgid)}")
    return problems


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
