"""The Chinese edition's glossary holds its terms (issue 38, items 19 and 20): a word that once drifted, put back
into a translation, fails the editions' gate (tools/editions/gate.py), and 课程 stays the word for the course, not for
a lesson, which the gate cannot see (it asks that a term's translation be present, not that another be absent)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from tools.course import ROOT
from tools.editions import catalogs, extract, gate

LANGUAGE = "zh_CN"
TERMS = catalogs.glossary(LANGUAGE)
# Each term that drifted, its word now, and the word it drifted to: putting that word back must fail the gate.
DRIFTED = [
    ("clamp", "钳制", "截断"),
    ("clip", "裁剪", "截断"),
    ("ties to even", "中点取偶", "平局取偶"),
    ("ties-to-even", "中点取偶", "平局取偶"),
    ("dispatcher", "分发器", "调度器"),
    ("binade", "二进制区间", "binade"),
    ("lowering", "lowering", "下降"),
    ("eigendecomposition", "特征值分解", "特征分解"),
    ("process group", "进程组", "进程群组"),
    ("cell", "单元格", "单元"),
    ("course", "课程", "教程"),
    ("participant", "学员", "参与者"),
    # issue 44, item 10
    ("CPU-only", "纯 CPU", "仅 CPU"),
    ("hook", "hook", "钩子"),
    ("sequence number", "序列号", "序号"),
    ("expandable segments", "expandable segments", "可扩展段"),
    ("stub", "占位", "存根"),
    ("rendezvous", "rendezvous", "会合"),
]


def _catalogs() -> dict[Path, Catalog]:
    """Every committed catalog of the edition, the pages', the extensions' and the quizzes'."""
    folder = ROOT / catalogs.LOCALES / LANGUAGE
    return {path: catalogs.read_catalog(path, LANGUAGE) for path in sorted(folder.rglob("*.po"))}




def _messages_using(term: str) -> list[tuple[Path, Catalog, str]]:
    return [(path, catalog, str(m.id)) for path, catalog in _catalogs().items()
            for m in catalog if m.id and m.string and gate.uses(term, str(m.id), str(m.string))]


def _only_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    chinese = [catalogs.edition(LANGUAGE)]
    monkeypatch.setattr(catalogs, "editions", lambda root=ROOT: chinese)


def test_every_drifted_term_is_in_the_glossary() -> None:
    for term, word, _old in DRIFTED:
        assert TERMS.get(term) == word, f"locales/{LANGUAGE}/glossary.yml should translate {term!r} as {word!r}"


