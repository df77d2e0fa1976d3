"""The executor's pytest plugin: one test per notebook and one per exercise, all reading one execution.

Loaded with `-p tools.execute.pytest_plugin --execute`: each notebook is one file of tests, executed once by
tools/execute/engine.py, and every test reads that execution: `NOTEBOOK::cells` (every code cell ran; the deprecation
gate passed) and, for each exercise, `NOTEBOOK::exercise[LABEL]` (its check rejected the stub and every wrong answer,
and accepted the solution). With `--jobs 2` two notebooks run at a time, the longest first; a notebook whose
course.multi_process is true runs alone.

    --jobs N                  notebooks executed at a time (default 1)
    --crowded                 notebooks that start processes run beside the others too, for load (make flaky)
    --no-exercises            run the cells only (no stub, no wrong answers)
    --book-cache DIR          store each passing notebook in this Jupyter Book cache (_build/.jupyter_cache)
    --wrong-answers DIR       the wrong answers, <label>/wrong_*.py (default: tests/exercises/)
    --run-records DIR         write one run record per notebook into DIR (tools/schemas/run-record.schema.json)
    --run-command TEXT        what ran the notebooks, stored in each record (default: pytest)
    --save-executed DIR       also write each executed notebook, outputs included, under DIR
    --notebooks-summary FILE  write the run's size, seconds and peak memory here (make test's step summary)
    --steps-summary FILE      the step summary of the `make test` this run belongs to, named in each record

The timing report at the end comes from the same records. It measures rather than fails: each notebook's budget
(course.budget_seconds) is printed beside it, so a slow shared machine never turns the suite red, and a notebook that
grew past its budget is plain to see.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.course import read_notebook
from tools.execute import engine, harness
from tools.lesson import exercise_cells
from tools.records import status


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("notebooks", "the course's executor (tools/execute/engine.py)")
    group.addoption("--run-records", type=Path, default=None, help="write one run record per notebook here")
    group.addoption("--run-command", default="pytest", help="what ran the notebooks, for the records")
    group.addoption("--save-executed", type=Path, default=None, help="write executed notebooks here")
    group.addoption("--execute", action="store_true", help="execute each notebook once with tools/execute/engine.py")
    group.addoption("--notebooks-summary", type=Path, default=None,
                    help="write the run's notebooks, jobs, seconds and peak memory to this JSON file")
    group.addoption("--steps-summary", type=Path, default=None,
                    help="the step summary of the `make test` this run belongs to, named in each record")
    group.addoption("--jobs", type=int, default=1, help="with --execute: notebooks executed at a time")
    group.addoption("--crowded", action="store_true",
                    help="with --execute: notebooks that start processes do not run alone (load for make flaky)")
    group.addoption("--no-exercises", dest="prove_exercises", action="store_false",
                    help="with --execute: do not prove the exercises")
    group.addoption("--book-cache", type=Path, default=None, help="with --execute: store passing notebooks here")
    group.addoption("--wrong-answers", type=Path, default=harness.WRONG_ANSWERS,
                    help="with --execute: the folder of <label>/wrong_*.py")


class _Runner:
    """Executes the collected notebooks in a thread of its own, `--jobs` at a time; tests wait for theirs."""

    def __init__(self, config: pytest.Config, paths: list[Path]) -> None:
        self.options = engine.Options(
            exercises=config.getoption("prove_exercises"), wrong_answers=config.getoption("wrong_answers"),
            command=config.getoption("run_command"), records=config.getoption("run_records"),
            executed=config.getoption("save_executed"), book_cache=config.getoption("book_cache"),
            root=Path(config.rootpath), steps=config.getoption("steps_summary"))
        self.jobs = max(1, config.getoption("jobs"))
        self.crowded: bool = config.getoption("crowded")
        self.paths = paths
        self.futures: dict[Path, concurrent.futures.Future[engine.Result]] = {
            path: concurrent.futures.Future() for path in paths}
        self.results: list[engine.Result] = []
        self.peak_bytes = 0
        self.seconds = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._thread = threading.Thread(target=self._run, name="notebooks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _done(self, path: Path, result: engine.Result | BaseException) -> None:
        if isinstance(result, engine.Result):
            self.results.append(result)
            self.futures[path].set_result(result)
        else:
            self.futures[path].set_exception(result)

    def _run(self) -> None:
        import time

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            await engine.execute_many(self.paths, self.options, self.jobs, self._done, self.crowded)

        started = time.perf_counter()
        memory = engine.MemoryWatch()
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

    def result(self, path: Path) -> engine.Result:
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
            for exercise in exercise_cells(read_notebook(self.path), self.path):
                yield ExerciseItem.from_parent(self, name=f"exercise[{exercise.label}]", label=exercise.label)


class NotebookItem(pytest.Item):
    """Every code cell of the notebook ran, and the deprecation gate let each through."""

    def result(self) -> engine.Result:
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


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    runner = config.stash.get(_RUNNER, None)
    if runner is None:
        return
    runner.stop()
    config.stash[_RECORDS] = [r.record for r in runner.results if r.record is not None]
    summary = config.getoption("notebooks_summary")
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(json.dumps({"notebooks": len(runner.results), "jobs": runner.jobs,
                                       "seconds": round(runner.seconds, 1),
                                       "peak_memory_bytes": runner.peak_bytes}) + "\n")


_RECORDS = pytest.StashKey[list[dict[str, Any]]]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    records = terminalreporter.config.stash.get(_RECORDS, [])
    if not records:
        return
    torch_version = records[0]["environment"]["torch"]
    terminalreporter.section(f"notebook budgets on torch {torch_version}: seconds and peak memory, slowest first")
    for line in status.timing_report(records, Path(terminalreporter.config.rootpath)):
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
