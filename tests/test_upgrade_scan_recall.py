"""The upgrade scanner reads what projects really write (issue 34): reStructuredText code blocks, and backend
strings that travel through constants, attributes and helper functions, within a file and across files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.course import ROOT
from torch_upgrade_scan import scan
from torch_upgrade_scan.blocks import rst_blocks
from torch_upgrade_scan.reading import literal_language

pytestmark = pytest.mark.integration  # scans of fixture folders

ISSUE34 = ROOT / "tests" / "fixtures" / "upgrade_scan" / "issue34"


def test_rst_blocks_directives_options_and_literal_blocks() -> None:
    """A directive's options are not code, its body is dedented with its indent kept for columns; a `::`
    paragraph opens a literal block; a directive such as `.. note::` does not."""
    lines = [
        "Intro::",
        "",
        "    x = 1",
        "",
        ".. code-block:: Python",
        "   :caption: c",
        "",
        "   y = 2",
        "   if y:",
        "       z = 3",
        "",
        ".. note::",
        "",
        "   prose",
        "after",
    ]
    assert rst_blocks(lines) == [(2, 4, "literal", ["x = 1"]), (7, 3, "python", ["y = 2", "if y:", "    z = 3"])]


@pytest.mark.parametrize(("block", "language"), [
    (["import torch", "torch.jit.script(f)"], "python"),
    ([">>> torch.jit.script(f)"], "python"),
    (["$ torchrun --nproc-per-node=2 train.py"], "shell"),
    (["torchrun --nproc-per-node=2 train.py"], "shell"),
    (["original model size: 4.0 MB"], "text"),
])
def test_what_a_literal_block_holds(block: list[str], language: str) -> None:
    assert literal_language(block) == language


def test_rst_findings_point_into_the_file(tmp_path: Path) -> None:
    page = tmp_path / "page.rst"
    page.write_text("Use::\n\n      m = torch.jit.script(model)\n")
    [finding] = scan.scan_paths([page]).findings
    assert (finding.line, finding.column, finding.rule) == (3, 11, "torchscript")


def test_a_helper_of_another_file_is_matched_in_the_project_scan() -> None:
    """The recipe's process group takes its backend from a function of distributed_utils.py: found when both
    files are scanned, not from the recipe alone (the helper could return one device's backend)."""
    recipe = ISSUE34 / "tune" / "recipe.py"
    assert scan.scan_paths([recipe]).findings == []
    found = [f for f in scan.scan_paths([ISSUE34 / "tune"]).findings if f.rule == "torchcomms-one-device"]
    assert [(Path(f.path).name, f.line) for f in found] == [("recipe.py", 15)]
    assert "returned by get_distributed_backend" in found[0].detail


def test_a_helper_that_returns_one_backend_is_no_finding() -> None:
    source = (
        "import torch.distributed as dist\n"
        "def pick(device):\n"
        "    backend = 'nccl'\n"
        "    if device == 'cpu':\n"
        "        backend = 'gloo'\n"
        "    return backend\n"
        "dist.init_process_group(pick('cuda'))\n"
    )
    assert scan.scan_source(source).findings == []
    mixed = source.replace("backend = 'gloo'", "backend = f'{device}:nccl,cpu:gloo'")
    assert [f.rule for f in scan.scan_source(mixed).findings] == ["torchcomms-one-device"]
