"""The authors' quick loop: prove every exercise's check, stopping each notebook after its last check.

    python -m tools.execute.exercises                    check every notebook that has exercises
    python -m tools.execute.exercises NOTEBOOK ...       only these notebooks
    python -m tools.execute.exercises --only LABEL NOTEBOOK
                                                 prove one exercise; stop after its check
    python -m tools.execute.exercises --wrong-answers DIR NOTEBOOK ...
                                                 take the wrong answers from DIR (default: tests/exercises/)

It runs the course's one executor (tools/execute/engine.py) with its exercise harness (tools/execute/harness.py says
what a proof is). `make test` proves every exercise inside its execution of every notebook; this command stops after the
last check it proves (nothing after it is left to prove).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tools.course import CourseError, notebook_paths, read_notebook, relative_path
from tools.execute import engine
from tools.execute.harness import WRONG_ANSWERS, Report
from tools.lesson import has_solutions


def check_notebook(path: Path, wrong_root: Path = WRONG_ANSWERS, only: set[str] | None = None) -> list[Report]:
    """Prove one notebook's exercises; one report per exercise, plus one for the notebook if it broke.

    The notebook runs as in `make test`, but stops after the last check it proves. With `only`, prove just those
    labels: the other exercises run as plain cells."""
    result = engine.execute_notebook(path, engine.Options(wrong_answers=wrong_root, only=only,
                                                            stop_after_last_check=True))
    return result.exercise_reports()


def notebooks_with_exercises() -> list[Path]:
    return [path for path in notebook_paths() if has_solutions(read_notebook(path))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.execute.exercises", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks (default: every one with exercises)")
    parser.add_argument("--only", action="append", metavar="LABEL",
                        help="prove only this exercise (repeatable); the notebook stops after its check")
    parser.add_argument("--wrong-answers", type=Path, default=WRONG_ANSWERS, metavar="DIR",
                        help="folder of <label>/wrong_*.py (default: tests/exercises/)")
    args = parser.parse_args(argv)
    failed = 0
    total = time.perf_counter()
    try:
        paths = args.notebooks or notebooks_with_exercises()
        for path in paths:
            started = time.perf_counter()
            reports = check_notebook(path, args.wrong_answers, set(args.only) if args.only else None)
            for report in reports:
                print(report, flush=True)
                failed += not report.ok
            print(f"     {relative_path(path)}: {time.perf_counter() - started:.1f} s", flush=True)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{failed} failure(s) in {len(paths)} notebook(s), {time.perf_counter() - total:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
