"""Stamp shared cells into notebooks from one source (tests/content/ fails a copy that differs from it).

A code cell tagged `stamp:NAME` holds a copy of tools/snippets/NAME.py. Every notebook opens with the
install cell (`stamp:install`) and the setup cell (`stamp:setup`); a notebook may carry other stamped
cells (for example a benchmark that a recording tool also imports).

    python -m tools.author.stamp            stamp every notebook
    python -m tools.author.stamp PATH ...   only these notebooks
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tools.course import (
    SNIPPETS,
    CourseError,
    cell_source,
    cell_tags,
    notebook_paths,
    read_notebook,
    write_notebook,
)

TAG_PREFIX = "stamp:"
OPENING = ("install", "setup")  # the stamped cells every notebook opens with, in this order


def snippet_path(name: str) -> Path:
    """The file a `stamp:NAME` cell copies."""
    return SNIPPETS / f"{name}.py"


def snippet_source(name: str) -> str:
    path = snippet_path(name)
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in SNIPPETS.glob("*.py"))) or "none"
        raise CourseError(f"no snippet named {name!r} in {SNIPPETS} (known: {known})")
    return path.read_text(encoding="utf-8").rstrip("\n")


def stamped_cells(notebook: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Each stamped cell of a notebook with the snippet name its tag points to."""
    found = []
    for cell in notebook["cells"]:
        for tag in cell_tags(cell):
            if tag.startswith(TAG_PREFIX):
                found.append((cell, tag[len(TAG_PREFIX):]))
    return found


def drifted(path: Path) -> list[str]:
    """Names of the snippets whose copy in this notebook differs from the source."""
    notebook = read_notebook(path)
    names = [name for cell, name in stamped_cells(notebook) if cell_source(cell) != snippet_source(name)]
    present = {name for _, name in stamped_cells(notebook)}
    names += [f"{name} (missing)" for name in OPENING if name not in present]
    return names


def stamp(path: Path) -> bool:
    """Copy each snippet into its cells; True when the file changed."""
    notebook = read_notebook(path)
    changed = False
    for cell, name in stamped_cells(notebook):
        source = snippet_source(name)
        if cell_source(cell) != source:
            cell["source"] = source
            changed = True
    if changed:
        write_notebook(path, notebook)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: all under notebooks/)")
    args = parser.parse_args(argv)
    paths = args.paths or notebook_paths()
    try:
        for path in paths:
            if stamp(path):
                print(f"stamped {path}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
