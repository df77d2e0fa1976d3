"""Run records on the page: the status table, the line on every notebook page, recorded runs.

The whole path is exercised on a small book laid out like the course: a notebook runs under
the course's executor (tools/execute/pytest_plugin.py) (records, executed copy), the executed copy is marked as a
recording, and the book is built with the course's configuration and extensions.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from tools.course import ROOT, read_notebook, taught_release, write_notebook
from tools.execute import matrix
from tools.execute.command import notebooks_command
from tools.records import runs, status

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

HELLO = "import uuid\nprint('output', uuid.uuid4())"


def _record(notebook: str, outcome: str = "pass", sha: str = "0" * 64, **environment: Any) -> dict[str, Any]:
    return {
        "schema": 1, "notebook": notebook, "source_sha256": sha, "outcome": outcome,
        "failed_cell": None if outcome == "pass" else {"index": 2, "error": "AssertionError: no"},
        "seconds": 3.5, "peak_memory_bytes": 2**29, "skipped_cells": 1, "warnings": [],
        "environment": {"platform": "cpu", "device": "a CPU, 2 threads", "torch": "2.13.0+cpu", "torch_build": "CPU",
                        "runtime": "CPU", "driver": None, "python": "3.11.7", "os": "Linux", **environment},
        "date": "2026-11-30T12:00:00+00:00", "command": "pytest", "executed_notebook": None,
    }


def test_the_matrix_starts_with_the_taught_release() -> None:
    assert matrix.releases()[0] == taught_release() == "2.12.0"
    assert len(matrix.releases()) >= 3


def _tiny_book(tmp_path: Path) -> Path:
    book = tmp_path / "book"
    (book / "chapters").mkdir(parents=True)
    shutil.copy(ROOT / "chapters" / "where-it-has-run.md", book / "chapters")
    (book / "index.md").write_text("# A tiny book\n\nIt tests the run records.\n")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    extensions = ("_ext.run_status", "_ext.unique_scripts", "_ext.editions")
    config["sphinx"]["local_extensions"] = {name: str(ROOT) for name in extensions}
    config["execute"]["cache"] = str(tmp_path / "cache")
    config["html"].pop("favicon", None)
    (book / "_config.yml").write_text(yaml.safe_dump(config))
    (book / "_toc.yml").write_text(
        "format: jb-book\nroot: index\nchapters:\n"
        "  - file: notebooks/demo/hello\n  - file: chapters/where-it-has-run\n")
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_markdown_cell("# Hello\n\nA lesson."), nbformat.v4.new_code_cell(HELLO)]
    (book / "notebooks" / "demo").mkdir(parents=True)
    nbformat.write(notebook, str(book / "notebooks" / "demo" / "hello.ipynb"))
    return book


def _execute(book: Path, records: Path, *extra: str) -> None:
    command = notebooks_command(sys.executable, "--rootdir", str(book), "-c", os.devnull, "--run-records",
                                str(records), *extra, jobs=1, targets=["notebooks"], root=book)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=book, capture_output=True, text=True, timeout=600, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_stale_and_flaky_records(tmp_path: Path) -> None:
    book = _tiny_book(tmp_path)
    path = book / "notebooks" / "demo" / "hello.ipynb"
    current = runs.source_hash(read_notebook(path))
    folder = book / "results" / "runs"
    record = _record("notebooks/demo/hello.ipynb", sha=current)
    runs.write_record(folder / "run-1", record)
    runs.write_record(folder / "run-2", {**record, "outcome": "fail", "failed_cell": {"index": 1, "error": "x"}})
    [cell] = status.cells(runs.load_records(folder), book)
    assert (cell.state, cell.runs, cell.failures) == ("flaky", 2, 1)
    assert status.verdict_text(cell) == "1 of 2 runs failed"
    notebook = read_notebook(path)
    notebook["cells"][1]["source"] = "print('edited')"
    write_notebook(path, notebook)
    [cell] = status.cells(runs.load_records(folder), book)
    assert cell.state == "stale", "an edited notebook's old records are never shown as a pass"


def test_a_recorded_run_renders_without_execution(tmp_path: Path) -> None:
    book = _tiny_book(tmp_path)
    recorded = book / "results" / "recorded" / "cpu_fixture"
    _execute(book, book / "results" / "runs" / "cpu-torch-x" / "run-1")
    _execute(book, runs.build_run_folder(book, taught_release()))  # the run the book shows, as `make book` records it
    _execute(book, recorded / "records", "--save-executed", str(recorded))
    [(_, record)] = runs.load_records(recorded / "records")
    executed = book / record["executed_notebook"]
    matrix.mark_recorded(executed, record)
    assert matrix.list_recorded_in_toc(book) == ["results/recorded/cpu_fixture/demo/hello"]
    printed = re.search(r"output ([0-9a-f-]{36})", json.dumps(read_notebook(executed)))
    assert printed, "the recording holds the output of its run"
    build = subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(book), "-W", "-n",
                            "--keep-going"], capture_output=True, text=True, timeout=900, check=False)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    html = book / "_build" / "html"
    recorded_page = (html / "results" / "recorded" / "cpu_fixture" / "demo" / "hello.html").read_text()
    live_page = (html / "notebooks" / "demo" / "hello.html").read_text()
    assert printed[1] in recorded_page, "the recorded page shows the recorded output"
    assert printed[1] not in live_page, "the recorded page was not executed again"
    assert "Recorded run." in recorded_page and "a CPU (no accelerator)" in recorded_page
    assert "Where this notebook has run:" in live_page and "CPU with torch" in live_page
    assert "As run on" not in live_page, "a CPU recording is never presented as an accelerator run"
    assert "Not yet run on CUDA, ROCm, MPS and XPU" in live_page
    environment = runs.read_record(runs.build_run_folder(book, taught_release()) / "demo__hello.json")["environment"]
    assert f"Outputs printed by torch {environment['torch']}" in live_page, "the page names the build that printed it"
    published = json.loads((html / "run-status.json").read_text())
    assert [c["state"] for c in published["cells"]] == ["pass"]
    assert (html / published["cells"][0]["record"].replace("results/", "", 1)).is_file(), "each cell links its record"


def test_a_steady_verdict_says_how_many_runs_it_rests_on(tmp_path: Path) -> None:
    book = _tiny_book(tmp_path)
    current = runs.source_hash(read_notebook(book / "notebooks" / "demo" / "hello.ipynb"))
    folder = book / "results" / "runs"
    for attempt in range(1, 30):
        runs.write_record(folder / f"run-{attempt}", _record("notebooks/demo/hello.ipynb", sha=current))
    [cell] = status.cells(runs.load_records(folder), book)
    assert (cell.state, status.verdict_text(cell)) == ("pass", "steady over 29 runs")


def test_the_flaky_detector_runs_enough_to_see_one_failure_in_ten() -> None:
    assert matrix.repeats_to_see(0.1, 0.95) == 29
    assert 1 - 0.9**29 >= 0.95 > 1 - 0.9**28
    makefile = (ROOT / "Makefile").read_text()
    assert f"FLAKY_RUNS := {matrix.repeats_to_see(0.1, 0.95)}" in makefile


def test_each_record_says_how_many_runs_its_verdict_rests_on(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(matrix, "_run_folder", lambda release, attempt: tmp_path / f"run-{attempt}")
    steady, flaky = "notebooks/a/steady.ipynb", "notebooks/b/flaky.ipynb"
    for attempt in (1, 2, 3):
        runs.write_record(tmp_path / f"run-{attempt}", _record(steady))
        runs.write_record(tmp_path / f"run-{attempt}", _record(flaky, outcome="fail" if attempt == 2 else "pass"))
    runs.write_record(tmp_path / "run-4", _record(flaky))  # a multi-process notebook's extra run
    assert matrix.mark_flaky("2.13.0", 4) == [flaky]
    for _, record in runs.load_records(tmp_path):
        expected = (4, True) if record["notebook"] == flaky else (3, False)
        assert (record["verdict_runs"], record["flaky"]) == expected, record
