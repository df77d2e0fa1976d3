"""The course's plugin on nbval writes run records, saves executed notebooks, and gates deprecations.

Each test executes small notebooks in a fresh folder laid out like the course (notebooks/<chapter>/<name>.ipynb),
run by the one command as `make test` runs it (tests/test_execute.py's `run`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.test_execute import run
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
    """The one command (nbval with the course's plugin) over folder/notebooks."""
    return run(folder, *extra)


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

