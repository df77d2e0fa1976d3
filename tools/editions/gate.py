"""The translation gate (`check`), which no library offers: every message of every page translated in every
edition (none missing, empty or fuzzy), its markup kept, its glossary terms used, a sentence several pages share
translated one way, all against a fresh extraction of the English as it is now."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog

from tools.course import ROOT, CourseError
from tools.editions import catalogs, extract
from tools.editions.markup import markup, prose, stray_emphasis

# An English message of at least this many words that several pages share is translated the same way in each.
SAME_SENTENCE_WORDS = 1


def glossary_problems(msgid: str, msgstr: str, terms: dict[str, str]) -> list[str]:
    """Each glossary term the English uses whose translation is missing from the translated text."""
    found = []
    english = prose(msgid)
    for term, translation in terms.items():
        used = re.search(rf"(?<![\w-]){re.escape(term)}s?(?![\w-])", english, re.IGNORECASE)
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
        extracted = extract.all_templates(Path(scratch) / "gettext", root)
    if pages:
        unknown = sorted(set(pages) - set(extracted))
        if unknown:
            raise CourseError(f"no page {', '.join(unknown)}: pages are docnames such as index or chapters/graphs")
        extracted = {name: extracted[name] for name in pages}
    problems = []
    for each in catalogs.editions(root):
        terms = catalogs.glossary(each.language, root)
        ways: dict[str, dict[str, list[str]]] = {}  # a repeated English sentence -> its translations -> where
        for docname, template in extracted.items():
            path = catalogs.catalog_path(each.language, docname, root)
            if not path.exists():
                problems.append(f"{path.relative_to(root)}: missing (run `python -m tools.editions update`)")
                continue
            catalog = catalogs.read_catalog(path, each.language)
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


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
