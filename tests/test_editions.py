"""The editions' gate (tools/editions/): it fails on a broken translation, and with `complete` on a missing, fuzzy
or stale one (tests/test_editions_fallback.py: the English shown in their place), the translated
notebooks carry exactly the catalogs' prose and the English code and outputs, and the switcher and the Korean
search stemmer do what _ext/editions.py says."""

from __future__ import annotations

import copy
import functools
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog

from tools.author import quiz
from tools.author.quiz import render
from tools.course import ROOT, CourseError, cell_source, cell_tags, notebook_paths, read_notebook, write_notebook
from tools.editions import build, catalogs, extract, gate, notebooks
from tools.editions.__main__ import main as editions_command
from tools.workshop import student

sys.path.insert(0, str(ROOT / "_ext"))
import editions as ext  # the Sphinx extension, from _ext/

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

LANGUAGES = [e.language for e in catalogs.editions()]
EXTRACT = extract.all_templates  # before any test replaces it


@functools.cache
def english() -> dict[str, Catalog]:
    """The English messages of every page, extracted once for this module."""
    return EXTRACT(ROOT)


def _check_index(monkeypatch: pytest.MonkeyPatch, alter: Any, complete: bool = True) -> list[str]:
    """The gate on the home page, with each catalog read through `alter` (the files are left as they are)."""
    read = catalogs.read_catalog

    def altered(path: Path, language: str) -> Catalog:
        return alter(read(path, language))

    monkeypatch.setattr(catalogs, "read_catalog", altered)
    monkeypatch.setattr(extract, "all_templates", lambda root=ROOT: {"index": english()["index"]})
    return gate.check(pages=["index"], complete=complete)


def test_the_committed_catalogs_pass_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _check_index(monkeypatch, lambda catalog: catalog) == []


def test_a_removed_translation_fails_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    title = "PyTorch 2.12 on Every Accelerator"

    def remove(catalog: Catalog) -> Catalog:
        catalog[title].string = ""
        return catalog

    problems = _check_index(monkeypatch, remove)
    assert [p for p in problems if "not translated yet" in p and title in p], problems
    assert len(problems) == len(LANGUAGES), problems
    assert _check_index(monkeypatch, remove, complete=False) == [], "an untranslated message shows in English"


def test_a_fuzzy_translation_fails_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    def blur(catalog: Catalog) -> Catalog:
        catalog["Features"].flags.add("fuzzy")
        return catalog

    problems = _check_index(monkeypatch, blur)
    assert len(problems) == len(LANGUAGES) and all("fuzzy" in p for p in problems), problems
    assert _check_index(monkeypatch, blur, complete=False) == [], "a fuzzy message shows in English"


def test_a_changed_english_sentence_reaches_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    changed = Catalog()
    for message in english()["index"]:
        if message.id:
            changed.add(str(message.id).replace("Features", "Feature lessons"))
    monkeypatch.setattr(extract, "all_templates", lambda root=ROOT: {"index": changed})
    problems = gate.check(pages=["index"], complete=True)
    assert len(problems) == len(LANGUAGES) and all("Feature lessons" in p for p in problems), problems


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_glossary_has_the_course_terms(language: str) -> None:
    terms = catalogs.glossary(language)
    for term in ("tensor", "graph capture", "conditional node", "microscaling", "collective", "fused kernel"):
        assert terms.get(term), f"locales/{language}/glossary.yml has no translation of {term!r}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.stem)
def test_translated_notebook_is_the_english_with_translated_prose(language: str, path: Path) -> None:
    """Code cells and outputs untouched (so nbval passes as on the English), and every translation that differs
    from its English is found in the notebook's markdown and used."""
    docname = path.relative_to(ROOT).with_suffix("").as_posix()
    catalog = catalogs.read_catalog(catalogs.catalog_dir(language) / f"{docname}.po", language)
    translated, used = notebooks.translated_notebook(path, catalog)
    original = read_notebook(path)
    for mine, theirs in zip(translated["cells"], original["cells"], strict=True):
        if render.DATA_TAG in cell_tags(theirs):
            assert "show_quiz(QUIZ, labels=QUIZ_LABELS)" in cell_source(mine)
        elif theirs["cell_type"] != "markdown":
            assert _without_alt(mine) == _without_alt(theirs)  # a figure's alt text is prose, and translated
    expected = {str(m.id) for m in catalog if m.id and m.string and m.string != m.id and not m.fuzzy}
    assert expected - used == set(), f"not found in the notebook's markdown: {sorted(expected - used)[:3]}"
    prose = "".join(cell_source(c) for c in translated["cells"] if c["cell_type"] == "markdown")
    # An English title kept in its own translation, glossed (a reference's title), is no leftover.
    kept = [str(m.string) for m in catalog if m.id and m.string and not m.fuzzy and str(m.id) in str(m.string)]
    leftovers = [m for m in expected if len(m) > 40 and m in prose and not any(m in k for k in kept)]
    assert not leftovers, f"English left in the translated notebook: {leftovers[:2]}"


