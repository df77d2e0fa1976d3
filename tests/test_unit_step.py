"""The unit step (`make unit`, -m "not integration") imports no torch: it leaves out the modules whose tests are all
integration tests, and fails when anything it ran imported torch (tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools.course import ROOT

UNIT = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not integration"]


def _run(folder: Path, *modules: str) -> subprocess.CompletedProcess[str]:
    """pytest as the unit step runs it, on a folder with the course's conftest.py, these test modules and a stand-in
    torch package (the real one takes seconds to import)."""
    (folder / "torch").mkdir()
    (folder / "torch" / "__init__.py").write_text("STAND_IN = True\n")
    (folder / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8"))
    for number, source in enumerate(modules):
        (folder / f"test_{number}.py").write_text(source, encoding="utf-8")
    return subprocess.run([*UNIT, "--rootdir", str(folder), str(folder)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)


def test_a_module_of_integration_tests_is_not_imported(tmp_path: Path) -> None:
    done = _run(tmp_path, "import pathlib\nimport pytest\nimport torch\n\npytestmark = pytest.mark.integration\n"
                          "pathlib.Path(__file__).with_name('imported').touch()\n\n"
                          "def test_torch() -> None:\n    assert torch.STAND_IN\n",
                "def test_plain() -> None:\n    assert 1 + 1 == 2\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and not (tmp_path / "imported").exists()


def test_a_unit_test_that_imports_torch_fails_the_step(tmp_path: Path) -> None:
    done = _run(tmp_path, "def test_plain() -> None:\n    import torch\n    assert torch.STAND_IN\n")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "the unit step imported torch" in done.stderr
