"""One notebook's run under nbval, as the course's pytest plugin (pytest_plugin.py) follows it cell by cell.

nbval (its IPyNbFile) starts the notebook's kernel and runs each code cell as a test (its IPyNbCell, which keeps the
outputs it got in `test_outputs`). This module holds what the course adds around that run: the harness's access to
the same kernel (`NbvalKernel.scratch`, for tools/execute/harness.py), the deprecation gate and the counts each cell's
outputs give (tools/records/gate.py), and, once the last cell ran, the executed notebook put together from the cells'
outputs, its run record (tools/schemas/run-record.schema.json) and its entry in the book's cache (book_cache.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from queue import Empty
from typing import Any

import nbformat

from tools.course import ROOT, CourseError, cell_tags, read_notebook, relative_path, taught_release
from tools.execute import harness, memory
from tools.execute.book_cache import cache_executed
from tools.lesson import ExerciseCells, budget_seconds, exercise_cells, starts_processes
from tools.records import gate, runs

CELL_TIMEOUT = 300  # seconds a cell may run, as the book's `execute.timeout`
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class KernelStopped(Exception):
    """Harness code ran over the cell timeout: the run cannot go on."""


class NbvalKernel:
    """harness.Kernel on nbval's kernel (nbval.kernel.RunningKernel): code outside the notebook's cells, run in the
    notebook's own kernel, its outputs dropped."""

    def __init__(self, kernel: Any, timeout: float = CELL_TIMEOUT) -> None:
        self.kernel = kernel
        self.timeout = timeout

    def _reply(self, msg_id: str) -> dict[str, Any]:
        try:
            while True:
                msg: dict[str, Any] = self.kernel.get_message(stream="shell", timeout=self.timeout)
                if msg["parent_header"].get("msg_id") == msg_id:
                    self.kernel.await_idle(msg_id, self.timeout)  # its outputs are read and dropped
                    return msg["content"]
        except Empty:
            self.kernel.interrupt()
            raise KernelStopped(f"the harness's code ran over {self.timeout:.0f} s") from None

    async def scratch(self, source: str, tags: Sequence[str] = ()) -> tuple[str, str] | None:
        """Run code; None when it finished, else (error name, message). `tags` change nothing here."""
        reply = self._reply(self.kernel.kc.execute(source, store_history=False, allow_stdin=False,
                                                   stop_on_error=False))
        return (reply["ename"], reply["evalue"].strip()) if reply["status"] == "error" else None

    def language_info(self) -> dict[str, Any]:
        """The kernel's language_info, which an executed notebook's metadata carries."""
        info: dict[str, Any] = self._reply(self.kernel.kc.kernel_info()).get("language_info", {})
        return info

    @property
    def pid(self) -> int | None:
        return getattr(getattr(self.kernel.km, "provisioner", None), "pid", None)


@dataclasses.dataclass
class Failure:
    """Where and why a run stopped."""

    cell: int  # index among the code cells, as in the records
    notebook_cell: int  # index among all cells
    error: str  # one line: "Name: message"


