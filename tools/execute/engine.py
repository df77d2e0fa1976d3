"""Execute each notebook once, and let every check read that execution.

One kernel per notebook runs every code cell in order, to the end, as Jupyter Book and nbval would, and this one
run serves every check of `make test`:

- the cells: a cell that raises fails the run (a cell tagged `raises-exception` may raise), and so does a cell that
  prints a DeprecationWarning or FutureWarning unless it is tagged `demonstrates-warning` (the deprecation gate;
  tools/records/gate.py); cells that print "Skipped on ..." and every printed warning are counted;
- the exercises: at each solution cell the student stub and every wrong answer run first, each followed by the
  check, with the notebook's names, random generators and warning registry put back afterwards
  (tools/execute/exercises.py); then the real solution and its check run as ordinary cells;
- the run record (tools/schemas/run-record.schema.json) with seconds and the kernel's peak memory, and, where asked, the
  executed notebook;
- the book: a notebook that passed is stored in Jupyter Book's execution cache (`_build/.jupyter_cache`, the one
  `execute_notebooks: cache` in _config.yml reads), so the book build that follows shows exactly this run and
  executes nothing; `make book` alone still executes whatever the cache lacks.

    python -m tools.execute [NOTEBOOK ...] [--jobs N] [--no-exercises] [--records DIR] [--executed DIR]
                            [--book-cache DIR] [--command TEXT]
    python -m tools.execute --check-book-cache [DIR]
                 after a book build: every notebook page came from this executor's run (the build executed none)

`make test` runs it through pytest (`-p tools.execute.pytest_plugin --execute`, one test per notebook and one per
exercise); with --jobs 2 two notebooks run at a time, the longest first, and a notebook that starts processes of its own
(course.multi_process) runs alone.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tools.course import ROOT, CourseError, cell_tags, notebook_paths, read_notebook, relative_path, taught_release
from tools.execute import harness
from tools.execute.book_cache import BOOK_CACHE, book_cache_problems, cache_executed
from tools.execute.kernel import KernelStopped, MemoryWatch, NotebookKernel
from tools.lesson import ExerciseCells, budget_seconds, exercise_cells, runs_alone
from tools.records import gate, runs, status

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclasses.dataclass
class Options:
    """What one execution does besides running the cells."""

    exercises: bool = True
    wrong_answers: Path = harness.WRONG_ANSWERS
    only: set[str] | None = None  # prove only these exercise labels
    stop_after_last_check: bool = False  # the authors' quick loop (tools.execute.exercises): no record, no cache
    command: str = "python -m tools.execute"  # stored in the records
    records: Path | None = None  # write one run record per notebook here
    executed: Path | None = None  # write each executed notebook here
    book_cache: Path | None = None  # store each passing notebook in this Jupyter Book cache
    root: Path = ROOT  # notebooks are named relative to it in records
    steps: Path | None = None  # `make test`'s step summary, which each record of its run names


@dataclasses.dataclass
class Failure:
    """Where and why a run stopped."""

    cell: int  # index among the code cells, as in the records
    notebook_cell: int  # index among all cells
    error: str  # one line: "Name: message"
    detail: str  # the traceback, or the gate's explanation


@dataclasses.dataclass
class Result:
    """One execution of one notebook: what every check reads."""

    path: Path
    name: str  # relative to the root, e.g. notebooks/graphs/cond-in-graphs.ipynb
    executed: Any  # the nbformat notebook with the outputs of this run
    failure: Failure | None = None
    exercises: list[harness.Report] = dataclasses.field(default_factory=list)
    seconds: float = 0.0  # the notebook's own cells, as a reader runs them (what the budgets are about)
    wall_seconds: float = 0.0  # the whole run: the kernel's start, the cells, and the exercises' attempts
    peak_bytes: int = 0
    cpu_seconds: float = 0.0  # of the kernel and the processes it waited for, the whole run
    skipped_cells: int = 0
    warnings: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    record: dict[str, Any] | None = None
    cached: bool = False  # stored in the book's cache

    @property
    def passed(self) -> bool:
        return self.failure is None

    def exercise_reports(self) -> list[harness.Report]:
        """One report per exercise, plus one (label '') when a cell outside the exercises stopped the run."""
        failure = self.failure
        solutions = {cell for report in self.exercises for cell in report.cells}
        if failure is None or failure.notebook_cell in solutions:
            return list(self.exercises)
        broken = harness.Report(self.path, "", [f"cell {failure.notebook_cell} failed, so the exercises after it "
                                                  f"were not checked: {failure.error}"])
        return [broken, *self.exercises]

    def describe(self) -> str:
        """The failure as pytest shows it: the cell, its error, and the traceback."""
        if self.failure is None:
            return f"{self.name}: every cell ran"
        return (f"{self.name}: code cell {self.failure.cell} (cell {self.failure.notebook_cell} of the notebook) "
                f"failed: {self.failure.error}\n\n{self.failure.detail}")


async def execute_async(path: Path, options: Options, env: dict[str, Any] | None = None) -> Result:
    """Run one notebook (see the module's docstring); write its record, executed copy and cache entry if asked."""
    import nbformat
    source = read_notebook(path)
    notebook = nbformat.read(str(path), as_version=4)
    result = Result(path=path, name=relative_path(path, options.root), executed=notebook)
    proving: dict[int, ExerciseCells] = {}
    if options.exercises:
        found = exercise_cells(source, path)
        if options.only is not None:
            unknown = options.only - {e.label for e in found}
            if unknown:
                raise CourseError(f"{relative_path(path, options.root)} has no exercise {', '.join(sorted(unknown))}")
            found = [e for e in found if e.label in options.only]
        proving = {e.solution: e for e in found}
    reports = {e.solution: harness.Report(path, e.label, cells=(e.solution, e.check)) for e in proving.values()}
    result.exercises = list(reports.values())
    last = max((e.check for e in proving.values()), default=-1) if options.stop_after_last_check else None
    if last == -1:
        return result
    code = {index: n for n, index in enumerate(i for i, c in enumerate(notebook.cells) if c.cell_type == "code")}
    started = time.perf_counter()
    async with NotebookKernel(notebook, path.parent) as kernel:
        await kernel.scratch(gate.SHOW_TORCH_DEPRECATIONS)
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            if last is not None and index > last:
                break
            try:
                if index in proving:
                    proved = time.perf_counter()
                    await harness.prove(kernel, proving[index], source["cells"], reports[index],
                                          options.wrong_answers)
                    reports[index].seconds = time.perf_counter() - proved
                ran = time.perf_counter()
                error = await kernel.run(cell, index, code[index] + 1)
                result.seconds += time.perf_counter() - ran
            except KernelStopped as stopped:  # over CELL_TIMEOUT, or the kernel died
                text = str(stopped).strip()
                line = text.splitlines()[0]
                if index in proving and not reports[index].seconds:  # a stub or wrong answer stopped it
                    reports[index].problems.append(f"the run stopped while the stub and wrong answers ran: {line}")
                    line = f"{line} (while the stub and wrong answers of {proving[index].label} ran)"
                result.failure = Failure(code[index], index, line, text)
                break
            result.skipped_cells += gate.printed_skip(cell.outputs)
            printed = gate.warnings_in(gate.stream_text(cell.outputs, "stderr"))
            result.warnings += [{"cell": code[index], "category": c, "message": m} for c, m in printed]
            if error is not None:
                line = harness.failure_text((error.ename, error.evalue.strip()))
                result.failure = Failure(code[index], index, line, ANSI.sub("", str(error)))
                break
            stopped = gate.gate_message(result.name, code[index], printed, cell_tags(cell))
            if stopped:
                gated = next(f"{c}: {m}" for c, m in printed if c in gate.GATED_WARNINGS)
                result.failure = Failure(code[index], index, f"the deprecation gate: {gated}", stopped)
                break
        result.peak_bytes = kernel.peak_rss()
        result.cpu_seconds = kernel.cpu_seconds()
        kernel.client.set_widgets_metadata()
    result.wall_seconds = time.perf_counter() - started
    failed = result.failure.notebook_cell if result.failure else None
    for exercise in proving.values():
        report = reports[exercise.solution]
        problem = harness.solution_problem(exercise, failed, result.failure.error if result.failure else "")
        if problem and report.seconds:
            report.problems.append(problem)
        elif failed is not None and failed < exercise.check and not report.seconds:
            report.problems.append("not checked: an earlier cell failed (see the notebook's report)")
    if last is None:
        _keep(result, source, options, env)
    return result


def _keep(result: Result, source: dict[str, Any], options: Options, env: dict[str, Any] | None) -> None:
    """The record, the executed notebook and the book's cache entry of a complete run, as the options ask."""
    import nbformat

    failed_cell = {"index": result.failure.cell, "error": result.failure.error[:300]} if result.failure else None
    executed = None
    if options.executed is not None:
        target = options.executed / Path(result.name).relative_to("notebooks")
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(result.executed, str(target))
        executed = relative_path(target, options.root)
    result.record = runs.new_record(
        result.name, source, failed_cell=failed_cell, seconds=result.seconds, peak_memory_bytes=result.peak_bytes,
        skipped_cells=result.skipped_cells, warnings=result.warnings, env=env or runs.environment(),
        command=options.command, executed_notebook=executed)
    if options.exercises and result.exercises:
        result.record["exercises"] = [{"label": r.label, "ok": r.ok, "wrong_answers": r.wrong_answers,
                                       "seconds": round(r.seconds, 2), "problems": r.problems}
                                      for r in result.exercises]
    result.record["wall_seconds"] = round(result.wall_seconds, 2)
    result.record["cpu_seconds"] = round(result.cpu_seconds, 2)
    if options.steps is not None:
        result.record["steps"] = relative_path(options.steps, options.root)
    if options.records is not None:
        runs.write_record(options.records, result.record)
    if options.book_cache is not None and result.passed:
        cache_executed(options.book_cache, result.path, result.executed, result.seconds)
        result.cached = True


async def _learner_run(notebook: Any, folder: Path, python: str | None) -> tuple[list[int], bool]:
    failed = []
    async with NotebookKernel(notebook, folder, python) as kernel:
        count = 0
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                count += 1
                stopped = await kernel.run(cell, index, count) is not None
                # nbclient lets a cell tagged raises-exception raise: its error is an output, and the run goes on
                if stopped or any(output.get("output_type") == "error" for output in cell.outputs):
                    failed.append(index)
                if stopped:
                    return failed, False
    return failed, True


def run_as_learner(notebook: dict[str, Any], folder: Path, python: str | None = None) -> tuple[Any, list[int], bool]:
    """Run a notebook as a learner's Run All does, alone in `folder` (no gate, no harness): a cell that raises stops
    the run unless it is tagged `raises-exception`, as in JupyterLab. The executed notebook, the indices of the cells
    that failed, and whether the run reached the end. `python`: the kernel's interpreter (default: this one), for
    example a venv built from the student branch's requirements alone."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    executed = nbformat.reads(json.dumps(notebook), as_version=4)
    failed, finished = asyncio.run(_learner_run(executed, folder, python))
    return executed, failed, finished


def execute_notebook(path: Path, options: Options | None = None) -> Result:
    """Run one notebook to the end (or, with stop_after_last_check, to its last proved check)."""
    return asyncio.run(execute_async(path, options or Options()))


def expected_seconds(path: Path, release: str | None = None) -> float:
    """How long a notebook ran last time (committed CPU records of the taught release), else its budget."""
    notebook = relative_path(path)
    for _, record in runs.load_records(runs.RUNS / f"cpu-torch-{release or taught_release()}"):
        if record["notebook"] == notebook:
            return float(record["seconds"])
    return float(budget_seconds(path) or 30)


def schedule(paths: Sequence[Path]) -> list[Path]:
    """The order to start notebooks in: the longest first, so that the last ones to finish are short."""
    try:
        return sorted(paths, key=lambda p: -expected_seconds(p))
    except CourseError:  # malformed committed records: keep the given order
        return list(paths)


async def execute_many(paths: Sequence[Path], options: Options, jobs: int = 1,
                       done: Callable[[Path, Result | BaseException], None] | None = None,
                       crowded: bool = False) -> dict[Path, Result]:
    """Run notebooks `jobs` at a time (a notebook that runs alone takes every slot, unless `crowded`: then it runs
    beside the others, the load under which its processes' races show; `make flaky`); `done` hears of each."""
    env = runs.environment()
    free = jobs
    turn = asyncio.Condition()
    results: dict[Path, Result] = {}

    async def one(path: Path) -> None:
        nonlocal free
        need = jobs if runs_alone(path) and not crowded else 1
        async with turn:
            await turn.wait_for(lambda: free >= need)
            free -= need
        try:
            result: Result | BaseException = await execute_async(path, options, env)
        except Exception as error:  # a notebook that cannot be read or whose kernel cannot start
            result = error
        finally:
            async with turn:
                free += need
                turn.notify_all()
        if isinstance(result, Result):
            results[path] = result
        if done is not None:
            done(path, result)

    started = []
    for path in schedule(paths):  # started in this order: each waits for a free slot, first come first served
        started.append(asyncio.ensure_future(one(path)))
        await asyncio.sleep(0)
    await asyncio.gather(*started)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.execute", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks (default: every one under notebooks/)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks run at a time (default 1)")
    parser.add_argument("--no-exercises", dest="exercises", action="store_false", help="do not prove the exercises")
    parser.add_argument("--records", type=Path, help="write the run records here")
    parser.add_argument("--executed", type=Path, help="write the executed notebooks here")
    parser.add_argument("--book-cache", type=Path, help=f"store passing notebooks in this book cache ({BOOK_CACHE})")
    parser.add_argument("--command", default="python -m tools.execute", help="what ran them, for the records")
    parser.add_argument("--check-book-cache", type=Path, nargs="?", const=BOOK_CACHE, metavar="DIR",
                        help="check that the book build executed no notebook, then exit")
    args = parser.parse_args(argv)
    paths = args.notebooks or notebook_paths()
    if args.check_book_cache is not None:
        problems = book_cache_problems(args.check_book_cache, paths)
        for problem in problems:
            print(f"book cache: {problem}")
        print(f"book cache: {len(paths) - len(problems)} of {len(paths)} notebook(s) shown from the checked run; "
              f"the book build executed {len(problems)}")
        return 1 if problems else 0
    options = Options(exercises=args.exercises, command=args.command, records=args.records, executed=args.executed,
                      book_cache=args.book_cache)

    def done(path: Path, result: Result | BaseException) -> None:
        if isinstance(result, BaseException):
            print(f"FAIL {relative_path(path)}: {type(result).__name__}: {result}", flush=True)
            return
        state = "ok  " if result.passed and all(r.ok for r in result.exercises) else "FAIL"
        print(f"{state} {result.name}: cells {result.seconds:.1f} s, all {result.wall_seconds:.1f} s "
              f"({result.cpu_seconds:.1f} s of CPU), {result.peak_bytes / 2**20:.0f} MiB", flush=True)
        if result.failure:
            print(f"     {result.failure.error}", flush=True)
        for report in result.exercises:
            if not report.ok:
                print(f"     {report}", flush=True)

    started = time.perf_counter()
    try:
        with MemoryWatch() as memory:
            results = asyncio.run(execute_many(paths, options, args.jobs, done))
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    records = [r.record for r in results.values() if r.record is not None]
    print("\n".join(status.timing_report(records)))
    failed = len(paths) - sum(r.passed and all(e.ok for e in r.exercises) for r in results.values())
    print(f"{failed} failure(s) in {len(paths)} notebook(s), {time.perf_counter() - started:.1f} s, "
          f"{args.jobs} at a time, peak memory {memory.peak_bytes / 2**30:.2f} GiB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
