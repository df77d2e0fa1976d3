"""tools/execute/engine.py: each notebook runs once, and every check reads that run.

Each test writes small notebooks into a folder laid out like the course (notebooks/<chapter>/<name>.ipynb) and
executes them as `make test` does: the cells, the exercises' attempts, the run record and the book's cache.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from nbclient import NotebookClient

from tools.course import ROOT
from tools.execute import engine
from tools.records import runs

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

SOLUTION_TAGS = {"tags": ["solution", "hide-input"], "jupyter": {"source_hidden": True}}


def _notebook(folder: Path, name: str, *cells: str | tuple[str, dict[str, Any]],
              course: dict[str, Any] | None = None) -> Path:
    """A notebook of these cells: a string is a code cell, ("md", text) a markdown one, (source, metadata) code."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    if course is not None:
        notebook.metadata["course"] = course
    for cell in cells:
        if isinstance(cell, str):
            notebook.cells.append(nbformat.v4.new_code_cell(cell))
        elif cell[0] == "md":
            notebook.cells.append(nbformat.v4.new_markdown_cell(str(cell[1])))
        else:
            notebook.cells.append(nbformat.v4.new_code_cell(cell[0], metadata=cell[1]))
    path = folder / "notebooks" / "demo" / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path


def _printed(notebook: Any) -> list[str]:
    """What each code cell printed and displayed, with the kernel's process id left out of file names."""
    texts = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        parts = [out.get("text", "") or out.get("data", {}).get("text/plain", "") for out in cell.outputs]
        texts.append(re.sub(r"ipykernel_\d+", "ipykernel_N", "".join(parts)))
    return texts


def test_a_failing_cell_fails_the_run_and_stops_it(tmp_path: Path) -> None:
    path = _notebook(tmp_path, "bad", "x = 1", "1 / 0", "print('after the failure')")
    options = engine.Options(exercises=False, records=tmp_path / "records", book_cache=tmp_path / "cache",
                              root=tmp_path)
    result = engine.execute_notebook(path, options)
    assert result.failure is not None
    assert (result.failure.cell, result.failure.error) == (1, "ZeroDivisionError: division by zero")
    assert "1 / 0" in result.failure.detail, "the failure shows the cell and its traceback"
    assert result.executed.cells[2].outputs == [], "the run stops at the failing cell"
    [(_, record)] = runs.load_records(tmp_path / "records")
    assert record["outcome"] == "fail"
    assert record["failed_cell"] == {"index": 1, "error": "ZeroDivisionError: division by zero"}
    assert not result.cached
    assert engine.book_cache_problems(tmp_path / "cache", [path]) == [f"{path}: not in {tmp_path / 'cache'}"]


def test_the_book_cache_holds_the_executed_outputs(tmp_path: Path) -> None:
    """The book's build finds the run in its cache (the cache matches sources and cell metadata) and shows it."""
    path = _notebook(tmp_path, "good", ("import random\nprint(random.Random(7).random())", {"tags": ["hide-input"]}),
                     "x = 6 * 7\nx")
    cache = tmp_path / "cache"
    result = engine.execute_notebook(path, engine.Options(exercises=False, book_cache=cache, root=tmp_path))
    assert result.passed and result.cached
    assert engine.book_cache_problems(cache, [path]) == []
    _, shown = get_cache(str(cache)).merge_match_into_notebook(nbformat.read(str(path), as_version=4))
    assert _printed(shown) == _printed(result.executed) == ["0.32383276483316237\n", "42"]
    assert [cell.execution_count for cell in shown.cells] == [1, 2]
    edited = nbformat.read(str(path), as_version=4)
    edited.cells.append(nbformat.v4.new_code_cell("print('new')"))
    nbformat.write(edited, str(path))
    assert engine.book_cache_problems(cache, [path]) == [f"{path}: not in {cache}"]
    # What the book's build stores when it executes a notebook itself (myst_nb/core/execute/cache.py)
    get_cache(str(cache)).cache_notebook_bundle(CacheBundleIn(edited, str(path), data={"execution_seconds": 1.0}),
                                                check_validity=False, overwrite=True)
    [problem] = engine.book_cache_problems(cache, [path])
    assert problem.startswith(f"{path}: the book build executed it")


EXERCISE = [
    ("import random, warnings\nimport numpy as np\nimport torch\n"
     "random.seed(0)\nnp.random.seed(0)\ntorch.manual_seed(0)\ndata = [1, 2]\n\n\n"
     "def noisy():\n    warnings.warn('the helper warns')"),
    ("md", "```{exercise} Sum\n:label: demo-sum\n\nWrite `total(xs)`.\n```"),
    ("# @title Solution\ndef total(xs):\n    noisy()\n    return sum(xs)", SOLUTION_TAGS),
    ("assert callable(globals().get('total')), 'define total(xs) above'\n"
     "assert total(data) == 3, f'total({data}) should be 3, got {total(data)}'\nprint('Checked: total')"),
    ("names = sorted(k for k in globals() if not k.startswith('_'))\n"
     "print(random.random(), np.random.rand(), torch.rand(1).item(), data, names)"),
]
WRONG = {
    "wrong_a_draws.py": "# Wrong: drew random numbers\nrandom.random()\nnp.random.rand(3)\ntorch.rand(5)\n"
                        "leftover = 1\n\n\ndef total(xs):\n    return 0\n",
    "wrong_b_rebinds.py": "# Wrong: replaced the data\ndata = [5]\n\n\ndef total(xs):\n    return len(xs)\n",
    "wrong_c_warns.py": "# Wrong: off by one\ndef total(xs):\n    noisy()\n    return sum(xs) + 1\n",
}