def _without_alt(cell: dict[str, Any]) -> dict[str, Any]:
    cell = copy.deepcopy(cell)
    cell.get("metadata", {}).get("mystnb", {}).get("image", {}).pop("alt", None)
    return cell


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_translated_notebook_passes_nbval(language: str, tmp_path: Path) -> None:
    """One translated notebook (among the quickest, with a quiz) run as a reader runs it, alone in a folder; the
    weekly workflow runs them all."""
    docname = "notebooks/graphs/accelerator-graph"
    catalog = catalogs.read_catalog(catalogs.catalog_dir(language) / f"{docname}.po", language)
    notebook, _used = notebooks.translated_notebook(ROOT / f"{docname}.ipynb", catalog)
    path = tmp_path / "accelerator-graph.ipynb"
    write_notebook(path, notebook)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax", "-q", path.name],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_translated_quiz_asks_the_catalogs_questions(language: str) -> None:
    """The quiz cell of a translated notebook reads back, through the runtime's own parser, as the lesson's
    questions in the edition's words; the book shows the same (render.static_html)."""
    docname = "notebooks/graphs/cond-in-graphs"
    _chapter, questions = quiz.lesson_questions()[docname]
    catalog = catalogs.read_catalog(catalogs.catalog_dir(language) / f"{docname}.po", language)
    notebook, _used = notebooks.translated_notebook(ROOT / f"{docname}.ipynb", catalog)
    cell = next(c for c in notebook["cells"] if render.DATA_TAG in cell_tags(c))
    namespace: dict[str, Any] = {"show_quiz": lambda text, labels: (text, labels)}
    exec(cell_source(cell).replace("answer_form = ", "shown = "), namespace)
    text, labels = namespace["shown"]
    translate = catalogs.translator(language, catalogs.QUIZ_PAGE)
    expected = quiz.translated(questions, translate)
    assert [q["text"] for q in render.read_back(text)] == [q.text for q in expected]
    assert labels == catalogs.quiz_labels(language)


def test_translate_markdown_replaces_whole_blocks_only() -> None:
    text = "## Summary\n\n- the graph\n  replays;\n- Summary of it\n\n| a | Summary |\n|---|---|\n"
    out, found = notebooks.translate_markdown(text, {"Summary": "요약", "the graph replays;": "그래프가 재생됩니다;"})
    assert out == "## 요약\n\n- 그래프가 재생됩니다;\n- Summary of it\n\n| a | 요약 |\n|---|---|\n"
    assert found == {"Summary", "the graph replays;"}


class _App:
    def __init__(self, language: str) -> None:
        self.config = type("Config", (), {"language": language, "course_editions": ed_config()})()


def ed_config() -> list[dict[str, str]]:
    return [{"language": e.language, "name": e.name, "html_lang": e.html_lang, "search": e.search}
            for e in catalogs.editions()]


@pytest.mark.parametrize("language,target,href", [
    ("en", "ko", "../../ko/notebooks/graphs/cond-in-graphs.html"),
    ("ko", "en", "../../../notebooks/graphs/cond-in-graphs.html"),
    ("zh_CN", "ko", "../../../ko/notebooks/graphs/cond-in-graphs.html"),
])
def test_switcher_links_the_same_page(language: str, target: str, href: str) -> None:
    app = _App(language)
    edition = next(e for e in ext._editions(app) if e["language"] == target)  # type: ignore[arg-type]
    assert ext._href(app, "notebooks/graphs/cond-in-graphs", edition) == href  # type: ignore[arg-type]


@pytest.mark.parametrize("word,stem", [("텐서는", "텐서"), ("그래프를", "그래프"), ("디바이스에서", "디바이스"),
                                       ("텐서", "텐서"), ("CUDA", "cuda"), ("정도", "정도")])
def test_korean_search_finds_words_without_their_particles(word: str, stem: str) -> None:
    assert ext.SearchKorean({}).stem(word) == stem


def test_korean_search_splits_where_the_script_changes() -> None:
    """A particle written onto a name (`eigh`를) leaves the name as a word of its own, and is not indexed itself."""
    korean = ext.SearchKorean({})
    words = [korean.stem(word) for word in korean.split("eigh를 텐서는 cond에서") if korean.word_filter(word)]
    assert words == ["eigh", "텐서", "cond"]


@pytest.mark.parametrize("language", ["zh_CN", "ko"])
def test_an_editions_student_copies_are_its_translated_lessons(tmp_path: Path, language: str) -> None:
    """The same student copies as the English ones (solutions removed, the same code), with translated prose, and
    the edition's pages link them in the editions branch."""
    english = student.write_student_notebooks(tmp_path / "en")
    translated = notebooks.write_student_notebooks(tmp_path / language, language)
    assert [p.relative_to(tmp_path / language) for p in translated] == [p.relative_to(tmp_path / "en") for p in english]
    for ours, theirs in zip(translated, english, strict=True):
        cells, english_cells = read_notebook(ours)["cells"], read_notebook(theirs)["cells"]
        assert [c["cell_type"] for c in cells] == [c["cell_type"] for c in english_cells]
        code = [cell_source(c) for c in cells if c["cell_type"] == "code" and render.DATA_TAG not in cell_tags(c)]
        assert code == [cell_source(c) for c in english_cells
                        if c["cell_type"] == "code" and render.DATA_TAG not in cell_tags(c)]
        assert cell_source(cells[0]) != cell_source(english_cells[0]), f"{ours}: its title is not translated"
    links = student.student_links("notebooks/graphs/cond-in-graphs", ROOT, notebooks.EDITIONS_BRANCH,
                                   notebooks.student_branch_folder(language))
    assert links["colab"].endswith(f"/blob/editions/{language}/student/graphs/cond-in-graphs.ipynb")
    assert links["download"] == "student/graphs/cond-in-graphs.ipynb"


