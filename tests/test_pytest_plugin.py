"""The executor's pytest plugin writes run records, saves executed notebooks, and gates deprecations.

Each test executes small notebooks in a fresh folder laid out like the course (notebooks/<chapter>/<name>.ipynb),
with tools.execute.pytest_plugin loaded as `make test` loads it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tools.course import ROOT
from tools.records import gate, runs

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

DEPRECATED_CALL = "import warnings\nwarnings.warn('old_api() is deprecated', DeprecationWarning)\nprint('done')"


def _notebook(folder: Path, name: str, *cells: tuple[str, list[str]]) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(source, metadata={"tags": tags}) for source, tags in cells]
    path = folder / "notebooks" / "demo" / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, str(path))
    return path




def _run(folder: Path, *extra: str) -> tuple[int, str, dict[str, dict[str, Any]]]:
    records = folder / "records"
    command = [sys.executable, "-m", "pytest", "-p", "tools.execute.pytest_plugin", "-p", "no:cacheprovider",
               "--execute",
               "--rootdir", str(folder), "-c", os.devnull, "--run-records", str(records), "--run-command", "pytest",
               *extra, "notebooks"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600, env=env, check=False)
    found = {r["notebook"]: r for _, r in runs.load_records(records)}
    return done.returncode, done.stdout + done.stderr, found


def test_records_say_what_each_cell_did(tmp_path: Path) -> None:
    _notebook(tmp_path, "good", ("print('Skipped on cpu: no GPU here')", []),
              ("import warnings\nwarnings.warn('mind the gap')", []), ("x = 1", []))
    _notebook(tmp_path, "bad", ("y = 2", []), ("assert y == 3, 'y should be 3'", []), ("z = 4", []))
    code, output, found = _run(tmp_path, "--save-executed", str(tmp_path / "executed"))
    assert code == 1, output
    good, bad = found["notebooks/demo/good.ipynb"], found["notebooks/demo/bad.ipynb"]
    assert good["outcome"] == "pass" and good["failed_cell"] is None
    assert good["skipped_cells"] == 1
    assert good["warnings"] == [{"cell": 1, "category": "UserWarning", "message": "mind the gap"}]
    assert bad["outcome"] == "fail"
    assert bad["failed_cell"] == {"index": 1, "error": "AssertionError: y should be 3"}
    assert good["source_sha256"] == runs.source_hash(json.loads((tmp_path / good["notebook"]).read_text()))
    assert good["environment"]["torch"] and good["environment"]["platform"] in ("cpu", "cuda", "rocm", "mps", "xpu")
    executed = nbformat.read(str(tmp_path / good["executed_notebook"]), as_version=4)
    assert "Skipped on cpu" in executed.cells[0].outputs[0]["text"]
    assert "notebook budgets on torch" in output, "the timing report comes from the same records"


def test_the_gate_fails_a_deprecated_call(tmp_path: Path) -> None:
    _notebook(tmp_path, "deprecated", ("x = 1", []), (DEPRECATED_CALL, []))
    code, output, found = _run(tmp_path)
    record = found["notebooks/demo/deprecated.ipynb"]
    assert code == 1
    assert record["outcome"] == "fail" and record["failed_cell"]["index"] == 1
    assert "deprecation gate" in output and "demonstrates-warning" in output


def test_the_gate_lets_a_tagged_demonstration_through(tmp_path: Path) -> None:
    _notebook(tmp_path, "demonstration", (DEPRECATED_CALL, [gate.DEMONSTRATES_WARNING]))
    code, output, found = _run(tmp_path)
    record = found["notebooks/demo/demonstration.ipynb"]
    assert code == 0, output
    assert record["outcome"] == "pass"
    assert record["warnings"][0]["category"] == "DeprecationWarning"


def test_the_gate_sees_a_deprecated_torch_call(tmp_path: Path) -> None:
    """torch.jit.script warns from inside torch, where Python hides a DeprecationWarning by default."""
    _notebook(tmp_path, "jit", ("import torch", []), ("torch.jit.script(torch.nn.Linear(2, 2))", []))
    code, output, found = _run(tmp_path)
    record = found["notebooks/demo/jit.ipynb"]
    assert code == 1, output
    assert record["failed_cell"]["index"] == 1
    assert "torch.jit.script" in record["failed_cell"]["error"] or "deprecat" in output

