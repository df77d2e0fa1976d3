"""The one command that executes notebooks: nbval over the lessons, with the course's plugin (pytest_plugin.py, whose
docstring has the table of its options). `make notebooks`, `make exercises`, `make matrix`, `make flaky`,
`make nbval`, `make record-runs` and the weekly workflow all run it, each with its options.

    python -m tools.execute.command lessons     print every lesson of _toc.yml (what `make notebooks` runs)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from tools.course import ROOT, CourseError, toc_files

PLUGIN = ("-p", "tools.execute.pytest_plugin", "-p", "no:cacheprovider", "--nbval-lax")
JOBS = 2  # notebooks at a time on a CPU run; an accelerator recording runs them one by one


def parallel(jobs: int) -> list[str]:
    """pytest-xdist's options for `jobs` notebooks at a time: each notebook's tests on one worker, in order, the
    notebooks in the plugin's order (the longest first)."""
    return ["-n", str(jobs), "--dist", "loadfile", "--no-loadscope-reorder"] if jobs > 1 else []


def lessons(root: Path = ROOT) -> list[str]:
    """Every lesson of _toc.yml under notebooks/ (not the recorded runs), in book order."""
    return [f"{entry}.ipynb" for entry in toc_files(root)
            if entry.startswith("notebooks/") and (root / f"{entry}.ipynb").is_file()]


def notebooks_command(python: str, *options: str, jobs: int = JOBS, targets: Sequence[str] = (),
                      root: Path = ROOT) -> list[str]:
    """The one command: nbval and the course's plugin over `targets` (default: every lesson), `jobs` at a time."""
    unknown = [target for target in targets if not (root / target).exists()]
    if unknown:
        raise CourseError(f"{', '.join(unknown)}: not a lesson of _toc.yml (e.g. {lessons(root)[0]})")
    return [python, "-m", "pytest", *PLUGIN, *parallel(jobs), "-q", *options, *(targets or lessons(root))]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["lessons"]:
        print(f"usage: python -m tools.execute.command lessons (got {' '.join(args) or 'nothing'})", file=sys.stderr)
        return 2
    print("\n".join(lessons()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