@dataclasses.dataclass
class NotebookRun:
    """What the course keeps of one notebook's run while nbval runs its cells."""

    path: Path
    name: str  # relative to the root, as records name it
    source: dict[str, Any]
    exercises: list[ExerciseCells]
    code_cells: list[int]  # the notebook index of each code cell
    started: float = dataclasses.field(default_factory=time.perf_counter)
    seconds: float = 0.0  # of the notebook's own cells
    outputs: dict[int, list[Any]] = dataclasses.field(default_factory=dict)  # by notebook index
    failure: Failure | None = None
    skipped_cells: int = 0
    warnings: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    reports: dict[str, harness.Report] = dataclasses.field(default_factory=dict)
    language_info: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, path: Path, root: Path) -> NotebookRun:
        source = read_notebook(path)
        code = [i for i, cell in enumerate(source["cells"]) if cell["cell_type"] == "code"]
        return cls(path, relative_path(path, root), source, exercise_cells(source, path), code)

    def cell_ran(self, code_index: int, outputs: list[Any], seconds: float, error: BaseException | None) -> str | None:
        """Keep a cell's outputs and counts; the gate's message if it stops the run (None when the cell passed)."""
        index = self.code_cells[code_index]
        self.seconds += seconds
        self.outputs[index] = outputs
        self.skipped_cells += gate.printed_skip(outputs)
        printed = gate.warnings_in(gate.stream_text(outputs, "stderr"))
        self.warnings += [{"cell": code_index, "category": c, "message": m} for c, m in printed]
        if error is not None:
            errors = [out for out in outputs if out.get("output_type") == "error"]
            line = (harness.failure_text((errors[-1]["ename"], errors[-1]["evalue"].strip())) if errors
                    else ANSI.sub("", str(error)).strip().splitlines()[0])
            self.failure = Failure(code_index, index, line)
            return None
        stopped = gate.gate_message(self.name, code_index, printed, cell_tags(self.source["cells"][index]))
        if stopped:
            gated = next(f"{c}: {m}" for c, m in printed if c in gate.GATED_WARNINGS)
            self.failure = Failure(code_index, index, f"the deprecation gate: {gated}")
        return stopped

    def exercise_records(self) -> list[dict[str, Any]]:
        """Each proved exercise as the record holds it, with what the real run said of its solution."""
        failed = self.failure.notebook_cell if self.failure else None
        found = []
        for exercise in self.exercises:
            report = self.reports.get(exercise.label)
            if report is None:  # not proved: left out, or an earlier cell failed
                if failed is not None and failed < exercise.solution:
                    found.append({"label": exercise.label, "ok": False, "wrong_answers": 0, "seconds": 0.0,
                                  "problems": ["not checked: an earlier cell failed"]})
                continue
            problem = harness.solution_problem(exercise, failed, self.failure.error if self.failure else "")
            if problem:
                report.problems.append(problem)
            found.append({"label": report.label, "ok": report.ok, "wrong_answers": report.wrong_answers,
                          "seconds": round(report.seconds, 2), "problems": report.problems})
        return found

    def executed(self) -> Any:
        """The notebook as this run left it: each cell's outputs and execution count, metadata as the source has it
        (the book's cache matches a notebook by its code cells' sources and metadata)."""
        notebook = nbformat.read(str(self.path), as_version=4)
        code = 0
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            code += 1
            ran = index in self.outputs
            cell.execution_count = code if ran else None
            cell.outputs = [nbformat.from_dict(dict(out)) for out in self.outputs.get(index, [])]
            for output in cell.outputs:
                if output.get("output_type") == "execute_result":
                    output["execution_count"] = code
        if self.language_info:
            notebook.metadata["language_info"] = self.language_info
        return notebook


@dataclasses.dataclass
class Keep:
    """Where a finished run goes (the plugin's options)."""

    command: str
    records: Path | None
    executed: Path | None
    book_cache: Path | None
    steps: Path | None
    root: Path = ROOT


def keep(run: NotebookRun, kernel: NbvalKernel, where: Keep, env: dict[str, Any]) -> dict[str, Any]:
    """The run record of a finished run, written with the executed notebook and the cache entry the options ask for."""
    executed = run.executed()
    saved = None
    if where.executed is not None:
        target = where.executed / Path(run.name).relative_to("notebooks")
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(executed, str(target))
        saved = relative_path(target, where.root)
    failed_cell = {"index": run.failure.cell, "error": run.failure.error[:300]} if run.failure else None
    record = runs.new_record(run.name, run.source, failed_cell=failed_cell, seconds=run.seconds,
                             peak_memory_bytes=memory.peak_rss(kernel.pid), skipped_cells=run.skipped_cells,
                             warnings=run.warnings, env=env, command=where.command, executed_notebook=saved)
    exercises = run.exercise_records()
    if exercises:
        record["exercises"] = exercises
    record["wall_seconds"] = round(time.perf_counter() - run.started, 2)
    record["cpu_seconds"] = round(memory.cpu_seconds(kernel.pid), 2)
    if where.steps is not None:
        record["steps"] = relative_path(where.steps, where.root)
    if where.records is not None:
        runs.write_record(where.records, record)
    if where.book_cache is not None and run.failure is None:
        where.book_cache.mkdir(parents=True, exist_ok=True)
        with _locked(where.book_cache / ".course-lock"):  # two workers share one cache
            cache_executed(where.book_cache, run.path, executed, run.seconds)
    return record


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    import fcntl  # POSIX only, as are pytest-xdist's two workers here (a Windows run is one process)

    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def expected_seconds(path: Path, release: str | None = None) -> float:
    """How long a notebook ran last time (committed CPU records of the taught release), else its budget."""
    notebook = relative_path(path)
    for _, record in runs.load_records(runs.RUNS / f"cpu-torch-{release or taught_release()}"):
        if record["notebook"] == notebook:
            return float(record["seconds"])
    return float(budget_seconds(path) or 30)


def start_order(paths: Sequence[Path]) -> list[Path]:
    """The order to start notebooks in: those that start processes first (one worker runs them, one after another:
    the course plugin's pytest_xdist_make_scheduler), then the others, each group the longest first, so that the
    last notebooks to finish are short."""
    try:
        return sorted(paths, key=lambda p: (not starts_processes(p), -expected_seconds(p)))
    except CourseError:  # malformed committed records: keep the given order
        return list(paths)
