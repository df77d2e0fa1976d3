"""The stamp tool copies shared cells from one source and reports every copy that drifted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.author import stamp
from tools.course import ROOT, CourseError, cell_source, read_notebook, write_notebook


def test_drift_is_reported_then_fixed(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    path = tmp_path / "lesson.ipynb"
    good_notebook["cells"][2]["source"] += "\nprint('a local edit')"
    write_notebook(path, good_notebook)
    assert stamp.drifted(path) == ["setup"]
    assert stamp.stamp(path) is True
    assert stamp.drifted(path) == []
    assert stamp.stamp(path) is False, "a second stamp changes nothing"
    assert cell_source(read_notebook(path)["cells"][2]) == stamp.snippet_source("setup")


def test_a_notebook_without_setup_cell_is_reported(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    path = tmp_path / "lesson.ipynb"
    del good_notebook["cells"][2]
    write_notebook(path, good_notebook)
    assert stamp.drifted(path) == ["setup (missing)"]


def test_unknown_snippet_is_a_clear_error(tmp_path: Path, good_notebook: dict[str, Any]) -> None:
    path = tmp_path / "lesson.ipynb"
    good_notebook["cells"][3]["metadata"]["tags"] = ["stamp:no_such_snippet"]
    write_notebook(path, good_notebook)
    with pytest.raises(CourseError, match="no snippet named 'no_such_snippet'"):
        stamp.stamp(path)


def test_bad_paths_get_clear_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert stamp.main([str(tmp_path / "missing.ipynb")]) == 2
    assert "no such notebook" in capsys.readouterr().err
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    assert stamp.main([str(broken)]) == 2
    assert "not a valid notebook" in capsys.readouterr().err


def test_the_scanner_lesson_imports_the_installed_package() -> None:
    """The upgrade scanner is an installed package: its lesson imports it, and no cell carries a stamped copy (its
    one helper writes the sample project's notebook)."""
    notebook = read_notebook(ROOT / "notebooks" / "migration" / "upgrade-scanner.ipynb")
    assert [name for _, name in stamp.stamped_cells(notebook)] == ["install", "setup", "notebook_file", "quiz"]
    assert any("import torch_upgrade_scan" in cell_source(cell) for cell in notebook["cells"])
