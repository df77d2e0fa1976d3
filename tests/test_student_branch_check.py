"""The student-branch check's wiring (tools/execute/student_copies.py --branch): a venv built from exactly what the
student branch holds, pip run in the branch as repo2docker runs it, and each copy the branch holds run in its place
there with that venv's Python (tests/test_workflows.py: the weekly workflow runs it). pip and the kernels are
replaced by recorders here; a real run installs torch (the weekly workflow's learner-path job).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tools.course import cell_source, read_notebook, write_notebook
from tools.execute import student_copies
from tools.workshop.student import write_student_branch

ENTRY = "notebooks/mx-quantization/mx-matmul"


def _recorders(monkeypatch: pytest.MonkeyPatch, pip_fails: bool = False) -> tuple[list[Any], list[Any]]:
    commands: list[Any] = []
    copies: list[Any] = []

    def run(command: list[str], cwd: Path | None = None, check: bool = False) -> subprocess.CompletedProcess[str]:
        commands.append((command, cwd))
        return subprocess.CompletedProcess(command, 1 if pip_fails and "pip" in command else 0)

    def problems(entry: str, folder: Path, python: str | None = None, copy: Any = None) -> list[str]:
        copies.append((entry, folder, python, copy))
        return []

    monkeypatch.setattr(student_copies.subprocess, "run", run)
    monkeypatch.setattr(student_copies, "student_copy_problems", problems)
    return commands, copies


def test_the_branch_venv_is_built_from_the_branch_and_runs_the_branchs_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    branch = tmp_path / "branch"
    write_student_branch(branch)
    held = branch / "mx-quantization" / "mx-matmul.ipynb"
    copy = read_notebook(held)
    copy["cells"][0]["source"] = "# the branch's own copy"
    write_notebook(held, copy)
    commands, copies = _recorders(monkeypatch)
    assert student_copies.main(["--branch", str(branch), "--pip-arg=--retries=0", ENTRY]) == 0
    venv, pip = commands
    assert venv[0][1:] == ["-m", "venv", "--clear", str(branch / ".venv")]
    python = str(branch / ".venv" / "bin" / "python")
    assert pip == ([python, "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt", "--retries=0"], branch)
    [(entry, folder, kernel, ran)] = copies
    assert (entry, folder, kernel) == (ENTRY, branch / "mx-quantization", python)
    assert cell_source(ran["cells"][0]) == "# the branch's own copy", "the copy the branch holds runs, not a new one"


def test_a_folder_that_is_not_a_student_branch_is_a_one_line_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    commands, _ = _recorders(monkeypatch)
    assert student_copies.main(["--branch", str(tmp_path), ENTRY]) == 2
    assert capsys.readouterr().err == (f"error: --branch {tmp_path}: no binder/requirements.txt there (write the "
                                       f"branch with `python -m tools.workshop student {tmp_path} --branch`)\n")
    assert commands == []


def test_a_failed_install_and_a_missing_copy_are_one_line_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    write_student_branch(tmp_path)
    _recorders(monkeypatch, pip_fails=True)
    assert student_copies.main(["--branch", str(tmp_path), ENTRY]) == 2
    assert "binder/requirements.txt` failed there" in capsys.readouterr().err
    (tmp_path / "mx-quantization" / "mx-matmul.ipynb").unlink()
    _recorders(monkeypatch)
    assert student_copies.main(["--branch", str(tmp_path), ENTRY]) == 2
    missing = f"error: --branch {tmp_path}: no student copy mx-quantization/mx-matmul.ipynb there\n"
    assert capsys.readouterr().err == missing


def test_pip_arguments_go_with_a_branch_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert student_copies.main(["--pip-arg=--retries=0", ENTRY]) == 2
    assert "--pip-arg goes with --branch" in capsys.readouterr().err

