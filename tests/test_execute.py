"""The one command (tools/execute/command.py): nbval runs each notebook once, and the course's plugin reads that run.

Each test writes small notebooks into a folder laid out like the course (notebooks/<chapter>/<name>.ipynb) and runs
the command as `make test` does: the cells, the exercises' attempts, the run record and the book's cache.
"""

from __future__ import annotations

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
from tools.execute import book_cache, command, exercises
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


def run(folder: Path, *options: str, jobs: int = 1) -> tuple[int, str, dict[str, dict[str, Any]]]:
    """The one command over folder/notebooks, its records in folder/records: exit code, output, records by notebook."""
    records = folder / "records"
    args = command.notebooks_command(sys.executable, "--rootdir", str(folder), "-c", os.devnull, "--run-records",
                                     str(records), *options, jobs=jobs, targets=["notebooks"], root=folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(args, cwd=folder, capture_output=True, text=True, timeout=600, env=env, check=False)
    return done.returncode, done.stdout + done.stderr, {r["notebook"]: r for _, r in runs.load_records(records)}


def _printed(notebook: Any) -> list[str]:
    """What each code cell printed and displayed, with the kernel's process id left out of file names."""
    texts = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        parts = [out.get("text", "") or out.get("data", {}).get("text/plain", "") for out in cell.outputs]
        texts.append(re.sub(r"ipykernel_\d+", "ipykernel_N", "".join(parts)))
    return texts


def test_a_failing_cell_fails_the_run_and_the_cells_after_it_are_skipped(tmp_path: Path) -> None:
    path = _notebook(tmp_path, "bad", "x = 1", "1 / 0", "print('after the failure')")
    code, output, found = run(tmp_path, "--book-cache", str(tmp_path / "cache"), "--save-executed",
                              str(tmp_path / "executed"))
    assert code == 1, output
    assert "FAILED notebooks/demo/bad.ipynb::Cell 1" in output and "ZeroDivisionError" in output
    assert "1 failed, 2 passed, 1 skipped" in output, "Cell 0 and the record pass; Cell 2 is skipped"
    record = found["notebooks/demo/bad.ipynb"]
    assert record["outcome"] == "fail"
    assert record["failed_cell"] == {"index": 1, "error": "ZeroDivisionError: division by zero"}
    executed = nbformat.read(str(tmp_path / record["executed_notebook"]), as_version=4)
    assert executed.cells[2].outputs == [] and executed.cells[2].execution_count is None
    assert book_cache.book_cache_problems(tmp_path / "cache", [path]) == [f"{path}: not in {tmp_path / 'cache'}"]


def test_the_book_cache_holds_the_executed_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The book's build finds nbval's run in its cache (the cache matches sources and cell metadata) and shows it."""
    path = _notebook(tmp_path, "good", ("import random\nprint(random.Random(7).random())", {"tags": ["hide-input"]}),
                     "x = 6 * 7\nx")
    cache = tmp_path / "cache"
    code, output, _ = run(tmp_path, "--book-cache", str(cache))
    assert code == 0, output
    assert "book cache: 1 executed notebook(s) stored" in output
    assert book_cache.main([str(cache), str(path)]) == 0
    _, shown = get_cache(str(cache)).merge_match_into_notebook(nbformat.read(str(path), as_version=4))
    assert _printed(shown) == ["0.32383276483316237\n", "42"]
    assert [cell.execution_count for cell in shown.cells] == [1, 2]
    assert shown.metadata["language_info"]["name"] == "python"
    edited = nbformat.read(str(path), as_version=4)
    edited.cells.append(nbformat.v4.new_code_cell("print('new')"))
    nbformat.write(edited, str(path))
    assert book_cache.book_cache_problems(cache, [path]) == [f"{path}: not in {cache}"]
    # What the book's build stores when it executes a notebook itself (myst_nb/core/execute/cache.py)
    get_cache(str(cache)).cache_notebook_bundle(CacheBundleIn(edited, str(path), data={"execution_seconds": 1.0}),
                                                check_validity=False, overwrite=True)
    assert book_cache.main([str(cache), str(path)]) == 1
    assert "the book build executed it" in capsys.readouterr().out


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


def test_the_attempts_run_in_nbvals_kernel_and_leave_no_trace(tmp_path: Path) -> None:
    """Wrong answers that draw random numbers, rebind names and raise a warning first, in the notebook's own nbval
    kernel: the cells print what a plain run prints (generators, names, the warning), so the book shows a plain run."""
    path = _notebook(tmp_path, "exercise", *EXERCISE)
    code, output, found = run(tmp_path, "--wrong-answers", str(_wrong_answers(tmp_path)), "--save-executed",
                              str(tmp_path / "executed"))
    assert code == 0, output
    record = found["notebooks/demo/exercise.ipynb"]
    assert record["exercises"] == [{"label": "demo-sum", "ok": True, "wrong_answers": 3,
                                    "seconds": record["exercises"][0]["seconds"], "problems": []}]
    executed = nbformat.read(str(tmp_path / record["executed_notebook"]), as_version=4)
    plain = nbformat.read(str(path), as_version=4)
    NotebookClient(plain, timeout=120, resources={"metadata": {"path": str(path.parent)}}).execute()
    assert _printed(executed) == _printed(plain)
    assert "the helper warns" in _printed(executed)[2], "the check cell shows the warning a plain run shows"
    assert "leftover" not in _printed(executed)[3] and "[1, 2]" in _printed(executed)[3]


def test_pytest_reports_each_cell_and_each_exercise(tmp_path: Path) -> None:
    """A check that accepts anything: its exercise test fails, the cells pass, so the book can show them."""
    cells = [*EXERCISE[:3], "print('Checked: total')", EXERCISE[4]]
    _notebook(tmp_path, "weak", *cells)
    code, output, found = run(tmp_path, "--wrong-answers", str(_wrong_answers(tmp_path)), "--book-cache",
                              str(tmp_path / "cache"))
    assert code == 1, output
    assert "FAILED notebooks/demo/weak.ipynb::exercise[demo-sum]" in output
    assert "the check PASSED with the student stub" in output
    assert "1 failed, 5 passed" in output, "4 cells and the record pass"
    assert "book cache: 1 executed notebook(s) stored" in output
    record = found["notebooks/demo/weak.ipynb"]
    assert record["outcome"] == "pass"
    assert record["exercises"][0]["label"] == "demo-sum" and not record["exercises"][0]["ok"]


def test_the_quick_loop_proves_one_exercise_and_stops_after_its_check(tmp_path: Path) -> None:
    """`make exercises EXERCISE=demo-sum`: the cells after the check are deselected, no record is written."""
    _notebook(tmp_path, "exercise", *EXERCISE)
    code, output, found = run(tmp_path, "--wrong-answers", str(_wrong_answers(tmp_path)), "--exercise", "demo-sum")
    assert code == 0, output
    assert "4 passed, 1 deselected" in output and found == {}
    code, output, _ = run(tmp_path, "--exercise", "no-such-label")
    assert code == 4 and "--exercise no-such-label: no such exercise" in output, output
    assert exercises.command(["notebooks/platforms/cuda.ipynb"], [])[-3:] == [
        "--exercises-only", f"--wrong-answers={exercises.WRONG_ANSWERS}", "notebooks/platforms/cuda.ipynb"]


def test_two_notebooks_run_side_by_side_and_multi_process_ones_one_at_a_time(tmp_path: Path) -> None:
    """`-n 2`: two notebooks at a time, the longest budget first; those whose course.multi_process is true never run
    at a time, and each runs beside another notebook."""
    span = ("import pathlib, time\nstart = time.time()\ntime.sleep(3)\n"
            "pathlib.Path('{name}.span').write_text(f'{{start}} {{time.time()}}')")
    budgets = {"multi_first": 60, "multi_second": 50, "single_first": 40, "single_second": 30}
    paths = [_notebook(tmp_path, name, span.format(name=name),
                       course={"multi_process": name.startswith("multi"), "budget_seconds": budget})
             for name, budget in budgets.items()]
    code, output, found = run(tmp_path, "--notebooks-summary", str(tmp_path / "summary.json"), jobs=2)
    assert code == 0, output
    assert len(found) == 4
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["notebooks"], summary["jobs"]) == (4, 2) and summary["peak_memory_bytes"] > 2**20, summary
    assert all(record["peak_memory_bytes"] > 2**20 and record["cpu_seconds"] > 0 for record in found.values()), (
        "each record has its kernel's peak memory and CPU time, read from nbval's kernel")
    spans = {p.stem: [float(x) for x in (p.parent / f"{p.stem}.span").read_text().split()] for p in paths}

    def overlap(one: str, other: str) -> bool:
        return max(spans[one][0], spans[other][0]) < min(spans[one][1], spans[other][1])

    assert not overlap("multi_first", "multi_second"), f"two multi-process notebooks ran at a time: {spans}"
    for multi in ("multi_first", "multi_second"):
        assert overlap(multi, "single_first") or overlap(multi, "single_second"), (
            f"{multi} ran alone, with the other worker idle: {spans}")


def test_crowded_multi_process_notebooks_run_beside_each_other(tmp_path: Path) -> None:
    """`--crowded` (make flaky): two multi-process notebooks share the machine, for load."""
    span = ("import pathlib, time\nstart = time.time()\ntime.sleep(3)\n"
            "pathlib.Path('{name}.span').write_text(f'{{start}} {{time.time()}}')")
    paths = [_notebook(tmp_path, name, span.format(name=name), course={"multi_process": True, "budget_seconds": 90})
             for name in ("one", "two")]
    code, output, _ = run(tmp_path, "--crowded", jobs=2)
    assert code == 0, output
    one, two = ([float(x) for x in (p.parent / f"{p.stem}.span").read_text().split()] for p in paths)
    assert max(one[0], two[0]) < min(one[1], two[1]), f"crowded: they overlap: {one}, {two}"


def test_the_matrix_and_the_recording_run_the_same_command(tmp_path: Path) -> None:
    """`make matrix`, `make flaky` and `make record-runs` run tools.execute.command.notebooks_command: records and, for
    a recording, the executed notebooks that the book shows as recorded."""
    from tools.execute import matrix

    _notebook(tmp_path, "hello", ("md", "# Hello"), "print('recorded output')")
    folder = tmp_path / "recorded"
    code, output, _ = run(tmp_path, "--run-records", str(folder / "records"), "--run-command", "make record-runs",
                          "--save-executed", str(folder))
    assert code == 0, output
    [(_, record)] = runs.load_records(folder / "records")
    assert record["command"] == "make record-runs" and record["outcome"] == "pass"
    executed = tmp_path / record["executed_notebook"]
    matrix.mark_recorded(executed, record)
    recorded = nbformat.read(str(executed), as_version=4)
    assert recorded.metadata["mystnb"]["execution_mode"] == "off"
    assert recorded.cells[1].outputs[0]["text"] == "recorded output\n"


def test_a_book_build_that_executes_a_notebook_fails(tmp_path: Path) -> None:
    """_ext/executed_nothing.py: a build renders the one command's run from the cache; a notebook the cache lacks
    (here: edited after the run) would be executed by the build, and the build fails instead."""
    import yaml

    from tests.test_run_status import _tiny_book

    book = _tiny_book(tmp_path)
    config = yaml.safe_load((book / "_config.yml").read_text())
    config["sphinx"]["local_extensions"]["_ext.executed_nothing"] = str(ROOT)
    (book / "_config.yml").write_text(yaml.safe_dump(config))
    code, output, _ = run(book, "--book-cache", config["execute"]["cache"])
    assert code == 0, output
    jupyter_book = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(book), "-W", "-n", "--keep-going"]
    build = subprocess.run(jupyter_book, capture_output=True, text=True, timeout=900, check=False)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    path = book / "notebooks" / "demo" / "hello.ipynb"
    edited = nbformat.read(str(path), as_version=4)
    edited.cells.append(nbformat.v4.new_code_cell("print('added after the checked run')"))
    nbformat.write(edited, str(path))
    build = subprocess.run([*jupyter_book, "--all"], capture_output=True, text=True, timeout=900, check=False)
    assert build.returncode != 0
    assert "the build executed notebooks instead of rendering nbval's checked run" in build.stdout + build.stderr
