"""Prove every exercise's check: the solution passes it, the student stub and each wrong answer fail it.

    python -m tools.exercises                    check every notebook that has exercises
    python -m tools.exercises NOTEBOOK ...       only these notebooks
    python -m tools.exercises --only LABEL NOTEBOOK
                                                 prove one exercise; stop after its check
    python -m tools.exercises --wrong-answers DIR NOTEBOOK ...
                                                 take the wrong answers from DIR (default: tests/exercises/)

Each notebook runs in one kernel (the `python3` kernel of this interpreter), its cells in order. At each solution
cell (tag `solution`; its label is the one of the nearest {exercise} directive above it) the harness runs, each
followed by the check cell (the next code cell):

1. the student stub (the text tools.workshop.STUB writes into student notebooks): the check must fail with an
   assertion whose message helps;
2. each wrong answer `tests/exercises/<label>/wrong_*.py` (a complete replacement of the solution cell whose first
   line is `# Wrong: <what the learner did>`): the check must fail, with a message;
3. the real solution: the check must pass.

Before each attempt the notebook's global names are put back as they were, so that one attempt cannot hand names
to the next. Then the notebook goes on; cells after its last check are not run (nothing is left to prove).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from tools.course import (
    EXERCISE,
    EXERCISE_LABEL,
    ROOT,
    CourseError,
    cell_source,
    cell_tags,
    notebook_paths,
    read_notebook,
)

WRONG_ANSWERS = ROOT / "tests" / "exercises"
WRONG_PREFIX = "# Wrong: "
MIN_WRONG_ANSWERS = 3
CELL_TIMEOUT = 300  # seconds, as for nbval
NOT_LABELS = ("fixtures",)  # folders under tests/exercises/ that hold no wrong answers of the course

# Run in the kernel: remember the notebook's public names, and put them back before each attempt.
SAVE = "_exercise_harness_saved = {k: v for k, v in globals().items() if not k.startswith('_')}"
RESTORE = """for _exercise_harness_name in [k for k in globals() if not k.startswith('_')]:
    if _exercise_harness_name not in _exercise_harness_saved:
        del globals()[_exercise_harness_name]
