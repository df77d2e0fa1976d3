"""`make exercises`: the authors' quick loop, an alias of the one command (tools/execute/command.py) with its options.

    python -m tools.execute.exercises [NOTEBOOK ...]              --exercises-only: prove every exercise, each notebook
                                                                 stopping after its last check (default: every lesson)
    python -m tools.execute.exercises --only LABEL [NOTEBOOK ...]  --exercise LABEL: prove one exercise, its notebook
                                                                 stopping after its check
    python -m tools.execute.exercises --wrong-answers DIR ...      take the wrong answers from DIR (tests/exercises/)

tools/execute/harness.py says what a proof is; `make test` proves every exercise inside nbval's one run of each lesson.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from tools.course import ROOT, CourseError
from tools.execute.command import notebooks_command
from tools.execute.harness import WRONG_ANSWERS


def command(notebooks: list[str], only: list[str], wrong_answers: Path = WRONG_ANSWERS) -> list[str]:
    """The one command with the quick loop's options."""
    options = [f"--exercise={label}" for label in only] or ["--exercises-only"]
    return notebooks_command(sys.executable, *options, f"--wrong-answers={wrong_answers}", jobs=1, targets=notebooks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.execute.exercises", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", help="notebooks (default: every lesson)")
    parser.add_argument("--only", action="append", default=[], metavar="LABEL",
                        help="prove only this exercise (repeatable); the notebook stops after its check")
    parser.add_argument("--wrong-answers", type=Path, default=WRONG_ANSWERS, metavar="DIR",
                        help="folder of <label>/wrong_*.py (default: tests/exercises/)")
    args = parser.parse_args(argv)
    try:
        return subprocess.run(command(args.notebooks, args.only, args.wrong_answers), cwd=ROOT,
                              check=False).returncode
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
