"""tools/checks/typecheck.py: names that do not exist in the installed torch fail the check, in any branch.

The checks run mypy against the torch of TYPECHECK_PYTHON (default: this interpreter, which under
`make unit` is the course's venv), with the mypy cache of `make typecheck`, so a second run is fast.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.author.stamp import snippet_source
from tools.checks import typecheck
from tools.course import ROOT, cell_source, notebook_paths, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

TARGET = os.environ.get("TYPECHECK_PYTHON", sys.executable)

BAD_CELLS = {
    # The case the issue names: a misspelled torch.cuda call in a branch CI never runs.
    "misspelled": "if torch.cuda.is_available():\n    torch.cuda.synchronise()\n",
    "keyword": 'ones = torch.zeros(3, devic="cpu")\n',
    "import": "from torch.cuda import no_such_function\n",
    "in_function": "def on_gpu():\n    torch.cuda.synchronise()\n",
}
# Code the check must accept: the same calls spelled right, and value-type quirks that notebooks
# are full of (mixed dict literals, names reused across cells, Optional globals in functions).
GOOD_CELLS = [
    "if torch.cuda.is_available():\n    torch.cuda.synchronize()\n",
    'ones = torch.zeros(3, device="cpu")\n',
    'row = {"name": "eigh", "seconds": 0.5}\nprint(row["name"].upper())\n',
    "value = 3\nvalue = torch.ones(2)\nprint(value.sum())\n",
    "accel = torch.accelerator.current_accelerator()\n\n\ndef kind():\n    return accel.type\n",
]


def _notebook(folder: Path, name: str, cells: list[str]) -> Path:
    sources = [snippet_source("setup"), *cells]
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# A lesson"}]
        + [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s} for s in sources],
    }
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    return path


def _typecheck(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.checks.typecheck", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip


def test_bad_names_fail_and_good_code_passes(tmp_path: Path) -> None:
    bad = {key: _notebook(tmp_path, f"bad_{key}", [cell]) for key, cell in BAD_CELLS.items()}
    good = _notebook(tmp_path, "good", GOOD_CELLS)
    done = _typecheck("--python", TARGET, *map(str, [*bad.values(), good]))
    report = done.stdout + done.stderr
    assert done.returncode == 1, f"expected exit 1 (errors found), got {done.returncode}:\n{report}"
    errors = [line for line in report.splitlines() if ": error: " in line]
    # Cell numbers count code cells, as nbQA does: cell_1 is the setup, cell_2 the cell under test.
    expected = {
        "misspelled": r':cell_2:2: error: Module has no attribute "synchronise"; maybe "synchronize"\?',
        "keyword": r':cell_2:1: error: Unexpected keyword argument "devic"',
        "import": r':cell_2:1: error: Module "torch.cuda" has no attribute "no_such_function"',
        "in_function": r':cell_2:2: error: Module has no attribute "synchronise"',
    }
    for key, pattern in expected.items():
        mine = [line for line in errors if line.startswith(str(bad[key]))]
        assert any(re.search(pattern, line) for line in mine), f"{key}: no error matching {pattern}:\n{report}"
    assert not [line for line in errors if line.startswith(str(good))], f"good code was rejected:\n{report}"
    assert re.search(r"against torch \d+\.\d+", report), report


def test_good_code_alone_passes(tmp_path: Path) -> None:
    """Exit 0 when mypy's only reports are the ones the tool leaves out by design."""
    done = _typecheck("--python", TARGET, str(_notebook(tmp_path, "good", GOOD_CELLS)))
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert "clean against torch" in report and 'value typed "object" left out' in report, report


def test_the_demonstration_the_issue_asks_for(tmp_path: Path) -> None:
    """`if torch.cuda.is_available(): torch.cuda.synchronise()` fails the check on any machine."""
    path = _notebook(tmp_path, "guarded", ["if torch.cuda.is_available(): torch.cuda.synchronise()\n"])
    done = _typecheck("--python", TARGET, str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert f'{path}:cell_2:1: error: Module has no attribute "synchronise"' in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--python", "/no/such/python"], "no such file"),
        (["--python", "."], "not an executable interpreter"),
        (["--python", TARGET, "README.md"], "not a notebook, a folder or a file of tools/snippets/"),
        (["--python", TARGET, "no/such/notebook.ipynb"], "no such file or folder"),
    ],
)
def test_bad_input_is_explained(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert typecheck.main(args) == 2
    assert message in capsys.readouterr().err


def test_a_python_without_torch_is_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'torch'\" >&2\nexit 1\n")
    fake.chmod(0o755)
    assert typecheck.main(["--python", str(fake)]) == 2
    assert "cannot import torch there (ModuleNotFoundError: No module named 'torch')" in capsys.readouterr().err


def test_snippet_lines_are_mapped_back() -> None:
    names = {"snippet0/eigh_benchmark.ipynb": "tools/snippets/eigh_benchmark.py", "nb0/a.ipynb": "notebooks/a.ipynb"}
    line = 'snippet0/eigh_benchmark.ipynb:cell_2:7: error: Module has no attribute "x"  [attr-defined]'
    assert (
        typecheck._rename(line, names)
        == 'tools/snippets/eigh_benchmark.py:7: error: Module has no attribute "x"  [attr-defined]'
    )
    line = "snippet0/eigh_benchmark.ipynb:cell_1:3: error: bad  [misc]"
    assert typecheck._rename(line, names) == "tools/snippets/setup.py:3: error: bad  [misc]"
    line = "nb0/a.ipynb:cell_4:2: note: see here"
    assert typecheck._rename(line, names) == "notebooks/a.ipynb:cell_4:2: note: see here"


# A suppression names its error code and says why, e.g.
#   stream = context.Stream()  # type: ignore[attr-defined]  # 2.12 annotates create() as object
SUPPRESSION = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[a-z-, ]+\])?(?P<rest>.*)$")


def _suppressions() -> list[tuple[str, str]]:
    found = []
    for path in notebook_paths():
        for number, cell in enumerate(c for c in read_notebook(path)["cells"] if c["cell_type"] == "code"):
            for line in cell_source(cell).splitlines():
                if SUPPRESSION.search(line):
                    found.append((f"{path.relative_to(ROOT)} cell_{number + 1}", line.strip()))
    for path in sorted((ROOT / "tools" / "snippets").glob("*.py")):
        found += [(str(path.relative_to(ROOT)), line.strip()) for line in path.read_text().splitlines()
                  if SUPPRESSION.search(line)]  # fmt: skip
    return found


def test_every_suppression_names_its_code_and_reason() -> None:
    bad = []
    for where, line in _suppressions():
        match = SUPPRESSION.search(line)
        assert match
        reason = match["rest"].strip().lstrip("#").strip()
        if not match["codes"] or len(reason.split()) < 3:
            bad.append(f"{where}: {line}")
    assert not bad, (
        "write each suppression as `# type: ignore[code]  # why this line is right` (three words or more):\n"
        + "\n".join(bad)
    )
