"""The upgrade scanner finds exactly the marked lines in its fixtures, and nothing in the clean ones.

Each fixture under tests/fixtures/upgrade_scan/ marks the lines the scanner must report with a trailing
`# expect: <rule>` comment (comments are invisible to the AST, so the marks cannot cause findings themselves).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tools import upgrade_scan
from tools.course import ROOT, cell_source, read_notebook
from tools.snippets import upgrade_scan as snippet

FIXTURES = ROOT / "tests" / "fixtures" / "upgrade_scan"
EXPECT = re.compile(r"#\s*expect:\s*([a-z][a-z0-9-]*)")
Key = tuple[int | None, int, str]


def expected(path: Path) -> set[Key]:
    """(cell, line, rule) for every `# expect: <rule>` mark in a fixture."""
    if path.suffix == ".py":
        units: list[tuple[int | None, str]] = [(None, path.read_text(encoding="utf-8"))]
    else:
        cells = read_notebook(path)["cells"]
        units = [(i, cell_source(c)) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    return {(cell, number, match.group(1))
            for cell, source in units
            for number, line in enumerate(source.split("\n"), start=1)
            for match in EXPECT.finditer(line)}


def found(path: Path) -> set[Key]:
    report = upgrade_scan.scan_paths([path])
    assert report.errors == []
    return {(f.cell, f.line, f.rule) for f in report.findings}


FIXTURE_FILES = sorted(FIXTURES.glob("*.py")) + sorted(FIXTURES.glob("*.ipynb"))


def test_there_are_fixtures() -> None:
    assert {p.name for p in FIXTURE_FILES} >= {"affected.py", "aliases.py", "clean.py", "affected.ipynb",
                                                "clean.ipynb"}


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_findings_are_exactly_the_marked_lines(path: Path) -> None:
    want, got = expected(path), found(path)
    assert got - want == set(), "reported but not marked (a false positive)"
    assert want - got == set(), "marked but not reported (a miss)"


@pytest.mark.parametrize("name", ["clean.py", "clean.ipynb"])
def test_clean_code_gives_no_finding(name: str) -> None:
    assert expected(FIXTURES / name) == set(), "a clean fixture must not mark anything"
    assert upgrade_scan.main([str(FIXTURES / name)]) == 0


def test_every_rule_has_a_fixture() -> None:
    marked = {rule for path in FIXTURE_FILES for _, _, rule in expected(path)}
    assert marked == set(upgrade_scan.RULES)


def test_the_cli_is_the_snippet() -> None:
    """One source: the command line runs the very code the notebook stamps in."""
    assert upgrade_scan.scan_paths is snippet.scan_paths
    assert upgrade_scan.RULES is snippet.RULES


def test_text_report_names_file_line_rule_and_fix(capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(FIXTURES / "affected.ipynb")]) == 1
    out = capsys.readouterr().out
    assert "affected.ipynb (cell 2, line 2): [torchscript]" in out
    assert "Fix: export with torch.export.export" in out


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(FIXTURES / "affected.py"), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == [] and report["files"] == 1
    first = report["findings"][0]
    assert set(first) == {"path", "cell", "line", "rule", "detail", "changed", "fix"}
    assert (first["line"], first["rule"], first["cell"]) == (17, "torchscript", None)


def test_a_missing_path_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(tmp_path / "nowhere.py")]) == 2
    out = capsys.readouterr().out
    assert "nowhere.py: no such file or folder" in out
    assert "Traceback" not in out


def test_a_parse_failure_is_reported_and_the_scan_goes_on(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n    pass\n")
    (tmp_path / "ok.py").write_text("import torch\ntorch.jit.script(torch.nn.Linear(2, 2))\n")
    (tmp_path / "broken.ipynb").write_text("{not json")
    report = upgrade_scan.scan_paths([tmp_path])
    assert [(Path(f.path).name, f.line, f.rule) for f in report.findings] == [("ok.py", 2, "torchscript")]
    assert len(report.errors) == 2
    assert any("broken.py: cannot parse (line 2: invalid syntax); skipped the file" in e for e in report.errors)
    assert any("broken.ipynb: not a valid notebook" in e for e in report.errors)
    assert all("\n" not in e for e in report.errors), "one line per error"
    assert upgrade_scan.exit_code(report) == 2


def test_a_broken_cell_does_not_hide_the_others(tmp_path: Path) -> None:
    notebook = {"cells": [{"cell_type": "code", "source": "def f(:\n"},
                          {"cell_type": "code", "source": "import torch\n!echo hi\ntorch.jit.trace"}]}
    report = upgrade_scan.scan_notebook_json(json.dumps(notebook), "nb.ipynb")
    assert [(f.cell, f.line, f.rule) for f in report.findings] == [(1, 3, "torchscript")]
    assert report.errors == ["nb.ipynb: cannot parse (cell 0, line 1: invalid syntax); skipped the cell, "
                             "scanned the others"]


def test_ipython_lines_keep_line_numbers_and_blocks() -> None:
    code, shell = upgrade_scan.split_cell("import os\nfor i in range(2):\n    !echo $i\n%matplotlib inline\nx = !ls")
    assert code.split("\n") == ["import os", "for i in range(2):", "    pass", "", ""]
    assert shell == [(3, "echo $i"), (5, "ls")]
    code, shell = upgrade_scan.split_cell("%%bash\ntorchrun train.py")
    assert code == "" and shell == [(2, "torchrun train.py")]


@pytest.mark.parametrize(("line", "relies"), [
    ("torchrun --nproc-per-node=2 train.py", True),
    ("python -m torch.distributed.run --nproc_per_node 2 train.py", True),
    ("torchrun --master-port=29500 train.py", False),
    ("torchrun --master_port 29500 train.py", False),
    ("torchrun --standalone --nproc-per-node=2 train.py", False),
    ("torchrun --nnodes=2 --node-rank=0 train.py", False),
    ("torchrun --nnodes 1:1 train.py", True),
    ("python train.py", False),
])
def test_which_torchrun_lines_get_a_free_port(line: str, relies: bool) -> None:
    assert snippet.torchrun_without_port(line) is relies


def test_torchrun_alone_is_not_a_finding() -> None:
    """Only a file that also hard-codes 29500 relies on the old default port."""
    without = upgrade_scan.scan_notebook_json(json.dumps({"cells": [
        {"cell_type": "code", "source": "!torchrun --nproc-per-node=2 train.py"}]}))
    assert without.findings == []
    store = "import torch.distributed as dist\nstore = dist.TCPStore('localhost', 29500)"
    with_port = upgrade_scan.scan_notebook_json(json.dumps({"cells": [
        {"cell_type": "code", "source": "!torchrun --nproc-per-node=2 train.py"},
        {"cell_type": "code", "source": store}]}))
    assert [(f.cell, f.line, f.rule) for f in with_port.findings] == [(0, 1, "port-29500")]


def test_the_whole_repository_scans_in_under_five_seconds() -> None:
    start = time.perf_counter()
    report = upgrade_scan.scan_paths([ROOT])
    elapsed = time.perf_counter() - start
    assert report.files > 20, "the scan should reach the tools, tests and notebooks"
    assert not any(".venv" in f.path for f in report.findings)
    assert report.errors == [], "every file in the repository should parse"
    assert elapsed < 5, f"scanning the repository took {elapsed:.1f} s"
