"""The translation gate's decision on one message (tools/editions/gate.py), without a Sphinx build: a missing, empty
or fuzzy translation, markup dropped, added or left unrendered, a link target moved, a glossary term or a retired word.
tests/test_editions.py runs the gate on the committed catalogs against the extracted English (integration)."""

from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog

from tools.editions import gate


def _catalog(pairs: dict[str, str], fuzzy: tuple[str, ...] = ()) -> Catalog:
    catalog = Catalog(locale="ko")
    for msgid, msgstr in pairs.items():
        catalog.add(msgid, msgstr, flags=["fuzzy"] if msgid in fuzzy else [])
    return catalog


@pytest.mark.parametrize(("catalog", "problem"), [
    (_catalog({}), "missing: the catalog has no entry for it"),
    (_catalog({"Features": ""}), "not translated yet"),
    (_catalog({"Features": "기능"}, fuzzy=("Features",)), "fuzzy: the English changed since it was translated"),
])
def test_a_missing_empty_or_fuzzy_translation_fails_only_when_complete(catalog: Catalog, problem: str) -> None:
    (found,) = gate.message_problems("Features", catalog, {}, complete=True)
    assert found.startswith(problem)
    assert gate.message_problems("Features", catalog, {}) == []  # the edition shows the English and says so
    assert gate.message_problems("Features", _catalog({"Features": "기능"}), {}) == []


@pytest.mark.parametrize("translation,problem", [
    ("`torch.cond`을 사용합니다.", None),
    ("`torch.cond` 을 {doc}`x`", "adds role {doc}`x`"),
    ("조건을 사용합니다.", "drops or changes inline code `torch.cond`"),
    ("**`torch.cond`**는 사용합니다.", "bold or italic that does not render"),
])
def test_markup_must_survive_translation(translation: str, problem: str | None) -> None:
    catalog = _catalog({"Use `torch.cond`.": translation})
    problems = gate.message_problems("Use `torch.cond`.", catalog, {})
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_a_link_target_must_not_change() -> None:
    msgid = "See [the blog](https://pytorch.org/blog/)."
    ok = _catalog({msgid: "[블로그](https://pytorch.org/blog/)를 보십시오."})
    moved = _catalog({msgid: "[블로그](https://pytorch.kr/blog/)를 보십시오."})
    assert gate.message_problems(msgid, ok, {}) == []
    assert any("link target" in p for p in gate.message_problems(msgid, moved, {}))


def test_code_that_opens_with_a_brace_is_code_not_a_role() -> None:
    """`{"str": "encode"}` is inline code; the words between two such spans are prose to translate."""
    msgid = 'Stored as `{"str": "encode"}` in 2.12 and 2.13, as `{"name": "encode"}` in 2.15.'
    translation = '2.12와 2.13에서는 `{"str": "encode"}`로, 2.15에서는 `{"name": "encode"}`로 저장됩니다.'
    catalog = _catalog({msgid: translation})
    assert gate.message_problems(msgid, catalog, {}) == []


def test_glossary_terms_are_translated_one_way() -> None:
    terms = {"graph capture": "그래프 캡처", "tensor": "텐서"}
    msgid = "Graph capture records tensors."
    assert gate.glossary_problems(msgid, "그래프 캡처는 텐서를 기록합니다.", terms) == []
    problems = gate.glossary_problems(msgid, "그래프 포착은 텐서를 기록합니다.", terms)
    assert problems == ["the glossary translates 'graph capture' as '그래프 캡처', which this translation lacks"]
    # Code, HTML attributes and quoted English the translation keeps verbatim are not prose: no term to translate.
    english = 'Run `tensor.py`; it prints "tensor ok".'
    assert gate.glossary_problems(english, '`tensor.py`를 실행하면 "tensor ok"를 출력합니다.', terms) == []
    assert gate.glossary_problems(english, "`tensor.py`를 실행하면 “tensor ok”를 출력합니다.", terms) == []


GLOSSARY_HOLES = {"launch": "런치", "prerequisites": "선수 지식", "format": "포맷", "gradient": "그래디언트"}


def _gate_on_one_message(english: str, translation: str, retired: dict[str, list[str]] | None = None) -> list[str]:
    """The gate's verdict on one message of a small in-memory catalog."""
    return gate.message_problems(english, _catalog({english: translation}), GLOSSARY_HOLES, retired)


@pytest.mark.parametrize("english,translation", [
    ("Does `GradScaler` still pass over the gradients?", "`GradScaler`는 여전히 그래디언트를 한 번 훑나요?"),
    ('Ask: "Does `GradScaler` still pass over the gradients?"',
     '질문: "`GradScaler`는 여전히 그래디언트를 한 번 훑나요?"'),
])
def test_a_quoted_question_the_translation_translates_is_prose(english: str, translation: str) -> None:
    """Issue 44: 기울기 got through inside double quotes, which the gate skipped whatever the translation did."""
    assert _gate_on_one_message(english, translation) == []
    problems = _gate_on_one_message(english, translation.replace("그래디언트", "기울기"))
    assert problems == ["the glossary translates 'gradient' as '그래디언트', which this translation lacks"]


@pytest.mark.parametrize("english,term", [
    ("Each op launches a kernel.", "launch"), ("Each op launched a kernel.", "launch"),
    ("Launching a kernel costs microseconds.", "launch"), ("Its prerequisite is the graphs lesson.", "prerequisites"),
])
def test_a_term_in_another_form_than_its_plural_is_the_term(english: str, term: str) -> None:
    """Issue 44: the gate added only an `s` to a term, so launched, launching and a singular term escaped."""
    problems = _gate_on_one_message(english, "각 연산은 커널을 실행합니다.")
    assert problems == [f"the glossary translates {term!r} as {GLOSSARY_HOLES[term]!r}, which this translation lacks"]


def test_a_term_of_several_words_is_inflected_as_a_noun() -> None:
    terms = {"graph capture": "그래프 캡처"}
    assert gate.glossary_problems("A graph captured earlier keeps its id.", "먼저 캡처한 그래프는 id를 유지합니다.",
                                  terms) == []
    assert gate.glossary_problems("Graph captures record.", "그래프 포착은 기록합니다.", terms) != []


def test_a_retired_word_beside_the_glossary_word_fails() -> None:
    """Issue 44: a message passed when it held the glossary's word beside the one it replaced (형식 next to 포맷)."""
    english = "E8M0 is a format of exponents only; the block format stores one per block."
    translation = "E8M0는 지수만 있는 포맷이며, 블록 형식은 블록마다 하나를 저장합니다."
    assert _gate_on_one_message(english, translation) == []
    assert _gate_on_one_message(english, translation, {"format": ["형식"]}) == [
        "the glossary translates 'format' as '포맷', not '형식', which this translation also uses"]
    assert _gate_on_one_message(english, translation.replace("형식", "포맷"), {"format": ["형식"]}) == []