def _wrong_answers(folder: Path, label: str = "demo-sum") -> Path:
    for name, source in WRONG.items():
        (folder / "wrong" / label).mkdir(parents=True, exist_ok=True)
        (folder / "wrong" / label / name).write_text(source)
    return folder / "wrong"


def test_the_attempts_leave_no_trace_in_the_run(tmp_path: Path) -> None:
    """Wrong answers that draw random numbers, rebind names and raise a warning first: the cells of the run print
    what a plain run prints (random, numpy and torch generators, names, the warning), so the book shows a plain run."""
    path = _notebook(tmp_path, "exercise", *EXERCISE)
    result = engine.execute_notebook(path, engine.Options(wrong_answers=_wrong_answers(tmp_path), root=tmp_path))
    assert result.passed, result.describe()
    [report] = result.exercises
    assert report.ok and report.wrong_answers == 3, str(report)
    plain = nbformat.read(str(path), as_version=4)
    NotebookClient(plain, timeout=120, resources={"metadata": {"path": str(path.parent)}}).execute()
    assert _printed(result.executed) == _printed(plain)
    assert "the helper warns" in _printed(result.executed)[2], "the check cell shows the warning a plain run shows"
    assert "leftover" not in _printed(result.executed)[3] and "[1, 2]" in _printed(result.executed)[3]


def test_two_notebooks_run_side_by_side_and_a_multi_process_one_alone(tmp_path: Path) -> None:
    span = ("import pathlib, time\nstart = time.time()\ntime.sleep(2)\n"
            "pathlib.Path('{name}.span').write_text(f'{{start}} {{time.time()}}')")
    paths = [_notebook(tmp_path, name, span.format(name=name),
                       course={"multi_process": name == "alone", "budget_seconds": 90 if name == "alone" else 30})
             for name in ("first", "second", "alone")]
    results = asyncio.run(engine.execute_many(paths, engine.Options(exercises=False, root=tmp_path), jobs=2))
    assert all(result.passed for result in results.values())
    spans = {p.stem: [float(x) for x in (p.parent / f"{p.stem}.span").read_text().split()] for p in paths}
    assert max(spans["first"][0], spans["second"][0]) < min(spans["first"][1], spans["second"][1]), (
        f"two notebooks run at a time: {spans}")
    assert spans["alone"][1] <= min(spans["first"][0], spans["second"][0]), (
        f"the multi-process notebook (the longest budget, so first) runs alone: {spans}")


def test_crowded_multi_process_notebooks_run_beside_each_other(tmp_path: Path) -> None:
    """`make flaky`'s extra runs (--crowded): two notebooks that start processes share the machine, for load."""
    span = ("import pathlib, time\nstart = time.time()\ntime.sleep(2)\n"
            "pathlib.Path('{name}.span').write_text(f'{{start}} {{time.time()}}')")
    paths = [_notebook(tmp_path, name, span.format(name=name), course={"multi_process": True, "budget_seconds": 90})
             for name in ("one", "two")]
    options = engine.Options(exercises=False, root=tmp_path)
    results = asyncio.run(engine.execute_many(paths, options, jobs=2, crowded=True))
    assert all(result.passed for result in results.values())
    one, two = ([float(x) for x in (p.parent / f"{p.stem}.span").read_text().split()] for p in paths)
    assert max(one[0], two[0]) < min(one[1], two[1]), f"crowded: they overlap: {one}, {two}"


def test_pytest_reports_each_notebook_and_each_exercise(tmp_path: Path) -> None:
    """`make test`'s notebooks step: a test for the cells and one per exercise, read from one execution."""
    cells = [*EXERCISE[:3], "print('Checked: total')", EXERCISE[4]]  # a check that accepts anything
    _notebook(tmp_path, "weak", *cells)
    records = tmp_path / "records"
    command = [sys.executable, "-m", "pytest", "-p", "tools.execute.pytest_plugin", "-p", "no:cacheprovider",
               "--execute",
               "--rootdir", str(tmp_path), "-c", os.devnull, "--wrong-answers", str(_wrong_answers(tmp_path)),
               "--run-records", str(records), "--book-cache", str(tmp_path / "cache"), "notebooks"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "FAILED notebooks/demo/weak.ipynb::exercise[demo-sum]" in output
    assert "the check PASSED with the student stub" in output
    assert "1 failed, 1 passed" in output
    assert "book cache: 1 executed notebook(s) stored" in output, "the cells passed, so the book can show them"
    [(_, record)] = runs.load_records(records)
    assert record["outcome"] == "pass"
    assert record["exercises"][0]["label"] == "demo-sum" and not record["exercises"][0]["ok"]
    assert json.loads(json.dumps(record)) == record


def test_the_matrix_and_the_recording_run_the_same_executor(tmp_path: Path) -> None:
    """`make matrix`, `make flaky` and `make record-runs` run tools.execute.matrix.notebooks_command: records and, for a
    recording, the executed notebooks that the book shows as recorded."""
    from tools.execute import matrix

    _notebook(tmp_path, "hello", ("md", "# Hello"), "print('recorded output')")
    folder = tmp_path / "recorded"
    command = matrix.notebooks_command(sys.executable, folder / "records", "make record-runs", "--save-executed",
                                       str(folder), jobs=1)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*command[:-1], "--rootdir", str(tmp_path), "-c", os.devnull, command[-1]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    [(_, record)] = runs.load_records(folder / "records")
    assert record["command"] == "make record-runs" and record["outcome"] == "pass"
    executed = tmp_path / record["executed_notebook"]
    matrix.mark_recorded(executed, record)
    recorded = nbformat.read(str(executed), as_version=4)
    assert recorded.metadata["mystnb"]["execution_mode"] == "off"
    assert recorded.cells[1].outputs[0]["text"] == "recorded output\n"
