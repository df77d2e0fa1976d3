"""The pre-flight's student copy on torch 2.11.0, run as the notebook tells a learner to: every cell, on past the
install and setup cells that stop. The table must appear with one red row, the torch row, whose fix is this machine's
install command.

It needs a venv with torch 2.11.0 and the pre-flight's packages at $COURSE_VENVS/torch-2.11.0 (the matrix's folder;
`python -m venv DIR && DIR/bin/pip install torch==2.11.0 numpy matplotlib pandas ipywidgets ipykernel jinja2
threadpoolctl`). It is not a release of the matrix: `make test` skips it without that venv, and the weekly
learner-path job makes one from torch's CPU index and fails without it (COURSE_OLD_TORCH_REQUIRED=1). The rows'
logic is tested without it in tests/test_preflight_branches.py.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
from pathlib import Path

import pytest

from tools.course import ROOT, cell_source, read_notebook
from tools.execute.kernel import run_as_learner
from tools.execute.matrix import VENVS
from tools.workshop.student import student_version

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

OLD = "2.11.0"


def table_rows(cell: dict) -> list[list[str]]:
    """The pre-flight table's rows as text (status, name, fix, see, found, required), from the cell's HTML."""
    page = next(output["data"]["text/html"] for output in cell["outputs"] if "text/html" in output.get("data", {}))
    rows = re.findall(r"<tr>(.*?)</tr>", page, re.S)[1:]
    return [[html.unescape(re.sub("<[^>]+>", "", text)).strip() for text in re.findall(r"<td[^>]*>(.*?)</td>", row,
                                                                                          re.S)] for row in rows]


def test_the_student_copy_on_torch_2_11_shows_the_table_with_one_red_row(tmp_path: Path) -> None:
    python = VENVS / f"torch-{OLD}" / "bin" / "python"
    # The weekly learner-path job makes the venv and sets COURSE_OLD_TORCH_REQUIRED: there a missing one fails.
    missing = pytest.fail if os.environ.get("COURSE_OLD_TORCH_REQUIRED") == "1" else pytest.skip
    if not python.is_file():
        missing(f"no torch {OLD} venv at {python} (see this module's docstring to make one)")
    probe = subprocess.run([str(python), "-c", "import ipykernel, pandas, torch; print(torch.__version__)"],
                           capture_output=True, text=True, check=False)
    if not probe.stdout.startswith(OLD):
        missing(f"{python} lacks torch {OLD}, pandas or ipykernel: {probe.stderr.strip()[-200:]}")
    notebook = read_notebook(ROOT / "notebooks" / "workshop" / "preflight.ipynb")
    executed, failed, finished = run_as_learner(student_version(notebook), tmp_path, str(python))
    table = next(cell for cell in executed["cells"] if "CHECKS = [" in cell_source(cell))
    rows = table_rows(table)
    red = [row for row in rows if row[0] == "FAIL"]
    assert [row[1] for row in red] == ["PyTorch 2.12"], rows
    assert red[0][4].startswith(OLD), red
    assert red[0][2].startswith("Run `pip install torch==2.12.0") and red[0][2].endswith("then restart the kernel")
    assert executed["cells"].index(table) not in failed, "the table's cell itself failed"
    cells = executed["cells"]
    summary = next(index for index, cell in enumerate(cells) if "Fix these before the workshop" in cell_source(cell))
    assert (failed, finished) == ([1, 2, summary], False), (
        "Run All goes on past the install and setup cells (tagged raises-exception) and stops at the summary only")
