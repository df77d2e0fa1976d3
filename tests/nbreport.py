"""The course's pytest plugin for notebook runs: run records, the deprecation gate, the timing report.

Loaded with `-p tests.nbreport`, in one of two ways.

`--execute` (what `make test` uses): each notebook is one file of tests, executed once by tools/execute.py, and
every test reads that execution: `NOTEBOOK::cells` (every code cell ran; the deprecation gate passed) and, for
each exercise, `NOTEBOOK::exercise[LABEL]` (its check rejected the stub and every wrong answer, and accepted the
solution). With `--jobs 2` two notebooks run at a time, the longest first; a notebook whose course.multi_process
is true runs alone.

    --jobs N              notebooks executed at a time (default 1)
    --no-exercises        run the cells only (no stub, no wrong answers)
    --book-cache DIR      store each passing notebook in this Jupyter Book cache (_build/.jupyter_cache)
    --wrong-answers DIR   the wrong answers, <label>/wrong_*.py (default: tests/exercises/)

`--nbval-lax` (nbval executes, as before, cell by cell): one test per cell, for looking at one notebook's cells.

Both ways, for every notebook executed, write one run record (tools/runs.py documents the schema): pass or fail
with the failing cell, seconds, the kernel's peak memory, cells that printed a "Skipped on ..." line, and every
warning a cell printed.

    --run-records DIR     write the records into DIR (one JSON file per notebook)
    --run-command TEXT    what ran the notebooks, stored in each record (default: pytest)
    --save-executed DIR   also write each executed notebook, outputs included, under DIR

The deprecation gate: a cell whose code prints a DeprecationWarning or FutureWarning fails,
unless the cell carries the tag `demonstrates-warning` (it exists to show that warning). Python
hides a DeprecationWarning that torch attributes to its own code (torch.jit.script's, in 2.12),
so before a notebook's first cell the kernel is told to show torch's deprecations too.

The timing report at the end comes from the same records. It measures rather than fails: the
budgets (GUIDE.md section 4) are printed beside each notebook, so a slow shared machine never
turns the suite red, and a notebook that grew past its budget is plain to see.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import dataclasses
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tools import execute, exercises, runs, steps
from tools.course import read_notebook


@dataclasses.dataclass
class NotebookRun:
    """What the cells of one notebook did, gathered as nbval executes them."""

    path: Path
    seconds: float = 0.0
    peak_bytes: int = 0
    failed_cell: dict[str, Any] | None = None
    skipped_cells: int = 0
    warnings: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    outputs: dict[int, list[Any]] = dataclasses.field(default_factory=dict)
    notebook: Any = None  # the nbformat notebook nbval read


notebook_runs: dict[str, NotebookRun] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nbreport", "run records of notebook executions")
    group.addoption("--run-records", type=Path, default=None, help="write one run record per notebook here")
    group.addoption("--run-command", default="pytest", help="what ran the notebooks, for the records")
    group.addoption("--save-executed", type=Path, default=None, help="write executed notebooks here")
    group.addoption("--execute", action="store_true", help="execute each notebook once with tools/execute.py")
    group.addoption("--jobs", type=int, default=1, help="with --execute: notebooks executed at a time")
    group.addoption("--no-exercises", dest="prove_exercises", action="store_false",
                    help="with --execute: do not prove the exercises")
    group.addoption("--book-cache", type=Path, default=None, help="with --execute: store passing notebooks here")
    group.addoption("--wrong-answers", type=Path, default=exercises.WRONG_ANSWERS,
                    help="with --execute: the folder of <label>/wrong_*.py")


# ---- --execute: one execution per notebook, many tests reading it --------------------------------------------------

class _Runner:
    """Executes the collected notebooks in a thread of its own, `--jobs` at a time; tests wait for theirs."""

    def __init__(self, config: pytest.Config, paths: list[Path]) -> None:
        self.options = execute.Options(
            exercises=config.getoption("prove_exercises"), wrong_answers=config.getoption("wrong_answers"),
            command=config.getoption("run_command"), records=config.getoption("run_records"),
            executed=config.getoption("save_executed"), book_cache=config.getoption("book_cache"),
            root=Path(config.rootpath))
        self.jobs = max(1, config.getoption("jobs"))
        self.paths = paths
        self.futures: dict[Path, concurrent.futures.Future[execute.Result]] = {
            path: concurrent.futures.Future() for path in paths}
        self.results: list[execute.Result] = []
        self.peak_bytes = 0
        self.seconds = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._thread = threading.Thread(target=self._run, name="notebooks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _done(self, path: Path, result: execute.Result | BaseException) -> None:
        if isinstance(result, execute.Result):
            self.results.append(result)
            self.futures[path].set_result(result)
        else:
            self.futures[path].set_exception(result)

    def _run(self) -> None:
        import time

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            await execute.execute_many(self.paths, self.options, self.jobs, self._done)

        started = time.perf_counter()
        memory = execute.MemoryWatch()
        try:
            with memory:
                asyncio.run(main())
        except BaseException as error:  # every waiting test hears of it
            for future in self.futures.values():
                if not future.done():
                    future.set_exception(error)
        finally:
            self.peak_bytes = memory.peak_bytes
            self.seconds = time.perf_counter() - started
            for future in self.futures.values():
                if not future.done():
                    future.set_exception(RuntimeError("the notebook run ended before this notebook ran"))

    def result(self, path: Path) -> execute.Result:
        return self.futures[path].result()

    def stop(self) -> None:
        """Cancel what is still running (pytest stopped early) and wait for the kernels to shut down."""
        unfinished = not all(future.done() for future in self.futures.values())
        if unfinished and self._loop is not None and self._task is not None:
            try:
                self._loop.call_soon_threadsafe(self._task.cancel)
            except RuntimeError:  # the loop closed meanwhile: nothing left to cancel
                pass
        if self._thread.ident is not None:
            self._thread.join()


_RUNNER = pytest.StashKey[_Runner]()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if parent.config.getoption("execute") and file_path.suffix == ".ipynb" \
            and ".ipynb_checkpoints" not in file_path.parts:
        return NotebookFile.from_parent(parent, path=file_path)
    return None


class NotebookFile(pytest.File):
    """A notebook: one test for its cells, one per exercise."""

    def collect(self) -> Iterator[pytest.Item]:
        yield NotebookItem.from_parent(self, name="cells")
        if self.config.getoption("prove_exercises"):
            for exercise in exercises.exercise_cells(read_notebook(self.path), self.path):
                yield ExerciseItem.from_parent(self, name=f"exercise[{exercise.label}]", label=exercise.label)


class NotebookItem(pytest.Item):
    """Every code cell of the notebook ran, and the deprecation gate let each through."""

    def result(self) -> execute.Result:
        return self.config.stash[_RUNNER].result(self.path)

    def runtest(self) -> None:
        result = self.result()
        if not result.passed:
            pytest.fail(result.describe(), pytrace=False)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.path.name}::{self.name}"


class ExerciseItem(NotebookItem):
    """The exercise's check rejected the stub and every wrong answer, and accepted the solution."""

    def __init__(self, *, label: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.label = label

    def runtest(self) -> None:
        report = next(r for r in self.result().exercises if r.label == self.label)
        if not report.ok:
            pytest.fail(str(report), pytrace=False)


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    if not config.getoption("execute") or config.getoption("collectonly"):
        return
    paths = list(dict.fromkeys(item.path for item in session.items if isinstance(item, NotebookItem)))
    if paths:
        config.stash[_RUNNER] = _Runner(config, paths)
        config.stash[_RUNNER].start()


# ---- --nbval-lax: nbval executes, this plugin watches ---------------------------------------------------------------


def _kernel_peak_rss(item: pytest.Item) -> int:
    """The kernel's peak resident memory (VmHWM) in bytes, or 0 where it cannot be read."""
    kernel = getattr(item.parent, "kernel", None)
    pid = getattr(getattr(getattr(kernel, "km", None), "provisioner", None), "pid", None)
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, TypeError):
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Before a notebook's first cell, make the kernel show torch's own deprecation warnings."""
    kernel = getattr(item.parent, "kernel", None)
    if getattr(item, "cell_num", None) != 0 or kernel is None or not kernel.is_alive():
        return
    msg_id = kernel.execute_cell_input(runs.SHOW_TORCH_DEPRECATIONS, allow_stdin=False)
    kernel.await_reply(msg_id, timeout=60)
    kernel.await_idle(msg_id, timeout=60)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    notebook = item.nodeid.split("::")[0]
    cell_num = getattr(item, "cell_num", None)
    if call.when != "call" or not notebook.endswith(".ipynb") or cell_num is None:
        return
    report = outcome.get_result()
    run = notebook_runs.setdefault(notebook, NotebookRun(path=Path(item.config.rootpath) / notebook))
    run.notebook = getattr(item.parent, "nb", None)
    run.seconds += report.duration
    run.peak_bytes = max(run.peak_bytes, _kernel_peak_rss(item))
    outputs = list(getattr(item, "test_outputs", None) or [])
    run.outputs[cell_num] = outputs
    run.skipped_cells += runs.printed_skip(outputs)
    printed = runs.warnings_in(runs.stream_text(outputs, "stderr"))
    run.warnings += [{"cell": cell_num, "category": category, "message": message} for category, message in printed]
    gate = runs.gate_message(notebook, cell_num, printed, item.cell.metadata.get("tags", []))  # type: ignore[attr-defined]
    if gate and report.passed:
        report.outcome = "failed"
        report.longrepr = gate
    if report.failed and run.failed_cell is None:
        run.failed_cell = {"index": cell_num, "error": runs.error_text(outputs, str(report.longrepr or ""))}


def _records(config: pytest.Config) -> list[dict[str, Any]]:
    environment = runs.environment()
    return [runs.new_record(notebook, read_notebook(run.path), failed_cell=run.failed_cell, seconds=run.seconds,
                            peak_memory_bytes=run.peak_bytes, skipped_cells=run.skipped_cells,
                            warnings=run.warnings, env=environment, command=config.getoption("run_command"))
            for notebook, run in notebook_runs.items()]


def _save_executed(run: NotebookRun, folder: Path, notebook: str) -> Path:
    """Write the notebook with the outputs nbval collected, as a person would have run it."""
    executed = copy.deepcopy(run.notebook)
    code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    for index, cell in enumerate(code_cells):
        cell.outputs = [nbformat.from_dict(dict(out)) for out in run.outputs.get(index, [])]
        for out in cell.outputs:
            if out.get("output_type") == "execute_result":
                out["execution_count"] = index + 1
        cell.execution_count = index + 1
    path = folder / Path(notebook).relative_to("notebooks")
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(executed, str(path))
    return path


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    runner = config.stash.get(_RUNNER, None)
    if runner is not None:
        runner.stop()
        config.stash[_RECORDS] = [r.record for r in runner.results if r.record is not None]
        if os.environ.get(steps.STEPS_ENV):  # `make test`: its step summary shows this run's size and memory
            summary = Path(os.environ[steps.STEPS_ENV]).parent / steps.NOTEBOOKS_SUMMARY
            summary.write_text(json.dumps({"notebooks": len(runner.results), "jobs": runner.jobs,
                                           "seconds": round(runner.seconds, 1),
                                           "peak_memory_bytes": runner.peak_bytes}) + "\n")
    if not notebook_runs:
        return
    records = _records(config)
    folder = config.getoption("run_records")
    executed = config.getoption("save_executed")
    for record in records:
        run = notebook_runs[record["notebook"]]
        if executed is not None and run.notebook is not None:
            saved = _save_executed(run, executed, record["notebook"])
            record["executed_notebook"] = runs.relative_path(saved, Path(config.rootpath))
        if folder is not None:
            runs.write_record(folder, record)
    config.stash[_RECORDS] = records


_RECORDS = pytest.StashKey[list[dict[str, Any]]]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    records = terminalreporter.config.stash.get(_RECORDS, [])
    if not records:
        return
    torch_version = records[0]["environment"]["torch"]
    terminalreporter.section(f"notebook budgets on torch {torch_version}: seconds and peak memory, slowest first")
    for line in runs.timing_report(records, Path(terminalreporter.config.rootpath)):
        terminalreporter.write_line(line)
    folder = terminalreporter.config.getoption("run_records")
    if folder is not None:
        terminalreporter.write_line(f"run records: {folder}")
    runner = terminalreporter.config.stash.get(_RUNNER, None)
    if runner is not None:
        cached = sum(r.cached for r in runner.results)
        terminalreporter.write_line(
            f"{len(runner.results)} notebook(s) executed once each in {runner.seconds:.0f} s, {runner.jobs} at a "
            f"time; peak memory of the run (pytest, kernels and their processes): "
            f"{runner.peak_bytes / 2**30:.2f} GiB")
        if runner.options.book_cache is not None:
            terminalreporter.write_line(f"book cache: {cached} executed notebook(s) stored in "
                                        f"{runner.options.book_cache}")
