"""The student-copy check: each lesson's student copy (tools/workshop/student.py) run as a learner runs it, alone in an
empty folder through the engine, where only the checks after its stubbed solutions may fail.

    python -m tools.execute.student_copies [ENTRY ...]   run the student copy of each lesson (a _toc.yml entry such
                                                         as notebooks/graphs/accelerator-graph; default: every lesson
                                                         with exercises); exit 1 unless each fails only at the
                                                         checks of its stubs
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tools.course import ROOT, CourseError, notebook_paths, read_notebook
from tools.execute import engine
from tools.lesson import exercise_cells, has_solutions
from tools.workshop.student import student_path, student_version


def student_copy_problems(entry: str, folder: Path, root: Path = ROOT) -> list[str]:
    """Run a lesson's student copy alone in `folder` (as a learner does, through the course's executor) and say what
    went wrong: a cell other than the check after a stubbed solution failed, or such a check passed."""
    path = root / f"{entry}.ipynb"
    notebook = read_notebook(path)
    checks = {cells.check for cells in exercise_cells(notebook, path)}
    _, failed_cells = engine.run_as_learner(student_version(notebook), folder)
    failed = set(failed_cells)
    problems = [f"{entry}: cell {index} failed in the student copy, and it is not the check of an exercise"
                for index in sorted(failed - checks)]
    problems += [f"{entry}: the check in cell {index} passed on the stub" for index in sorted(checks - failed)]
    return problems


def lessons_with_copies(root: Path = ROOT) -> list[str]:
    """The entries of every lesson that has a student copy (it has exercises), in the order of notebooks/."""
    return [path.relative_to(root).with_suffix("").as_posix() for path in notebook_paths(root)
            if has_solutions(read_notebook(path))]


def checked_entry(given: str, root: Path = ROOT) -> str:
    """A lesson's entry from the command line (its .ipynb path works too), or a CourseError saying what is wrong."""
    entry = given.removesuffix(".ipynb")
    path = root / f"{entry}.ipynb"
    if not path.is_file():
        raise CourseError(f"{given}: no such lesson (give its entry, e.g. notebooks/graphs/accelerator-graph)")
    if not has_solutions(read_notebook(path)):
        raise CourseError(f"{given}: has no exercises, so it has no student copy")
    student_path(entry)  # a notebook outside notebooks/ has no student copy either
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.execute.student_copies", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("entries", nargs="*", metavar="ENTRY",
                        help="lessons whose student copies to run (default: every lesson with exercises)")
    args = parser.parse_args(argv)
    try:
        entries = [checked_entry(given) for given in args.entries] or lessons_with_copies()
        problems = []
        with tempfile.TemporaryDirectory(prefix="student-copies-") as scratch:
            for entry in entries:
                found = student_copy_problems(entry, Path(scratch) / student_path(entry).removesuffix(".ipynb"))
                print(f"{'ok  ' if not found else 'FAIL'} {entry}", flush=True)
                problems += found
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(problems) or "every student copy fails only at the checks of its stubs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