globals().update(_exercise_harness_saved)"""


@dataclasses.dataclass(frozen=True)
class ExerciseCells:
    label: str
    solution: int  # index of the solution cell in the notebook
    check: int  # index of the check cell


@dataclasses.dataclass
class Report:
    """What the harness found for one exercise (or, with label '', for the notebook as a whole)."""

    notebook: Path
    label: str
    problems: list[str] = dataclasses.field(default_factory=list)
    wrong_answers: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        where = f"{_show(self.notebook)}" + (f" [{self.label}]" if self.label else "")
        if self.ok:
            return f"ok   {where}: stub and {self.wrong_answers} wrong answer(s) rejected, solution accepted"
        return f"FAIL {where}:\n" + "\n".join(f"     - {problem}" for problem in self.problems)


def _show(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def stub() -> str:
    """The solution cell of the student notebooks (tools.workshop writes it)."""
    from tools.workshop import STUB

    return STUB


def exercise_cells(notebook: dict[str, Any], path: Path) -> list[ExerciseCells]:
    """Each solution cell with its exercise label and its check cell, or a CourseError naming what is missing."""
    cells = notebook["cells"]
    found = []
    label = None
    for index, cell in enumerate(cells):
        if cell.get("cell_type") == "markdown":
            for block in EXERCISE.finditer(cell_source(cell)):
                match = EXERCISE_LABEL.search(block.group("body"))
                label = match.group(1) if match else None
                if not match:
                    raise CourseError(f"{_show(path)}: the exercise in cell {index} has no ':label:' line")
        if cell.get("cell_type") != "code" or "solution" not in cell_tags(cell):
            continue
        if label is None:
            raise CourseError(f"{_show(path)}: solution cell {index} has no {{exercise}} directive above it")
        check = next((i for i in range(index + 1, len(cells)) if cells[i].get("cell_type") == "code"), None)
        if check is None or "solution" in cell_tags(cells[check]):
            raise CourseError(f"{_show(path)}: solution cell {index} ({label}) has no check cell after it")
        found.append(ExerciseCells(label, index, check))
        label = None
    return found


def wrong_answer_files(label: str, root: Path = WRONG_ANSWERS) -> list[Path]:
    return sorted((root / label).glob("wrong_*.py"))


def wrong_line(path: Path) -> str:
    """The first line of a wrong answer: '# Wrong: what the learner did'."""
    text = path.read_text(encoding="utf-8")
    return text.splitlines()[0] if text else ""


def course_labels() -> dict[str, Path]:
    """Every exercise label of the course with its notebook."""
    labels = {}
    for path in notebook_paths():
        for exercise in exercise_cells(read_notebook(path), path):
            labels[exercise.label] = path
    return labels


def wrong_answer_problems(labels: dict[str, Path], root: Path = WRONG_ANSWERS) -> list[str]:
    """Static checks: three wrong answers per exercise, no folder without an exercise, the '# Wrong: ' line."""
    problems = []
    for label, path in labels.items():
        count = len(wrong_answer_files(label, root))
        if count < MIN_WRONG_ANSWERS:
            problems.append(f"{label} ({_show(path)}) has {count} wrong answer(s) under {_show(root / label)}/; "
                            f"write at least {MIN_WRONG_ANSWERS} (wrong_<slug>.py, first line '{WRONG_PREFIX}...')")
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        if folder.name in NOT_LABELS or folder.name.startswith(("_", ".")):
            continue
        if folder.name not in labels:
            problems.append(f"{_show(folder)}/ matches no exercise label (known: {', '.join(sorted(labels))})")
        for wrong in sorted(folder.glob("wrong_*.py")):
            if not wrong_line(wrong).startswith(WRONG_PREFIX) or not wrong_line(wrong)[len(WRONG_PREFIX):].strip():
                problems.append(f"{_show(wrong)} must start with '{WRONG_PREFIX}<what the learner did>'")
    return problems


class _Kernel:
    """One kernel of this interpreter, running cells one by one and saying how each ended."""

    def __init__(self, metadata: dict[str, Any], folder: Path) -> None:
        import nbformat
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import AsyncKernelManager
        from nbclient import NotebookClient

        class ThisInterpreter(KernelSpecManager):  # `python3` is ipykernel in sys.executable, whatever is installed
            def get_kernel_spec(self, kernel_name: str) -> Any:
                if kernel_name == "python3":
                    from ipykernel.kernelspec import RESOURCES, get_kernel_dict

                    return self.kernel_spec_class(resource_dir=RESOURCES, **get_kernel_dict())
                return super().get_kernel_spec(kernel_name)

        self._nbformat = nbformat
        self.work = nbformat.v4.new_notebook(metadata=metadata)
        manager = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=ThisInterpreter())
        self.client = NotebookClient(self.work, km=manager, kernel_name="python3", timeout=CELL_TIMEOUT,
                                     allow_errors=False, resources={"metadata": {"path": str(folder)}})

    def __enter__(self) -> _Kernel:
        self._context = self.client.setup_kernel(cleanup_kc=True)
        self._context.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._context.__exit__(*exc)

    def run(self, source: str, tags: list[str] | None = None) -> tuple[str, str] | None:
        """Run a cell; None when it finished, else (error name, message). A dead or stuck kernel raises."""
        from nbclient.exceptions import CellExecutionError

        cell = self._nbformat.v4.new_code_cell(source, metadata={"tags": tags or []})
        self.work.cells.append(cell)
        try:
            self.client.execute_cell(cell, len(self.work.cells) - 1)
        except CellExecutionError as error:
            return error.ename, error.evalue.strip()
        finally:
            cell.outputs = []  # keep memory flat: nothing here reads outputs
        return None


def _failure(error: tuple[str, str]) -> str:
    name, message = error
    return f"{name}: {message}" if message else f"{name} (no message)"


def check_notebook(path: Path, wrong_root: Path = WRONG_ANSWERS, only: set[str] | None = None) -> list[Report]:
    """Run one notebook under the harness; one report per exercise, plus one for the notebook if it broke.

    With `only`, prove just those labels: the other exercises run as plain cells, and the run stops after the
    last check it proves."""
    notebook = read_notebook(path)
    exercises = exercise_cells(notebook, path)
    if only is not None:
        unknown = only - {e.label for e in exercises}
        if unknown:
            raise CourseError(f"{_show(path)} has no exercise {', '.join(sorted(unknown))}")
        exercises = [e for e in exercises if e.label in only]
    reports = {e.solution: Report(path, e.label) for e in exercises}
    if not exercises:
        return []
    cells = notebook["cells"]
    checks = {e.check for e in exercises}
    by_solution = {e.solution: e for e in exercises}
    broken = Report(path, "")
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    with _Kernel(notebook.get("metadata", {}), path.parent) as kernel:
        try:
            for index, cell in enumerate(cells[:max(checks) + 1]):
                if cell.get("cell_type") != "code" or index in checks:
                    continue
                if index not in by_solution:
                    error = kernel.run(cell_source(cell), cell_tags(cell))
                    if error:
                        broken.problems.append(f"cell {index} failed, so the exercises after it were not checked: "
                                               f"{_failure(error)}")
                        break
                    continue
                started = time.perf_counter()
                _prove(kernel, by_solution[index], cells, reports[index], wrong_root)
                reports[index].seconds = time.perf_counter() - started
        except (CellTimeoutError, DeadKernelError) as error:  # a cell ran over CELL_TIMEOUT or killed the kernel
            broken.problems.append(f"the run stopped near cell {index}: {type(error).__name__}: "
                                   f"{str(error).strip().splitlines()[0] if str(error).strip() else ''}")
    if broken.problems:
        for report in reports.values():
            if not report.problems and not report.seconds:
                report.problems.append("not checked: an earlier cell failed (see the notebook's report)")
    return ([broken] if broken.problems else []) + list(reports.values())


def _prove(kernel: _Kernel, exercise: ExerciseCells, cells: list[dict[str, Any]], report: Report,
           wrong_root: Path) -> None:
    check = cell_source(cells[exercise.check])
    check_tags = [t for t in cell_tags(cells[exercise.check]) if t != "raises-exception"]

    def attempt(source: str) -> tuple[str, str] | str | None:
        """Run an answer, then the check: the check's error, None if it passed, 'answer: ...' if the answer broke."""
        kernel.run(RESTORE)
        answer_error = kernel.run(source)
        if answer_error:
            return f"answer: {_failure(answer_error)}"
        return kernel.run(check, check_tags)

    kernel.run(SAVE)
    outcome = attempt(stub())
    if outcome is None:
        report.problems.append("the check PASSED with the student stub (no solution at all): it must fail, "
                               "starting with e.g. assert callable(globals().get('name')), 'define name(...) above'")
    elif isinstance(outcome, str):
        report.problems.append(f"the student stub itself failed ({outcome})")
    elif outcome[0] != "AssertionError" or not outcome[1]:
        report.problems.append(f"with the student stub the check failed with {_failure(outcome)}; it must fail with "
                               "an assertion whose message says what to define: begin the check with e.g. "
                               "assert callable(globals().get('name')), 'define name(...) above'")
    answers = {}
    for wrong in wrong_answer_files(exercise.label, wrong_root):
        try:  # read them all now: a file edited or removed during the run does not break it
            answers[wrong] = wrong.read_text(encoding="utf-8")
        except OSError as error:
            report.problems.append(f"could not read {_show(wrong)}: {error}")
    for wrong, source in answers.items():
        report.wrong_answers += 1
        outcome = attempt(source)
        name = f"{_show(wrong)} ({source.splitlines()[0] if source else ''!r})"
        if outcome is None:
            report.problems.append(f"the check ACCEPTED the wrong answer {name}: make the check catch this mistake")
        elif isinstance(outcome, str):
            report.problems.append(f"the wrong answer {name} broke before the check ran ({outcome}): a wrong answer "
                                   "must run, and the check must catch its mistake")
        elif not outcome[1]:
            report.problems.append(f"the check rejected the wrong answer {name} with {outcome[0]} and no message: "
                                   "say what was expected and what the answer did")
    outcome = attempt(cell_source(cells[exercise.solution]))
    if isinstance(outcome, str):
        report.problems.append(f"the solution itself failed ({outcome})")
    elif outcome is not None:
        report.problems.append(f"the check REJECTED the real solution: {_failure(outcome)}")


def notebooks_with_exercises() -> list[Path]:
    return [path for path in notebook_paths()
            if any("solution" in cell_tags(c) for c in read_notebook(path)["cells"])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.exercises", description=__doc__,
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
            print(f"     {_show(path)}: {time.perf_counter() - started:.1f} s", flush=True)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{failed} failure(s) in {len(paths)} notebook(s), {time.perf_counter() - total:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
