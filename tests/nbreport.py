"""A pytest plugin for nbval runs: run records, the deprecation gate, and the timing report.

Loaded with `-p tests.nbreport`. For every notebook that nbval executes it builds one run record
(tools/runs.py documents the schema): pass or fail with the failing cell, seconds, the kernel's
peak memory, cells that printed a "Skipped on ..." line, and every warning a cell printed.

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

import copy
import dataclasses
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tools import runs
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


def _stream(outputs: list[Any], name: str) -> str:
    streams = [out for out in outputs if out.get("output_type") == "stream" and out.get("name") == name]
    return "".join(out.get("text", "") for out in streams)


def _error(outputs: list[Any], longrepr: Any) -> str:
    for out in outputs:
        if out.get("output_type") == "error":
            return f"{out.get('ename')}: {out.get('evalue')}".splitlines()[0][:300]
    return str(longrepr).strip().splitlines()[-1][:300] if longrepr else "failed"


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
    if any(line.startswith("Skipped on ") for line in _stream(outputs, "stdout").splitlines()):
        run.skipped_cells += 1
    printed = runs.warnings_in(_stream(outputs, "stderr"))
    run.warnings += [{"cell": cell_num, "category": category, "message": message} for category, message in printed]
    tags = item.cell.metadata.get("tags", [])  # type: ignore[attr-defined]
    gated = [f"{c}: {m}" for c, m in printed if c in runs.GATED_WARNINGS]
    if gated and runs.DEMONSTRATES_WARNING not in tags and report.passed:
        report.outcome = "failed"
        report.longrepr = (
            f"{notebook}, code cell {cell_num}: the deprecation gate stops a cell that raises "
            f"{' / '.join(gated)}. Update the call, or, if the cell exists to show this warning, "
            f"tag it '{runs.DEMONSTRATES_WARNING}' and say so in its prose."
        )
    if report.failed and run.failed_cell is None:
        run.failed_cell = {"index": cell_num, "error": _error(outputs, report.longrepr)}


def _records(config: pytest.Config) -> list[dict[str, Any]]:
    environment = runs.environment()
    records = []
    for notebook, run in notebook_runs.items():
        records.append({
            "schema": runs.SCHEMA,
            "notebook": notebook,
            "source_sha256": runs.source_hash(read_notebook(run.path)),
            "outcome": "fail" if run.failed_cell else "pass",
            "failed_cell": run.failed_cell,
            "seconds": round(run.seconds, 2),
            "peak_memory_bytes": run.peak_bytes or None,
            "skipped_cells": run.skipped_cells,
            "warnings": run.warnings,
            "environment": environment,
            "date": runs.now(),
            "command": config.getoption("run_command"),
            "executed_notebook": None,
        })
    return records


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
