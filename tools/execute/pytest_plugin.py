"""The course's pytest plugin on nbval: nbval executes each notebook once, and the course's checks read that run.

    python -m pytest -p tools.execute.pytest_plugin -p no:cacheprovider --nbval-lax [OPTIONS] NOTEBOOK ...

nbval (`--nbval-lax`) starts one kernel per notebook, in this interpreter (the plugin turns on
`--nbval-current-env`), in the notebook's folder, and runs each code cell as a test (`NOTEBOOK::Cell N`), every cell
to the end, a cell for up to 300 s (the book's `execute.timeout`); outputs are not compared with the saved ones. The
plugin adds to that run, in the same kernel:

- the deprecation gate (tools/records/gate.py): torch's deprecations are shown before the first cell, and a cell that
  prints a DeprecationWarning or FutureWarning fails unless tagged `demonstrates-warning`; after a failed cell the
  notebook's later cells are skipped (they would fail for the same reason);
- `NOTEBOOK::exercise[LABEL]` just before each solution cell: the exercise's check must reject the student stub and
  every wrong answer of tests/exercises/<label>/ (tools/execute/harness.py); the real solution and its check then run
  as the notebook's cells, so the check cell's test is the one that accepts the solution;
- `NOTEBOOK::run-record` last: the executed notebook put together from the cells' outputs, its run record
  (tools/schemas/run-record.schema.json) with seconds, the kernel's peak memory and CPU time, and, if every cell
  passed, its entry in the book's cache (tools/execute/book_cache.py), from which the book renders without executing;
- with pytest-xdist (`-n 2 --dist loadfile --no-loadscope-reorder`) two notebooks run at a time, the longest first,
  each notebook's tests on one worker in order; the notebooks whose course.multi_process is true are one unit of
  work, run one after another on one worker while the other runs the rest beside them;
- the summary: each notebook's seconds against its budget, the run's seconds and peak memory (pytest, workers,
  kernels and their processes).

One command, one table: every way of running notebooks is this command with options (make passes them; `make X`
runs it with the options of its row; tools/execute/command.py builds it).

| to run                              | make                           | options of the one command                |
| ----------------------------------- | ------------------------------ | ----------------------------------------- |
| every lesson of _toc.yml, recorded, | `make notebooks` (`make test`) | `-n 2 --dist loadfile                     |
| stored for the book                 |                                | --no-loadscope-reorder --run-records DIR  |
|                                     |                                | --book-cache DIR` LESSONS                 |
| one notebook                        | `make notebooks NOTEBOOKS=P`   | its path instead of LESSONS               |
| one exercise, stop after its check  | `make exercises EXERCISE=L`    | `--exercise LABEL` (repeatable)           |
| every exercise (the quick loop)     | `make exercises`               | `--exercises-only`: no record, no cache   |
| the cells only                      |                                | `--no-exercises`                          |
| another release of torch-matrix.txt | `make notebooks RELEASE=R`,    | the same, run by the release's venv       |
|                                     | `make nbval RELEASE=R`         | (tools/execute/matrix.py makes it)        |
| every release                       | `make matrix`                  | `--run-records _build/runs/torch-R/run-1` |
| repeated runs under load            | `make flaky`                   | `--crowded`: multi-process ones together  |
| a recording on an accelerator       | `make record-runs`             | one at a time, `--save-executed DIR`      |
| a student copy, as a learner        | (python -m                     | not nbval: Run All in another interpreter |
|                                     | tools.execute.student_copies)  | (tools/execute/kernel.py)                 |

    --run-records DIR         write one run record per notebook into DIR
    --run-command TEXT        what ran the notebooks, stored in each record (default: pytest)
    --save-executed DIR       also write each executed notebook, outputs included, under DIR
    --book-cache DIR          store each notebook whose cells all passed in this Jupyter Book cache
    --wrong-answers DIR       the wrong answers, <label>/wrong_*.py (default: tests/exercises/)
    --notebooks-summary FILE  write the run's size, seconds and peak memory here (make test's step summary)
    --steps-summary FILE      the step summary of the `make test` this run belongs to, named in each record

The timing report measures rather than fails: each notebook's budget (course.budget_seconds) is printed beside it, so
a slow shared machine never turns the suite red, and a notebook that grew past its budget is plain to see.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tools.execute import harness, nbval_run
from tools.execute.memory import MemoryWatch
from tools.lesson import ExerciseCells, starts_processes
from tools.records import gate, runs, status

MULTI_PROCESS_UNIT = "notebooks that start processes"  # the unit of work they share (pytest_xdist_make_scheduler)
_RUN = pytest.StashKey[nbval_run.NotebookRun]()
_KERNEL = pytest.StashKey[nbval_run.NbvalKernel]()
_WATCH = pytest.StashKey[tuple[MemoryWatch, float]]()
_RECORDS = pytest.StashKey[list[dict[str, Any]]]()
_ENV = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("notebooks", "the course's checks on nbval's run (tools/execute/pytest_plugin.py)")
    group.addoption("--run-records", type=Path, default=None, help="write one run record per notebook here")
    group.addoption("--run-command", default="pytest", help="what ran the notebooks, for the records")
    group.addoption("--save-executed", type=Path, default=None, help="write executed notebooks here")
    group.addoption("--notebooks-summary", type=Path, default=None,
                    help="write the run's notebooks, jobs, seconds and peak memory to this JSON file")
    group.addoption("--steps-summary", type=Path, default=None,
                    help="the step summary of the `make test` this run belongs to, named in each record")
    group.addoption("--crowded", action="store_true",
                    help="notebooks that start processes run two at a time (load for make flaky)")
    group.addoption("--no-exercises", dest="prove_exercises", action="store_false",
                    help="do not prove the exercises")
    group.addoption("--exercises-only", action="store_true",
                    help="the authors' quick loop: each notebook stops after its last check; no record, no cache")
    group.addoption("--exercise", action="append", default=[], metavar="LABEL",
                    help="prove only this exercise (repeatable); its notebook stops after its check")
    group.addoption("--book-cache", type=Path, default=None, help="store passing notebooks here")
    group.addoption("--wrong-answers", type=Path, default=harness.WRONG_ANSWERS,
                    help="the folder of <label>/wrong_*.py")


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("nbval_lax", False) or config.getoption("nbval", False))


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG[:] = [config]
    if not _active(config):
        return
    if not config.option.nbval_kernel_name:
        config.option.nbval_current_env = True  # the kernel runs this interpreter, as pytest's venv has it
    if float(config.option.nbval_cell_timeout) == 2000:  # nbval's default: the book's instead
        config.option.nbval_cell_timeout = nbval_run.CELL_TIMEOUT
    if not hasattr(config, "workerinput"):  # the controller (or the only process): the memory watch
        config.stash[_WATCH] = (MemoryWatch().__enter__(), time.perf_counter())
        config.stash[_RECORDS] = []


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's loadfile, but for the notebooks that start processes, one unit of work (unless `--crowded`):
    one worker runs them one after another (each starts two or three processes on the machine's two cores), while
    the other runs the rest beside them."""
    if not _active(config) or config.getoption("dist") != "loadfile" or config.getoption("crowded"):
        return None
    from xdist.scheduler import LoadFileScheduling  # only where pytest-xdist runs this hook

    root = Path(config.rootpath)

    @functools.cache
    def unit(path: str) -> str:
        return MULTI_PROCESS_UNIT if starts_processes(root / path) else path

    class ProcessesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit(nodeid.split("::", 1)[0])

    return ProcessesTogether(config, log)


