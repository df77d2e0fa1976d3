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
    "kernel launch": "실행",
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
    "prerequisite": "사전 지식",
    "dispatcher": "dispatcher",
    "dispatch mode": "dispatch mode",
    "binade": "binade",
    # issue 44, item 10
    "pre-flight": "pre-flight",
    "deprecated": "폐기되었",
    "custom op": "custom op",
    "Apple silicon": "Apple 실리콘",
    "workqueue": "워크큐",
    "stub": "자리 표시",
    "point cloud": "점 클라우드",
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




def _drifted_message(term: str, drift: str) -> tuple[Path, str, str]:
    """A committed Korean message whose English uses the term, with the glossary's word replaced by the old one."""
    translation = catalogs.glossary(LANGUAGE)[term]
    for path, msgid, msgstr in _messages():
        if gate.uses(term, msgid, msgstr) and translation.lower() in msgstr.lower():
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

    monkeypatch.setattr(extract, "all_templates", lambda root=ROOT: {page: english})
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


@pytest.mark.parametrize("term,old", [(t, w) for t, words in catalogs.retired(LANGUAGE).items() for w in words])
def test_a_retired_word_beside_the_glossary_word_fails_the_gate(term: str, old: str) -> None:
    """Issue 44: a committed message that uses the term passes; with the old word added beside the glossary's
    (형식 next to 포맷), it fails."""
    terms = catalogs.glossary(LANGUAGE)
    found = [(path, msgid, msgstr) for path, msgid, msgstr in _messages() if gate.uses(term, msgid, msgstr)]
    assert found, f"no Korean message uses {term!r}: the test would prove nothing"
    path, msgid, msgstr = found[0]
    catalog = Catalog(locale=LANGUAGE)
    catalog.add(msgid, msgstr)
    retired = catalogs.retired(LANGUAGE)
    assert gate.message_problems(msgid, catalog, terms, retired) == [], path
    catalog[msgid].string = f"{msgstr} ({old})"
    assert any(f"not {old!r}" in p for p in gate.message_problems(msgid, catalog, terms, retired)), path


def test_a_quoted_question_in_the_instructor_notes_is_held_to_the_glossary() -> None:
    """Issue 44: 기울기 got through inside double quotes in instructors/index ("pass over the gradients")."""
    path = catalogs.catalog_dir(LANGUAGE) / "instructors/index.po"
    catalog = catalogs.read_catalog(path, LANGUAGE)
    msgid = next(str(m.id) for m in catalog if m.id and "still pass over the gradients" in str(m.id))
    terms, retired = catalogs.glossary(LANGUAGE), catalogs.retired(LANGUAGE)
    assert gate.message_problems(msgid, catalog, terms, retired) == []
    catalog[msgid].string = str(catalog[msgid].string).replace("그래디언트", "기울기")
    assert gate.message_problems(msgid, catalog, terms, retired) == [
        "the glossary translates 'gradient' as '그래디언트', which this translation lacks",
        "the glossary translates 'gradient' as '그래디언트', not '기울기', which this translation also uses"]
