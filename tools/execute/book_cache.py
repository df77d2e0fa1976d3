"""The hand-off to the book: executed notebooks stored in Jupyter Book's execution cache (jupyter-cache).

nbval's run (tools/execute/pytest_plugin.py) stores each notebook whose cells all passed in the cache that
`execute_notebooks: cache` in _config.yml reads, so a book build shows exactly that run and executes nothing;
book_cache_problems says which notebooks a build executed itself. Every build checks it as it ends
(_ext/executed_nothing.py: the English book, each edition, the PDFs), and so can a command:

    python -m tools.execute.book_cache [DIR] [NOTEBOOK ...]   exit 1 if a build executed a notebook (default: every one)
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tools.course import ROOT, notebook_paths, relative_path

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.execute.book_cache", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cache", type=Path, nargs="?", default=BOOK_CACHE, help=f"default: {BOOK_CACHE}")
    parser.add_argument("notebooks", type=Path, nargs="*", help="default: every notebook under notebooks/")
    args = parser.parse_args(argv)
    paths = args.notebooks or notebook_paths()
    problems = book_cache_problems(args.cache, paths)
    for problem in problems:
        print(f"book cache: {problem}")
    print(f"book cache: {len(paths) - len(problems)} of {len(paths)} notebook(s) shown from the checked run; "
          f"the book build executed {len(problems)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