def test_every_hidden_cell_button_has_words_in_the_editions() -> None:
    """myst-nb's prompts for each kind of hidden cell, and each prompt a notebook sets in a cell's metadata, are in
    the extension's catalog (a new prompt in a notebook would otherwise show in English in every edition)."""
    prompts = {f"{verb} code cell {kind}" for verb in ("Show", "Hide") for kind in ("content", "source", "output",
                                                                                      "outputs")}
    for path in notebook_paths():
        for cell in read_notebook(path)["cells"]:
            settings = cell.get("metadata", {}).get("mystnb", {})
            prompts |= {settings[key] for key in ("code_prompt_show", "code_prompt_hide") if key in settings}
    assert prompts - set(ext.hidden_cell_prompts()) == set()


def test_figure_alt_texts_are_extracted_and_translated() -> None:
    """An alt text from a figure cell's metadata is a message of its page, and the translated notebook carries it."""
    path = ROOT / "notebooks" / "graphs" / "launch-overhead.ipynb"
    alts = extract.figure_alts(read_notebook(path))
    assert len(alts) == 1 and alts[0].startswith("Log-log plot")
    catalog = catalogs.read_catalog(catalogs.catalog_path("zh_CN", "notebooks/graphs/launch-overhead"), "zh_CN")
    notebook, used = notebooks.translated_notebook(path, catalog)
    assert alts[0] in used
    translated = [cell["metadata"]["mystnb"]["image"]["alt"] for cell in notebook["cells"]
                  if "image" in cell.get("metadata", {}).get("mystnb", {})]
    assert translated == [catalog.get(alts[0]).string]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--language", "fr"], "no edition fr in _config.yml's course_editions (zh_CN, ko)"),
        (["--jobs", "0"], "--jobs must be 1 or more, not 0"),
    ],
)
def test_build_refuses_bad_arguments_with_a_message(arguments: list[str], message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert editions_command(["build", *arguments]) == 2
    assert capsys.readouterr().err.strip() == f"error: {message}"


def test_side_by_side_builds_report_the_edition_that_failed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    started: list[list[str]] = []

    class Process:
        def __init__(self, command: list[str], cwd: Path) -> None:
            started.append(command)
            self.language = command[-1]

        def wait(self) -> int:
            return 1 if self.language == "ko" else 0

    monkeypatch.setattr(build.subprocess, "Popen", Process)
    # The English is extracted once, before the editions' processes start (they read that extraction).
    monkeypatch.setattr(build, "extract_templates", lambda root: started.append(["extract"]) or {})
    with pytest.raises(CourseError, match="no English book yet"):
        build.build_side_by_side(["zh_CN", "ko"], jobs=2, root=tmp_path)
    assert started == []
    (tmp_path / "_build" / "html").mkdir(parents=True)
    (tmp_path / "_build" / "html" / "index.html").write_text("")
    with pytest.raises(CourseError, match="the build of ko failed"):
        build.build_side_by_side(["zh_CN", "ko"], jobs=2, root=tmp_path)
    assert [command[-1] for command in started] == ["extract", "zh_CN", "ko"]


def test_translated_nodes_name_their_page_not_the_message_they_came_from() -> None:
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    page = new_document("page", get_default_settings(Parser))
    message = new_document("<translated>", get_default_settings(Parser))
    message.settings.env = "the whole build environment"
    page += nodes.paragraph("", "", nodes.Text("번역"))
    for node in page.findall(include_self=False):  # as Sphinx's Locale transform leaves them
        node.document = message
    ext._translated_nodes_in_their_page(None, page)  # type: ignore[arg-type]
    assert all(node.document is page for node in page.findall(include_self=False))
    assert "the whole build environment" not in str(pickle.dumps(page))


def test_chinese_search_splits_and_stems_as_sphinx_does() -> None:
    from sphinx.search.zh import SearchChinese as Sphinx

    text = "在 CUDA 上，torch.cond 以条件节点的形式被捕获进 CUDA 图；ROCm、MPS 和 XPU 以 eager 方式运行 a bf16 ops。"
    ours, theirs = ext.SearchChinese({}), Sphinx({})
    theirs.latin_terms = []  # Sphinx's list is shared by the class: start it empty, as ours starts
    words = ours.split(text)
    assert words == theirs.split(text)
    assert [ours.stem(w) for w in words] == [theirs.stem(w) for w in words]
    assert ours.stem("ops") == "ops" and ours.stem("running") == "run"
