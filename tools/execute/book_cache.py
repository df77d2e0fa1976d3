"""The hand-off to the book: executed notebooks stored in Jupyter Book's execution cache (jupyter-cache).

The executor (tools/execute/engine.py) stores each notebook that passed its checks in the cache that `execute_notebooks:
cache` in _config.yml reads, so the book build shows exactly that run and executes nothing; book_cache_problems
says, after the build, which notebooks the build executed itself (none, or `make book` fails).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tools.course import ROOT, relative_path

BOOK_CACHE = ROOT / "_build" / ".jupyter_cache"
EXECUTOR = "tools.execute"  # stored with each notebook the executor puts into the book's cache


def cache_executed(cache_path: Path, path: Path, executed: Any, seconds: float) -> None:
    """Store an executed notebook in a Jupyter Book (jupyter-cache) cache, where the book's build finds it.

    The cache matches a notebook by the hash of its code cells' sources and metadata and its kernelspec, so the
    executed notebook keeps every cell's metadata as the source has it (nbclient ran without timing metadata)."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(cache_path))
    bundle = CacheBundleIn(copy.deepcopy(executed), str(path.resolve()),
                           data={"execution_seconds": round(seconds, 2), "executor": EXECUTOR})
    cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)


def book_cache_problems(cache_path: Path, paths: Iterable[Path]) -> list[str]:
    """Notebooks whose entry in the book's cache was not written by this executor: the book executed them.

    After `make test`'s book build every notebook's entry must be this executor's; a notebook the build had to
    execute gets an entry written by the build (or none, if it failed)."""
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_path))
    problems = []
    for path in paths:
        try:
            record = cache.match_cache_notebook(nbformat.read(str(path), as_version=4))
        except KeyError:
            problems.append(f"{relative_path(path)}: not in {cache_path}")
            continue
        if record.data.get("executor") != EXECUTOR:
            problems.append(f"{relative_path(path)}: the book build executed it (cache entry {record.pk})")
    return problems