class _NotebookItem(pytest.Item):
    """A test the plugin adds to a notebook's (nbval's IPyNbFile's) tests, reading the notebook's run."""

    def notebook(self) -> pytest.Collector:
        assert self.parent is not None, "the plugin's tests are made in a notebook"
        return self.parent

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.path.name}::{self.name}"


class ExerciseItem(_NotebookItem):
    """The exercise's check rejected the stub and every wrong answer of tests/exercises/<label>/."""

    def __init__(self, *, exercise: ExerciseCells, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.exercise = exercise

    def runtest(self) -> None:
        run = self.notebook().stash[_RUN]
        report = harness.Report(self.path, self.exercise.label, cells=(self.exercise.solution, self.exercise.check))
        run.reports[self.exercise.label] = report
        started = time.perf_counter()
        try:
            asyncio.run(harness.prove(self.notebook().stash[_KERNEL], self.exercise, run.source["cells"], report,
                                      self.config.getoption("wrong_answers")))
        except nbval_run.KernelStopped as stopped:
            report.problems.append(f"the run stopped while the stub and wrong answers ran: {stopped}")
        report.seconds = time.perf_counter() - started
        self.user_properties.append(("course_exercise", {"label": report.label, "wrong_answers": report.wrong_answers,
                                                         "problems": report.problems}))
        if not report.ok:
            pytest.fail(str(report), pytrace=False)


class RecordItem(_NotebookItem):
    """The executed notebook, its run record and its entry in the book's cache."""

    def runtest(self) -> None:
        config = self.config
        where = nbval_run.Keep(config.getoption("run_command"), config.getoption("run_records"),
                               config.getoption("save_executed"), config.getoption("book_cache"),
                               config.getoption("steps_summary"), Path(config.rootpath))
        if _ENV not in config.stash:
            config.stash[_ENV] = runs.environment()
        notebook = self.notebook()
        record = nbval_run.keep(notebook.stash[_RUN], notebook.stash[_KERNEL], where, config.stash[_ENV])
        # as JSON holds it: pytest-xdist sends it to the controller, which cannot send torch's TorchVersion (a str)
        self.user_properties.append(("course_record", json.loads(json.dumps(record))))


def _cells(items: list[pytest.Item]) -> dict[pytest.Collector, list[pytest.Item]]:
    from nbval.plugin import IPyNbFile

    found: dict[pytest.Collector, list[pytest.Item]] = {}
    for item in items:
        if isinstance(item.parent, IPyNbFile):
            found.setdefault(item.parent, []).append(item)
    return found


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each notebook's items: its cells, each exercise's proof before its solution cell, the record last; the
    notebooks in their start order (nbval_run.start_order)."""
    if not _active(config):
        return
    notebooks = _cells(items)
    only = set(config.getoption("exercise"))
    quick = bool(only) or config.getoption("exercises_only")
    known: set[str] = set()
    ordered: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    paths = {file.path: file for file in notebooks}
    for path in nbval_run.start_order(list(paths)):
        file = paths[path]
        run = nbval_run.NotebookRun.of(path, Path(config.rootpath))
        file.stash[_RUN] = run
        exercises = [e for e in run.exercises if not only or e.label in only]
        known |= {e.label for e in run.exercises}
        proving = {e.solution: e for e in exercises} if config.getoption("prove_exercises") else {}
        last = max((e.check for e in proving.values()), default=-1) if quick else len(run.source["cells"])
        for item in notebooks[file]:
            index = run.code_cells[item.cell_num]  # type: ignore[attr-defined]
            if index > last:
                deselected.append(item)
                continue
            if index in proving:
                exercise = proving[index]
                ordered.append(ExerciseItem.from_parent(file, name=f"exercise[{exercise.label}]", exercise=exercise))
            ordered.append(item)
        if not quick:
            ordered.append(RecordItem.from_parent(file, name="run-record"))
    unknown = only - known
    if unknown:
        raise pytest.UsageError(f"--exercise {', '.join(sorted(unknown))}: no such exercise in the notebooks given "
                                f"(known: {', '.join(sorted(known)) or 'none'})")
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    others = [item for item in items if item.parent not in notebooks]
    items[:] = [*ordered, *others]


def _first_of_notebook(item: pytest.Item) -> bool:
    return item.parent is not None and _RUN in item.parent.stash and _KERNEL not in item.parent.stash


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Any:
    """After nbval started a notebook's kernel, before its first test: torch's deprecations shown (the gate) and the
    kernel's language_info."""
    first = _first_of_notebook(item)
    parent = item.parent
    result = yield
    if first and parent is not None:
        run = parent.stash[_RUN]
        started: Any = parent  # nbval's IPyNbFile, whose setup started its kernel
        kernel = parent.stash[_KERNEL] = nbval_run.NbvalKernel(started.kernel, item.config.option.nbval_cell_timeout)
        asyncio.run(kernel.scratch(gate.SHOW_TORCH_DEPRECATIONS))
        run.language_info = kernel.language_info()
        run.started = time.perf_counter()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """A cell after a failed one is skipped; a cell's outputs go to the run, and through the deprecation gate."""
    from nbval.plugin import IPyNbCell, coalesce_streams

    run = item.parent.stash.get(_RUN, None) if item.parent is not None else None
    if run is None or isinstance(item, RecordItem):
        return (yield)
    if run.failure is not None:
        pytest.skip(f"code cell {run.failure.cell} failed before it: {run.failure.error}")
    if not isinstance(item, IPyNbCell):
        return (yield)
    started = time.perf_counter()
    try:
        result = yield
    except pytest.skip.Exception:
        raise
    except BaseException as error:
        run.cell_ran(item.cell_num, coalesce_streams(item.test_outputs or []), time.perf_counter() - started, error)
        raise
    stopped = run.cell_ran(item.cell_num, coalesce_streams(item.test_outputs or []), time.perf_counter() - started,
                           None)
    if stopped:
        pytest.fail(stopped, pytrace=False)
    return result


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """The records reach the controller with the reports (pytest-xdist sends user_properties along)."""
    for name, value in report.user_properties:
        if name == "course_record" and report.when == "call":
            records = _controller_records()
            if records is not None and isinstance(value, dict):
                records.append(value)


_CONFIG: list[pytest.Config] = []  # the config of this pytest process, whose logreport hook has none


def _controller_records() -> list[dict[str, Any]] | None:
    return _CONFIG[0].stash.get(_RECORDS, None) if _CONFIG else None


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    watch = config.stash.get(_WATCH, None)
    if watch is None:
        return
    memory, started = watch
    memory.__exit__(None, None, None)
    records = config.stash[_RECORDS]
    summary = config.getoption("notebooks_summary")
    if summary is not None and records:
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(json.dumps({"notebooks": len(records), "jobs": _jobs(config),
                                       "seconds": round(time.perf_counter() - started, 1),
                                       "peak_memory_bytes": memory.peak_bytes}) + "\n")


def _jobs(config: pytest.Config) -> int:
    workers = config.getoption("numprocesses", None)
    return int(workers) if isinstance(workers, int) and workers > 0 else 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    config = terminalreporter.config
    records = config.stash.get(_RECORDS, [])
    watch = config.stash.get(_WATCH, None)
    if not records or watch is None:
        return
    memory, started = watch
    terminalreporter.section(f"notebook budgets on torch {records[0]['environment']['torch']}: seconds and peak "
                             "memory, slowest first")
    for line in status.timing_report(records, Path(config.rootpath)):
        terminalreporter.write_line(line)
    if config.getoption("run_records") is not None:
        terminalreporter.write_line(f"run records: {config.getoption('run_records')}")
    terminalreporter.write_line(
        f"{len(records)} notebook(s) executed once each by nbval in {time.perf_counter() - started:.0f} s, "
        f"{_jobs(config)} at a time; peak memory of the run (pytest, workers, kernels and their processes): "
        f"{memory.peak_bytes / 2**30:.2f} GiB")
    if config.getoption("book_cache") is not None:
        cached = sum(record["outcome"] == "pass" for record in records)
        terminalreporter.write_line(f"book cache: {cached} executed notebook(s) stored in "
                                    f"{config.getoption('book_cache')}")

