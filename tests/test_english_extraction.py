"""The English is extracted once per state of the sources (tools/editions/extract.py): the gate of the static step,
the editions' builds and the tests read one extraction, and a changed source is extracted again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.editions import extract


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each gettext build, as the folder it wrote one page's .pot into (no Sphinx run)."""
    done: list[Path] = []

    def gettext(builder: str, out: Path, overrides: dict[str, Any], doctrees: Path, root: Path) -> None:
        assert builder == "gettext" and overrides["nb_execution_mode"] == "off", "extracting executes nothing"
        out.mkdir(parents=True)
        (out / "index.pot").write_text(f'msgid ""\nmsgstr ""\n\nmsgid "{(root / "index.md").read_text().strip()}"\n'
                                       'msgstr ""\n', encoding="utf-8")
        done.append(out)

    monkeypatch.setattr(extract, "sphinx_build", gettext)
    return done


def _book(root: Path, text: str) -> None:
    (root / "index.md").write_text(text, encoding="utf-8")
    (root / "notebooks").mkdir(exist_ok=True)


def test_the_same_sources_are_extracted_once(tmp_path: Path, builds: list[Path]) -> None:
    _book(tmp_path, "Hello")
    first = extract.extract_templates(tmp_path)
    second = extract.extract_templates(tmp_path)
    assert len(builds) == 1, "the second reader must reuse the extraction"
    assert [m.id for m in first["index"] if m.id] == [m.id for m in second["index"] if m.id] == ["Hello"]


def test_a_changed_source_is_extracted_again_and_the_old_extraction_goes(tmp_path: Path, builds: list[Path]) -> None:
    _book(tmp_path, "Hello")
    extract.extract_templates(tmp_path)
    _book(tmp_path, "Hello again")
    changed = extract.extract_templates(tmp_path)
    assert len(builds) == 2 and [m.id for m in changed["index"] if m.id] == ["Hello again"]
    assert [path.name for path in (tmp_path / extract.ENGLISH).iterdir()] == [extract.sources_digest(tmp_path)]


def test_build_outputs_catalogs_tests_and_hidden_folders_are_not_sources(tmp_path: Path) -> None:
    _book(tmp_path, "Hello")
    before = extract.sources_digest(tmp_path)
    for folder in ("_build", "locales", "tests", ".pytest_cache", "notebooks/__pycache__"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "written.txt").write_text("by a step of make test")
    assert extract.sources_digest(tmp_path) == before
    (tmp_path / "notebooks" / "new.ipynb").write_text("{}")
    assert extract.sources_digest(tmp_path) != before