def test_the_quizzes_pass_the_gate_and_fail_it_with_clamp_as_截断(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole gate on the quizzes' English as it is now: the committed catalog passes; with 钳制 put back to
    截断 it fails on the question about the 2.12.0 cast, naming the term (missing, and its retired word used)."""
    _only_chinese(monkeypatch)
    quizzes_only = {catalogs.QUIZ_PAGE: extract.quiz_template(ROOT)}
    monkeypatch.setattr(extract, "all_templates", lambda root=ROOT: quizzes_only)
    assert gate.check(pages=[catalogs.QUIZ_PAGE]) == []

    read = catalogs.read_catalog

    def reintroduced(path: Path, language: str) -> Catalog:
        catalog = read(path, language)
        for message in catalog:
            if message.id and isinstance(message.string, str):
                message.string = message.string.replace("钳制", "截断")
        return catalog

    monkeypatch.setattr(catalogs, "read_catalog", reintroduced)
    problems = gate.check(pages=[catalogs.QUIZ_PAGE])
    assert [p.split(": ")[1] for p in problems] == [  # the word is missing, and its retired one is there
        "the glossary translates 'clamp' as '钳制', which this translation lacks",
        "the glossary translates 'clamp' as '钳制', not '截断', which this translation also uses"], problems
    assert all("clamps to ±448" in p for p in problems), problems


@pytest.mark.parametrize("term,word,old", DRIFTED, ids=[d[0] for d in DRIFTED])
def test_a_reintroduced_word_fails_the_gate_on_every_message(term: str, word: str, old: str) -> None:
    """Each message of the edition whose English uses the term passes as committed, and fails once its word is
    replaced by the one it drifted from."""
    found = _messages_using(term)
    assert found, f"no Chinese message uses {term!r}: the test would prove nothing"
    problem = f"the glossary translates {term!r} as {word!r}, which this translation lacks"
    for path, catalog, msgid in found:
        assert problem not in gate.message_problems(msgid, catalog, TERMS), (path, msgid)
        drifted = Catalog(locale=LANGUAGE)
        translation = str(catalog[msgid].string)
        drifted.add(msgid, translation.replace(word, old))
        assert problem in gate.message_problems(msgid, drifted, TERMS), (path, msgid, translation)


def test_clamp_as_截断_in_a_lesson_fails_the_gate() -> None:
    """The issue's own case: mx-from-first-principles, where the reference clamps before it casts."""
    path = catalogs.catalog_dir(LANGUAGE) / "notebooks/mx-quantization/mx-from-first-principles.po"
    catalog = catalogs.read_catalog(path, LANGUAGE)
    msgid = next(str(m.id) for m in catalog if m.id and "The reference clamps first" in str(m.id))
    assert gate.message_problems(msgid, catalog, TERMS) == []
    catalog[msgid].string = str(catalog[msgid].string).replace("钳制", "截断")
    assert gate.message_problems(msgid, catalog, TERMS) == [
        "the glossary translates 'clamp' as '钳制', which this translation lacks"]


# 课程 is the course; a lesson is 课 (一课、每一课、本课、各课). 课程表 is a timetable, 课程路线 a track of the course.
NOT_THE_COURSE = re.compile(r"课程(?!表|路线)")
# Lessons named by their chapter or kind, which are never the course, whatever else the English says.
LESSONS_AS_COURSE = re.compile(r"(分布式|平台|图|迁移|旗舰|扫描器)课程|带参考答案的课程")


def lesson_as_course(msgid: str, msgstr: str) -> bool:
    """A translation that says 课程 where the English says no 'course': a lesson (or a day) read as the course."""
    if LESSONS_AS_COURSE.search(msgstr):
        return True
    return bool(NOT_THE_COURSE.search(msgstr)) and not gate.uses("course", msgid, msgstr)


def test_课程_is_the_course_and_never_a_lesson() -> None:
    wrong = [(path.relative_to(ROOT).as_posix(), str(m.id)[:80]) for path, catalog in _catalogs().items()
             for m in catalog if m.id and m.string and lesson_as_course(str(m.id), str(m.string))]
    assert wrong == [], f"课程 for a lesson (use 课: 一课、每一课、各课): {wrong}"


@pytest.mark.parametrize("msgid,msgstr,wrong", [
    ("Distributed lessons hang", "分布式课程卡住", True),
    ("Distributed lessons hang", "分布式各课卡住", False),
    ("Every lesson runs in this course's matrix.", "每一课都在本课程的矩阵中运行。", False),
    ("The schedules count 2 minutes per lesson.", "课程表为此每课预留 2 分钟。", False),
    ("If it stays red, the distributed lessons run on Colab, untested in this course.",
     "如果仍是红色，可以在 Colab 上学习分布式课程，这在本课程中未经测试。", True),
])
def test_the_lesson_check_catches_a_reintroduced_课程(msgid: str, msgstr: str, wrong: bool) -> None:
    assert lesson_as_course(msgid, msgstr) is wrong


# Every lesson's header opens its lines with the same words (issue 38 found two forms of them in the Korean edition).
HEADER_LINES = {
    "**What you will learn**": "**你将学到**",
    "**Prerequisites**:": "**前置知识**：",
    "**Time**:": "**时间**：讲授 ",
    "**Runs on**:": "**运行平台**：",
}


@pytest.mark.parametrize("english,chinese", HEADER_LINES.items())
def test_every_lesson_header_line_is_worded_one_way(english: str, chinese: str) -> None:
    found = [(path.name, str(m.string)[:40]) for path, catalog in _catalogs().items() for m in catalog
             if m.id and str(m.id).startswith(english)]
    assert len(found) >= 20, f"{english!r} opens only {len(found)} messages: has the header changed?"
    other = [each for each in found if not each[1].startswith(chinese)]
    assert other == [], f"{english!r} is {chinese!r} in the other lessons: {other}"


def test_a_noqa_comment_exempts_a_finding() -> None:
    """Issue 44: noqa's "accept" was 豁免 in four places and 接受 in two; it is 豁免 (a function's accepted
    arguments stay 接受, so this is not a glossary term)."""
    noqa = [(path.name, str(m.string)) for path, catalog in _catalogs().items() for m in catalog
            if m.id and m.string and "noqa" in str(m.id) and re.search(r"\baccept", str(m.id))]
    assert len(noqa) >= 4, noqa
    accepted = re.compile(r"接受[^。；，]*发现|被接受的 `# noqa")  # a finding 接受 (accepted) by a noqa comment
    assert [each for each in noqa if "豁免" not in each[1] or accepted.search(each[1])] == []


def test_场地_beside_教室_fails_the_gate() -> None:
    """Issue 44: room is not a term (the English also says "no room for it"), but 场地, its other word, is retired."""
    msgid = "In a hybrid room, pair the participants on Colab with those on a laptop."
    catalog = Catalog(locale=LANGUAGE)
    catalog.add(msgid, "在混合教室里，把用 Colab 的学员和用笔记本电脑的学员配对。")
    retired = catalogs.retired(LANGUAGE)
    assert gate.message_problems(msgid, catalog, TERMS, retired) == []
    catalog[msgid].string = "在混合场地里，把用 Colab 的学员和用笔记本电脑的学员配对。"
    assert gate.message_problems(msgid, catalog, TERMS, retired) == [
        "the glossary translates 'room' in the word its catalogs use, not '场地', which this translation also uses"]
