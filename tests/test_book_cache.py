"""The hand-off to the book (tools/execute/book_cache.py) without a kernel: a notebook stored by the executor is
clean; one missing from the cache, changed since, or stored by the book's own build is named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn

from tools.execute import book_cache


def _notebook(folder: Path, name: str, *sources: str) -> tuple[Path, Any]:
    """A notebook on disk, and the same notebook as an executor would hand it over (outputs filled in)."""
    path = folder / f"{name}.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(path))
    executed = nbformat.from_dict(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(source, execution_count=number,
                                  outputs=[nbformat.v4.new_output("stream", name="stdout", text=f"{number}\n")])
        for number, source in enumerate(sources, start=1)], metadata=notebook.metadata))
    return path, executed


def test_a_notebook_the_executor_stored_is_clean(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path, executed = _notebook(tmp_path, "stored", "x = 1", "print(x)")
    book_cache.cache_executed(cache, path, executed, seconds=1.234)
    assert book_cache.book_cache_problems(cache, [path]) == []
    record = get_cache(str(cache)).match_cache_notebook(nbformat.read(str(path), as_version=4))
    assert record.data == {"execution_seconds": 1.23, "executor": book_cache.EXECUTOR}


def test_a_notebook_missing_or_changed_since_is_named(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    stored, executed = _notebook(tmp_path, "stored", "x = 1")
    book_cache.cache_executed(cache, stored, executed, seconds=1.0)
    missing, _ = _notebook(tmp_path, "missing", "y = 2")
    assert book_cache.book_cache_problems(cache, [stored, missing]) == [f"{missing}: not in {cache}"]
    _notebook(tmp_path, "stored", "x = 1", "print('a cell added after the run')")
    assert book_cache.book_cache_problems(cache, [stored]) == [f"{stored}: not in {cache}"]


def test_a_notebook_the_book_build_executed_is_named(tmp_path: Path) -> None:
    """What myst-nb stores when the build executes a notebook itself: no executor in the entry's data."""
    cache = tmp_path / "cache"
    path, executed = _notebook(tmp_path, "built", "x = 1")
    get_cache(str(cache)).cache_notebook_bundle(CacheBundleIn(executed, str(path), data={"execution_seconds": 1.0}),
                                                check_validity=False, overwrite=True)
    [problem] = book_cache.book_cache_problems(cache, [path])
    assert problem.startswith(f"{path}: the book build executed it (cache entry ")
