"""The student-copy check: each lesson's student copy (tools/workshop/student.py) run as a learner runs it, alone in an
empty folder with Run All's semantics (a failing cell stops the run unless it is tagged
`raises-exception`, as the copies' checks are): every other cell must pass, every check after a stubbed solution must
fail with its message, and the run must reach the end.

    python -m tools.execute.student_copies [ENTRY ...]   run the student copy of each lesson (a _toc.yml entry such
                                                         as notebooks/graphs/accelerator-graph; default: every lesson
                                                         with exercises); exit 1 unless each reaches its end and
                                                         fails only at the checks of its stubs
    ... --python PY                                      the kernels run in PY, the learner's path: a venv built
                                                         from binder/requirements.txt alone, as the student
                                                         branch holds it (the weekly workflow); each copy's
                                                         first output line must name the taught torch
    ... --branch DIR [--pip-arg ARG ...]                 the student branch as `python -m tools.workshop student
                                                         DIR --branch` wrote it: a venv built in DIR/.venv from
                                                         exactly what DIR holds (pip install -r
                                                         binder/requirements.txt run in DIR, as repo2docker does),
                                                         then each copy the branch holds run in its place there,
                                                         its kernel in that venv; ARG goes to pip as it is (e.g.
                                                         --retries=0 where PyTorch's CPU index cannot be reached,
                                                         --find-links=WHEELS), not into the branch's files
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tools.course import ROOT, CourseError, notebook_paths, read_notebook, taught_release
from tools.execute.kernel import run_as_learner
from tools.lesson import exercise_cells, has_solutions
from tools.workshop.student import student_path, student_version


def student_copy_problems(entry: str, folder: Path, root: Path = ROOT, python: str | None = None,
                          copy: dict[str, Any] | None = None) -> list[str]:
    """Run a lesson's student copy alone in `folder` with Run All's semantics (as a learner does) and say what went
    wrong: a cell other than the check after a stubbed solution failed (Run All stops
    there), such a check passed, or the run did not reach the end. With `python` (the learner's interpreter), its
    first output line must also name the taught release. `copy`: the copy to run (default: made from the lesson now),
    for example the one a student branch holds."""
    path = root / f"{entry}.ipynb"
    notebook = read_notebook(path)
    checks = {cells.check for cells in exercise_cells(notebook, path)}
    student = student_version(notebook, entry, root) if copy is None else copy
    executed, failed_cells, finished = run_as_learner(student, folder, python)
    failed = set(failed_cells)
    problems = [f"{entry}: cell {index} failed in the student copy, and it is not the check of an exercise"
                for index in sorted(failed - checks)]
    if finished:
        problems += [f"{entry}: the check in cell {index} passed on the stub" for index in sorted(checks - failed)]
    else:
        problems.append(f"{entry}: Run All stops at cell {failed_cells[-1]} and never reaches the end")
    if python is not None:
        first = first_output_line(executed)
        if f"torch {taught_release()}" not in first:
            problems.append(f"{entry}: its first output line does not name torch {taught_release()}: {first!r}")
    return problems


def first_output_line(notebook: Any) -> str:
    """The first line a run of the notebook printed (its install cell's verdict on the installed torch)."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            if text.strip():
                return "".join(text).strip().splitlines()[0]
    return ""


def lessons_with_copies(root: Path = ROOT) -> list[str]:
    """The entries of every lesson that has a student copy (it has exercises), in the order of notebooks/."""
    return [path.relative_to(root).with_suffix("").as_posix() for path in notebook_paths(root)
            if has_solutions(read_notebook(path))]


def branch_venv(branch: Path, pip_args: list[str]) -> Path:
    """A venv at `branch`/.venv built from exactly what the student branch holds: `pip install -r
    binder/requirements.txt` run in `branch` (its `-e .` is the branch itself), as repo2docker does. Its Python."""
    requirements = branch / "binder" / "requirements.txt"
    if not requirements.is_file():
        raise CourseError(f"--branch {branch}: no binder/requirements.txt there (write the branch with "
                          f"`python -m tools.workshop student {branch} --branch`)")
    venv = branch / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt", *pip_args]
    if subprocess.run(install, cwd=branch, check=False).returncode != 0:
        raise CourseError(f"--branch {branch}: `{' '.join(install[1:])}` failed there (pip's output above)")
    return python


def branch_copy(branch: Path, entry: str) -> dict[str, Any]:
    """The student copy of a lesson that the branch holds, or a CourseError naming the missing file."""
    path = branch / student_path(entry)
    if not path.is_file():
        raise CourseError(f"--branch {branch}: no student copy {student_path(entry)} there")
    return read_notebook(path)


def check_branch(branch: Path, entries: list[str], pip_args: list[str]) -> list[str]:
    """Build the branch's venv, then run each lesson's copy as the branch holds it, in its own folder there (where
    Binder opens it, beside the branch's results/). The problems found."""
    started = time.monotonic()
    python = branch_venv(branch, pip_args)
    print(f"venv from {branch}/binder/requirements.txt in {time.monotonic() - started:.0f} s", flush=True)
    problems = []
    for entry in entries:
        started = time.monotonic()
        folder = (branch / student_path(entry)).parent
        found = student_copy_problems(entry, folder, python=str(python), copy=branch_copy(branch, entry))
        print(f"{'ok  ' if not found else 'FAIL'} {entry} ({time.monotonic() - started:.0f} s)", flush=True)
        problems += found
    return problems


def check_copies(entries: list[str], python: str | None) -> list[str]:
    """Run each lesson's student copy, made from the lesson now, alone in an empty folder. The problems found."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="student-copies-") as scratch:
        for entry in entries:
            folder = Path(scratch) / student_path(entry).removesuffix(".ipynb")
            found = student_copy_problems(entry, folder, python=python)
            print(f"{'ok  ' if not found else 'FAIL'} {entry}", flush=True)
            problems += found
    return problems


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
    parser.add_argument("--python", help="the interpreter the kernels run in (default: this one)")
    parser.add_argument("--branch", type=Path, metavar="DIR",
                        help="a student branch written by `python -m tools.workshop student DIR --branch`: build a "
                             "venv from what it holds and run its copies there")
    parser.add_argument("--pip-arg", action="append", default=[], metavar="ARG",
                        help="with --branch: an argument for pip install (repeatable), e.g. --pip-arg=--retries=0")
    args = parser.parse_args(argv)
    try:
        if args.python is not None and not Path(args.python).is_file():
            raise CourseError(f"--python {args.python}: no such interpreter")
        if args.pip_arg and args.branch is None:
            raise CourseError("--pip-arg goes with --branch (the pip that builds the branch's venv)")
        if args.branch is not None and args.python is not None:
            raise CourseError("--branch builds its own interpreter: leave out --python")
        entries = [checked_entry(given) for given in args.entries] or lessons_with_copies()
        if args.branch is not None:
            problems = check_branch(args.branch, entries, args.pip_arg)
        else:
            problems = check_copies(entries, args.python)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(problems) or "every student copy reaches its end and fails only at the checks of its stubs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
