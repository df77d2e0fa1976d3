"""A translation that points at a section by its heading quotes that heading as its edition translates it (issue
44, item 9): "see "How the timings are computed"" in English is "见“时间是如何计算的”" in Chinese, not the English
heading, nor the heading translated a second way. The editions' gate cannot see this (it checks markup, links and
glossary terms), so this test reads every catalog: wherever an English message quotes a heading of the course or a
label of its buttons (in straight or curly quotes, in bold, or as a link's text), the translation must hold that
name's translation, and must not quote the English name instead."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from tools.course import ROOT, cell_source, read_notebook, toc_files
from tools.editions import catalogs

LANGUAGES = [e.language for e in catalogs.editions()]
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$")
FENCE = ("```", "~~~")
# Text a message sets apart as a name: "…", “…”, ‘…’, **…**, or a link's text [...](target).
QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|‘([^’\n]+)’|\*\*([^*\n]+)\*\*|(?<!!)\[([^\]\n]+)\]\(')
# The README is not translated: a message that sends the reader to it quotes its English words (beside the
# edition's heading of the same section, which the rule below still asks for).
ENGLISH_ONLY = "README"


def page_headings(page: str, root: Path = ROOT) -> list[str]:
    """The headings of one page of the book (a .md page or a notebook's markdown cells), as Sphinx's gettext
    builder makes them messages: the text after the #s."""
    notebook = root / f"{page}.ipynb"
    if notebook.exists():
        texts = [cell_source(c) for c in read_notebook(notebook)["cells"] if c["cell_type"] == "markdown"]
    else:
        texts = [(root / f"{page}.md").read_text(encoding="utf-8")]
    found = []
    for text in texts:
        fenced = False
        for line in text.splitlines():
            if line.lstrip().startswith(FENCE):
                fenced = not fenced
            elif not fenced and (match := HEADING.match(line)):
                found.append(match.group(1))
    return found


def translated_headings(language: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Each English heading of the book that names something (two words or more: a one-word heading such as
    "Memory" or "Colab" is also a word of prose and a bold label), with the translations its pages give it. A
    heading its page's catalog does not translate yet (missing, empty or fuzzy: the edition shows the English and
    says so, and only `check --complete` fails on it) is left out."""
    headings: dict[str, set[str]] = {}
    for page in toc_files(root):
        path = catalogs.catalog_path(language, page, root)
        catalog = catalogs.read_catalog(path, language) if path.exists() else Catalog(locale=language)
        for heading in page_headings(page, root):
            translation = catalogs.translation(catalog.get(heading))
            if len(heading.split()) > 1 and translation is not None:
                headings.setdefault(heading, set()).add(translation)
    return headings


def translated_labels(language: str, root: Path = ROOT) -> dict[str, set[str]]:
    """The words the book's own buttons and labels show (course.po: "Show solution", "Reveal the answers"), which a
    page names in bold or quotes when it tells the reader what to click: two words or more, no placeholder."""
    path = catalogs.catalog_path(language, catalogs.EXTENSION_PAGE, root)
    labels: dict[str, set[str]] = {}
    for message in catalogs.read_catalog(path, language):
        if isinstance(message.id, str) and len(message.id.split()) > 1 and "{" not in message.id and message.string:
            labels.setdefault(message.id.strip(), set()).add(str(message.string))
    return labels


def names(language: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Every name a message may quote: the book's headings and its labels, each with the edition's translations."""
    found = translated_headings(language, root)
    for label, translations in translated_labels(language, root).items():
        found.setdefault(label, set()).update(translations)
    return found


def quoted(text: str) -> list[str]:
    return [next(group for group in match.groups() if group).strip() for match in QUOTED.finditer(text)]


def crossref_problems(msgid: str, msgstr: str, headings: dict[str, set[str]]) -> list[str]:
    """What is wrong with how the translation `msgstr` quotes the headings its English `msgid` quotes."""
    problems = []
    for name in quoted(msgid):
        translations = headings.get(name.rstrip(".:"), set()) - {name.rstrip(".:")}
        if translations and not any(t in msgstr for t in translations):
            problems.append(f"quotes {name!r} but not its translation ({' / '.join(sorted(translations))})")
    if ENGLISH_ONLY not in msgid:
        for name in quoted(msgstr):
            if headings.get(name.rstrip(".:"), {name.rstrip(".:")}) != {name.rstrip(".:")}:
                problems.append(f"quotes {name!r} in English")
    return problems


def edition_catalogs(language: str, root: Path = ROOT) -> dict[Path, Catalog]:
    folder = root / catalogs.LOCALES / language
    return {path: catalogs.read_catalog(path, language) for path in sorted(folder.rglob("*.po"))}


def edition_problems(language: str, root: Path = ROOT) -> list[str]:
    headings = names(language, root)
    problems = []
    for path, catalog in edition_catalogs(language, root).items():
        for message in catalog:
            translation = catalogs.translation(message)
            if isinstance(message.id, str) and message.id and translation is not None:
                for problem in crossref_problems(message.id, translation, headings):
                    problems.append(f"{path.relative_to(root)}: {message.id[:60]!r}...: {problem}")
    return problems


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_quoted_heading_is_the_editions_heading(language: str) -> None:
    assert edition_problems(language) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_heading_of_the_book_is_found_and_translated(language: str) -> None:
    """The rule above holds only if headings are found as the catalogs hold them: each one is a translated message
    (a heading the extraction missed or mangled would be missing from the catalogs: fewer than 200 found). A
    heading in quotes is a message the course prints in English, and stays English."""
    headings = translated_headings(language)
    assert len(headings) > 200
    english = [h for h, translations in headings.items() if translations == {h} and not h.startswith('"')]
    assert [h for h in english if re.search(r"[a-z]{4} [a-z]{4}", h)] == []


# The holes issue 44 found, each put back: English left in quotes, the heading translated a second way, a link whose
# text is not the target's heading, an unquoted heading beside a quoted English one.
HOLES = [
    ("ko", 'Each lesson\'s slot holds its room minutes (see "How the timings are computed"):',
     '각 레슨의 시간 칸에는 강의실 기준 시간이 들어갑니다("How the timings are computed"(시간 계산 방식) 참고).'),
    ("ko", 'Each lesson\'s slot holds its room minutes (see "How the timings are computed"):',
     '각 레슨의 시간 칸에는 강의실 기준 시간이 들어갑니다("시간 계산 방식" 참고).'),
    ("zh_CN", 'less the sections (see "Sections a full day skips" below).',
     '再减去小节（见下文“Sections a full day skips”（全天跳过的小节））。'),
    ("ko", "[A compiled function that did not compile](../notebooks/optimizers-and-compiler/compile-warnings-and-knobs"
           ".ipynb#a-compiled-function-that-did-not-compile)",
     "[컴파일되지 않은 컴파일 함수](../notebooks/optimizers-and-compiler/compile-warnings-and-knobs.ipynb"
     "#a-compiled-function-that-did-not-compile)"),
    ("ko", "the solution cell below each one is hidden (**Show solution** here, double-click it in Colab)",
     "각 연습 문제 아래의 풀이 셀은 숨겨져 있고(여기서는 **Show solution**을 누르고, Colab에서는 더블클릭하고)"),
    ("zh_CN", "(the README's \"Contribute a run on your accelerator\").",
     "（见 README 的 “Contribute a run on your accelerator”，即在你的加速器上贡献一次运行）。"),
]


@pytest.mark.parametrize(("language", "english", "translation"), HOLES)
def test_a_heading_quoted_otherwise_than_the_edition_translates_it_fails(language: str, english: str,
                                                                          translation: str) -> None:
    assert crossref_problems(english, translation, names(language)) != []


def test_a_hole_put_back_into_a_catalog_fails_the_edition(monkeypatch: pytest.MonkeyPatch) -> None:
    read = catalogs.read_catalog
    english = 'Scan your own project'

    def with_hole(path: Path, language: str) -> Catalog:
        catalog = read(path, language)
        if path.name == "workshop-setup.po":
            for message in catalog:
                if isinstance(message.string, str) and f'"{english}"' in str(message.id):
                    message.string = message.string.replace("여러분의 프로젝트 스캔하기", english)
        return catalog

    monkeypatch.setattr(catalogs, "read_catalog", with_hole)
    problems = edition_problems("ko")
    assert len(problems) == 2 and all("workshop-setup.po" in p for p in problems), problems


def test_a_translated_or_readme_quote_passes() -> None:
    headings = translated_headings("ko")
    assert crossref_problems('see "How the timings are computed"', '"시간 계산 방법" 참고', headings) == []
    assert crossref_problems("the README's \"Contribute a run on your accelerator\"",
                             'README의 "Contribute a run on your accelerator" 단락, 이 책의 '
                             '"여러분의 가속기에서 실행한 결과 기여하기" 절', headings) == []
