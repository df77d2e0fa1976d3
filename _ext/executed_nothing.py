"""Every build fails if it executed a notebook: the book, both editions and the PDFs render nbval's checked run.

`make test` runs every lesson once under nbval (tools/execute/pytest_plugin.py) and stores each passing run in the
execution cache that _config.yml names. A build that finds a notebook missing from that cache executes it itself
(myst-nb's `cache` mode) and shows a run nobody checked. When a build that reads the cache ends, this asks the cache
who wrote the entry of each notebook page it rendered (tools/execute/book_cache.py) and fails the build on any that the
build executed. Pages whose execution is off (the recorded runs) and builds with execution off (the catalogs'
extraction) have nothing to check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from tools.course import read_notebook
from tools.execute.book_cache import book_cache_problems


def executed_pages(app: Sphinx) -> list[Path]:
    """The notebook pages this build rendered through the execution cache."""
    pages = []
    for docname in sorted(app.env.found_docs):
        path = Path(app.env.doc2path(docname))
        if path.suffix == ".ipynb" and read_notebook(path)["metadata"].get("mystnb", {}).get("execution_mode") != "off":
            pages.append(path)
    return pages


def _check(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.config.nb_execution_mode != "cache":
        return
    problems = book_cache_problems(Path(app.srcdir) / app.config.nb_execution_cache_path, executed_pages(app))
    if problems:
        raise ExtensionError("the build executed notebooks instead of rendering nbval's checked run (`make "
                             "notebooks` fills the cache): " + "; ".join(problems))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", _check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
