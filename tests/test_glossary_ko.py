"""The Korean glossary holds the line (issue 38, items 18 and 20): a drifting word put back into a Korean catalog fails
the editions' gate (`python -m tools.editions check`), and the words the glossary replaced stay out of Korean prose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from tools.course import ROOT
from tools.editions import catalogs, extract, gate, markup

LANGUAGE = "ko"
CATALOGS = sorted((ROOT / catalogs.LOCALES / LANGUAGE).glob("**/*.po"))

# term -> a word that translated it before the glossary had it (put back, the gate must name the term)
DRIFT = {
    "course": "코스",
    "wheel": "휠",
    "worker": "worker",
    "launch": "실행",
    "lowering": "lowering",
    "format": "형식",
    "gradient": "기울기",
    "schema": "schema",
    "header": "머리말",
    "CUDA graph": "CUDA graph",
    "stand-in": "대용",
    "release": "릴리스",
    "workload": "작업 부하",
    "layout freezing": "layout freezing",
    "precompiled": "미리 컴파일",
    "graph break": "그래프 브레이크",
    "prerequisites": "사전 지식",
    "dispatcher": "dispatcher",
    "dispatch mode": "dispatch mode",
    "binade": "binade",
}

# Words that must not come back in Korean prose (code, HTML and quoted English aside), whatever the English says.
RETIRED = {
    "코스": "course is 강좌",
    "휠": "wheel stays wheel, as in the release summary",
    "머리말": "a notebook's header is 헤더 (머리말 is a book's preface)",
    r"대용(?!량)": "stand-in is 대역 (대용량, bulk, is another word)",
    "작업 부하": "workload is 워크로드",
    "그래프 브레이크": "graph break stays graph break, as in the release summary",
    "릴리스": "release is 릴리즈, as in the release summary",
    "미리 컴파일": "precompiled is 사전 컴파일, as in the release summary",
    r"(?<![A-Za-z_-])ranks?(?![A-Za-z_-])": "rank is 랭크",
    r"(?<![A-Za-z_-])workers?(?![A-Za-z_-])": "worker is 워커",
    r"(?<![A-Za-z_-])schemas?(?![A-Za-z_-])": "schema is 스키마",
    r"(?<![A-Za-z_-])lowerings?(?![A-Za-z_-])": "lowering is 로워링",
    r"CUDA graph": "CUDA graph is CUDA 그래프",
    r"^\*\*사전 지식\*\*": "the Prerequisites line is **선수 지식**",
    r"^\*\*소요 시간\*\*": "the Time line is **시간**",
}


def _messages() -> list[tuple[Path, str, str]]:
    found = []
    for path in CATALOGS:
        for message in catalogs.read_catalog(path, LANGUAGE):
            if message.id and message.string and not message.fuzzy:
                found.append((path, str(message.id), str(message.string)))
    return found


def _uses(term: str, english: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(term)}s?(?![\w-])", markup.prose(english), re.IGNORECASE) is not None


def _drifted_message(term: str, drift: str) -> tuple[Path, str, str]:
    """A committed Korean message whose English uses the term, with the glossary's word replaced by the old one."""
    translation = catalogs.glossary(LANGUAGE)[term]
    for path, msgid, msgstr in _messages():
        if _uses(term, msgid) and translation.lower() in msgstr.lower():
            return path, msgid, re.sub(re.escape(translation), drift, msgstr, flags=re.IGNORECASE)
    raise AssertionError(f"no Korean message uses {term!r} as {translation!r}")


def test_the_glossary_names_every_drifting_term() -> None:
    terms = catalogs.glossary(LANGUAGE)
    assert set(DRIFT) <= set(terms), sorted(set(DRIFT) - set(terms))


@pytest.mark.parametrize("term", sorted(DRIFT))
def test_a_reintroduced_drift_word_fails_the_gate(term: str) -> None:
    path, msgid, drifted = _drifted_message(term, DRIFT[term])
    catalog = Catalog(locale=LANGUAGE)
    catalog.add(msgid, drifted)
    problems = gate.message_problems(msgid, catalog, catalogs.glossary(LANGUAGE))
    assert any(f"the glossary translates {term!r}" in p for p in problems), (path, problems)


def test_the_whole_gate_fails_on_a_reintroduced_drift_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m tools.editions check`, end to end on one page, with 강좌 turned back into 코스 in its catalog."""
    page = "chapters/where-it-has-run"
    path = catalogs.catalog_path(LANGUAGE, page)
    english = Catalog()
    for message in catalogs.read_catalog(path, LANGUAGE):
        if message.id:
            english.add(message.id)
    read = catalogs.read_catalog

    def drifted(where: Path, language: str) -> Catalog:
        catalog = read(where, language)
        if language == LANGUAGE:
            for message in catalog:
                if message.id and message.string:
                    message.string = str(message.string).replace("강좌", "코스")
        return catalog

    monkeypatch.setattr(extract, "all_templates", lambda out, root=ROOT: {page: english})
    assert [p for p in gate.check(pages=[page]) if f"locales/{LANGUAGE}/" in p] == []
    monkeypatch.setattr(catalogs, "read_catalog", drifted)
    problems = [p for p in gate.check(pages=[page]) if f"locales/{LANGUAGE}/" in p]
    assert problems and all("the glossary translates 'course' as '강좌'" in p for p in problems), problems


@pytest.mark.parametrize("retired", sorted(RETIRED))
def test_a_retired_word_stays_out_of_korean_prose(retired: str) -> None:
    pattern = re.compile(retired, re.MULTILINE)
    found = [f"{path.relative_to(ROOT)}: {msgstr[:80]}" for path, _msgid, msgstr in _messages()
             if pattern.search(markup.prose(msgstr) if not retired.startswith("^") else msgstr)]
    assert not found, f"{RETIRED[retired]}: " + "; ".join(found[:5])
