"""The code's layers (pyproject.toml's [tool.importlinter] contracts), checked by import-linter: `_ext/` on top, then
tools/execute and tools/editions, tools/workshop, then side by side tools/author, records, chromium and checks (which
import none of each other), tools/lesson.py and tools/course.py at the bottom; the upgrade scanner imports nothing of
the course. And no module is over 400 lines."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.course import ROOT

PACKAGES = ("tools", "_ext", "torch_upgrade_scan")
STAGES = "The course's stages import down only"
SCANNER = "The upgrade scanner, the one installed package, stands alone"
LINT = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
        "--no-cache", "--config", "pyproject.toml"]


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    paths = [str(root), os.environ.get("PYTHONPATH", "")]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in paths if path)}
    return subprocess.run(LINT, cwd=root, env=environment, capture_output=True, text=True, timeout=120, check=False)


def _copy(tmp_path: Path) -> Path:
    """The three packages' Python files and pyproject.toml, to break without touching the repository."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    return tmp_path


def test_the_code_keeps_its_layers() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("tools/course.py", "from tools.workshop import rooms", STAGES),  # a lower layer imports a higher one
    ("tools/workshop/pages.py", "import tools.execute.command", STAGES),
    ("tools/checks/conventions.py", "from tools.records import gate", STAGES),  # side by side in one layer
    ("tools/records/status.py", "from tools.author import stamp", STAGES),  # side by side in one layer
    ("torch_upgrade_scan/cli.py", "import tools.course", SCANNER),
])
def test_an_import_against_the_layers_is_caught(tmp_path: Path, module: str, line: str, contract: str) -> None:
    root = _copy(tmp_path)
    with (root / module).open("a", encoding="utf-8") as handle:
        handle.write(f"\n{line}\n")
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{contract} BROKEN" in done.stdout


MAX_MODULE_LINES = 400


def long_modules(root: Path) -> list[str]:
    """The modules of the three packages over MAX_MODULE_LINES lines."""
    return [path.relative_to(root).as_posix() for package in PACKAGES for path in sorted((root / package).rglob("*.py"))
            if len(path.read_text(encoding="utf-8").splitlines()) > MAX_MODULE_LINES]


def test_no_module_is_over_400_lines(tmp_path: Path) -> None:
    assert long_modules(ROOT) == [], "split the module along one of its ideas"
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert long_modules(tmp_path) == ["tools/long.py"]
