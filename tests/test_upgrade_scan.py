"""The upgrade scanner finds exactly the marked lines in its fixtures, and nothing in the clean ones.

Each fixture under tests/fixtures/upgrade_scan/ marks the lines the scanner must report with a trailing
`# expect: <rule>` comment (comments are invisible to the rules, so the marks cannot cause findings themselves).
The fixtures hold every false alarm, miss and crash class of issues 13 and 24 (issue24/), some distilled from real
projects.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from tools.course import ROOT, cell_source, read_notebook
from torch_upgrade_scan import cli, filescan, fix, scan
from torch_upgrade_scan.catalog import DEPRECATED_DIST_NN, NEWEST, NO_RULE, RULES
from torch_upgrade_scan.findings import Finding, Report, severity_of
from torch_upgrade_scan.notebook import split_cell
from torch_upgrade_scan.reading import kind_of
from torch_upgrade_scan.reports import exit_code, format_report
from torch_upgrade_scan.rules.distributed import DIST_NN_OPS, dist_nn_fix
from torch_upgrade_scan.rules.shell import shell_variables, shell_words, torchrun_without_port
from torch_upgrade_scan.version import VERSION

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

FIXTURES = ROOT / "tests" / "fixtures" / "upgrade_scan"
EXPECT = re.compile(r"#\s*expect(?:\(-(\d)\))?:\s*([a-z][a-z0-9-]*)")  # (-N): the finding is N lines up
Key = tuple[str, int | None, int, str]


def fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and kind_of(p))


def expected(path: Path) -> set[Key]:
    """(file, cell, line, rule) for every `# expect: <rule>` mark in a fixture (`# expect(-1):` marks the line
    above: a shell command continued with a backslash is reported where it starts). Cells count from 1."""
    if path.suffix == ".ipynb":
        cells = read_notebook(path)["cells"]
        units = [(i, cell_source(c)) for i, c in enumerate(cells, start=1) if c["cell_type"] == "code"]
    else:
        units = [(None, path.read_bytes().decode("utf-8", errors="replace"))]
    return {(path.name, cell, number - int(match.group(1) or 0), match.group(2))
            for cell, source in units
            for number, line in enumerate(source.split("\n"), start=1)
            for match in EXPECT.finditer(line)}


@pytest.fixture(scope="module")
def whole() -> Report:
    """One scan of the fixture tree, as a project: torchrun lines in one file are evidence for another."""
    return scan.scan_paths([FIXTURES])


def test_there_are_fixtures() -> None:
    names = {p.name for p in fixture_files()}
    assert names >= {"affected.py", "aliases.py", "clean.py", "affected.ipynb", "clean.ipynb", "false_alarms.py",
                     "misses.py", "profiler_use.py", "bom_coding.py", "latin1.py", "launch.sh", "test.yml",
                     "Dockerfile", "requirements.txt", "README.md", "continued.ipynb", "r_kernel.ipynb"}


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_findings_are_exactly_the_marked_lines(path: Path, whole: Report) -> None:
    want = expected(path)
    got = {(Path(f.path).name, f.cell, f.line, f.rule) for f in whole.findings if Path(f.path) == path}
    assert got - want == set(), "reported but not marked (a false positive)"
    assert want - got == set(), "marked but not reported (a miss)"


def test_the_fixtures_scan_without_errors(whole: Report) -> None:
    assert whole.errors == [] and whole.internal == []
    assert any("README.md" in note and "not parsed" in note for note in whole.notes)
    assert any("r_kernel.ipynb" in note and "skipped" in note for note in whole.notes)


@pytest.mark.parametrize("name", ["clean.py", "clean.ipynb", "false_alarms.py"])
def test_clean_code_gives_no_finding(name: str) -> None:
    assert expected(FIXTURES / name) == set(), "a clean fixture must not mark anything"
    assert cli.main([str(FIXTURES / name)]) == 0


def test_every_rule_has_a_fixture() -> None:
    marked = {rule for path in fixture_files() for *_, rule in expected(path)}
    assert marked == set(RULES)


def test_every_rule_has_a_severity_and_the_unruled_changes_a_reason() -> None:
    assert {r.severity for r in RULES.values()} == {"breaks", "warns", "advisory"}
    assert all(len(reason) > 20 for reason in NO_RULE.values())


def test_text_report_is_grouped_by_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(FIXTURES / "affected.ipynb")]) == 1
    out = capsys.readouterr().out
    assert out.count("[torchscript] warns: TorchScript is deprecated") == 1, "what changed is said once per rule"
    assert "affected.ipynb:cell 3:1:12: torch.jit.script" in out, "cells count from 1"
    assert "fix (torch.jit.script, torch.jit.trace): " in out or "fix: " in out
    assert re.search(r"finding\(s\) in 1 file\(s\), 0 error\(s\), 0 note\(s\); [\d.]+ s, \d+ files/s", out)


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(FIXTURES / "affected.py"), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == [] and report["files"] == 1
    first = report["findings"][0]
    assert {"path", "cell", "line", "column", "rule", "severity", "detail", "changed", "fix"} <= set(first)
    assert (first["line"], first["column"], first["rule"], first["severity"]) == (17, 12, "torchscript", "warns")


def test_sarif_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(FIXTURES / "misses.py"), "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == set(RULES)
    fsdp = next(r for r in run["results"] if r["ruleId"] == "fsdp2-fullgraph")
    assert fsdp["level"] == "error"
    assert fsdp["locations"][0]["physicalLocation"]["region"] == {"startLine": 33, "startColumn": 8}


def test_github_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(FIXTURES / "misses.py"), "--format", "github", "--select", "advisory"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("::notice file=") for line in lines), lines
    assert any(",line=34,col=11,title=2.12 torchcomms-p2p::isend: " in line for line in lines)


def test_select_ignore_and_exclude(capsys: pytest.CaptureFixture[str]) -> None:
    report = scan.scan_paths([FIXTURES], select=["torchscript"], ignore=[], exclude=["*/project/*"])
    assert report.findings and {f.rule for f in report.findings} == {"torchscript"}
    assert not any("project" in Path(f.path).parts for f in report.findings)
    report = scan.scan_paths([FIXTURES / "misses.py"], ignore=["torchscript", "advisory"])
    assert {f.rule for f in report.findings} == {"dist-nn-functional", "defer-layout-freezing", "fsdp2-fullgraph"}
    with pytest.raises(SystemExit):
        cli.main([str(FIXTURES), "--select", "no-such-rule"])


def test_noqa_suppresses_only_the_rule_it_names() -> None:
    report = scan.scan_source("import torch\nm = torch.jit.script(f)  # noqa: torchscript\n"
                                      "n = torch.jit.script(f)  # noqa: magma\n")
    assert [f.line for f in report.findings] == [3]


def test_a_missing_path_is_bad_input_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(tmp_path / "nowhere.py")]) == 2
    captured = capsys.readouterr()
    assert "nowhere.py: no such file or folder" in captured.err
    assert "nowhere" not in captured.out and "Traceback" not in captured.err


def test_an_empty_path_is_an_error_not_the_current_folder(capsys: pytest.CaptureFixture[str]) -> None:
    """`torch-upgrade-scan ''` (an unset variable in a CI line) scanned the current folder and passed."""
    assert cli.main([str(FIXTURES / "clean.py"), ""]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "error: an empty PATH names no file or folder (use . for the current folder)\n"


def test_a_parse_failure_is_reported_and_the_scan_goes_on(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n    torch.jit.script\n")
    (tmp_path / "ok.py").write_text("import torch\ntorch.jit.script(torch.nn.Linear(2, 2))\n")
    (tmp_path / "broken.ipynb").write_text("{not json, torch.jit.script")
    report = scan.scan_paths([tmp_path])
    assert [(Path(f.path).name, f.line, f.rule) for f in report.findings] == [("ok.py", 2, "torchscript")]
    assert len(report.errors) == 2
    assert any("broken.py: cannot parse (line 2: invalid syntax)" in e for e in report.errors)
    assert any("broken.ipynb: not a valid notebook" in e for e in report.errors)
    assert all("\n" not in e for e in report.errors), "one line per error"
    assert exit_code(report) == 2


def test_deep_nesting_a_fifo_and_a_huge_file_are_per_file_errors(tmp_path: Path) -> None:
    """Crash classes of issue 13: each is one error line, and the other files are still scanned."""
    (tmp_path / "chain600.py").write_text("import torch\nx = " + " + ".join(["a"] * 600) + "\ntorch.jit.script\n")
    # (the deep expression is in a statement that a rule reads: the others are not parsed, see partial.py)
    (tmp_path / "deep.py").write_text("from torch.jit import script\nx = script(" + "+".join(["a"] * 100_000) + ")\n")
    (tmp_path / "huge.py").write_text("import torch\n" + "x = 1  # torch.jit.script\n" * 16_000)
    (tmp_path / "huge_plain.py").write_text("x = 1\n" * 60_000)  # no torch content: skipped, no error
    os.mkfifo(tmp_path / "pipe.py")
    start = time.perf_counter()
    report = scan.scan_paths([tmp_path], max_bytes=250_000)
    assert time.perf_counter() - start < 30, "a FIFO or a big file must not hang the scan"
    assert [(Path(f.path).name, f.line) for f in report.findings] == [("chain600.py", 3)]
    messages = sorted(report.errors)
    assert len(messages) == 3 and report.internal == []
    assert "deep.py: too deeply nested to parse" in messages[0] or "deep.py" in messages[0]
    assert any("huge.py" in m and "limit" in m for m in messages)
    assert any("pipe.py: not a regular file" in m for m in messages)
    assert exit_code(report) == 2


def test_an_internal_error_exits_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object) -> None:
        raise KeyError("bug")

    monkeypatch.setattr(filescan, "python_findings", broken)
    assert cli.main([str(FIXTURES / "affected.py"), "--jobs", "1"]) == 3
    assert "internal error" in capsys.readouterr().err


def test_ipython_lines_keep_line_numbers_and_blocks() -> None:
    code, shell = split_cell("import os\nfor i in range(2):\n    !echo $i\n%matplotlib inline\nx = !ls")
    assert code.split("\n") == ["import os", "for i in range(2):", "    pass", "", ""]
    assert shell == [(3, "echo $i"), (5, "ls")]
    code, shell = split_cell("%%bash\ntorchrun train.py")
    assert code == "" and shell == [(2, "torchrun train.py")]
    code, shell = split_cell("!pip install \\\n    torch\nimport torch")
    assert code.split("\n") == ["", "", "import torch"]
    assert shell == [(1, "pip install \\"), (2, "torch")]


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
    assert torchrun_without_port(line) is relies


@pytest.mark.parametrize(("line", "variables", "relies"), [
    ("torchrun ${ARGS[@]} train.py", {"ARGS": ["--nproc_per_node 8\n    --master_port $PORT"]}, False),
    ("torchrun ${ARGS[@]} train.py", {"ARGS": ["--nproc_per_node 8 --nnodes 1"]}, True),
    ("torchrun $UNSET train.py", {}, False),
    ("torchrun --nproc-per-node 2 train.py $UNSET", {}, True),
    ("torchrun --nnodes $N train.py", {"N": ["1"]}, True),
    ("torchrun --nnodes $N train.py", {"N": ["${NUM_NODES:-1}"]}, False),
    ("PET_MASTER_PORT=29500 torchrun train.py", {}, False),
    ("torchrun train.py", {"PET_MASTER_PORT": ["29500"]}, False),
    ("torchrun train.py", {"MASTER_PORT": ["29500"]}, True),
    ("torchrun --rdzv-backend=c10d train.py", {}, False),
    ("torchrun --rdzv_backend static train.py", {}, True),
    ("uv run --no-sync python -m torch.distributed.run --nproc_per_node 2 train.py", {}, True),
    ("$PREFIX python3.11 -m torch.distributed.launch train.py", {"PREFIX": [""]}, True),
    ("we launch it with torchrun on port 29500", {}, False),
])
def test_torchrun_options_are_read_through_the_files_variables(line: str, variables: dict, relies: bool) -> None:
    """An expansion the file does not set could hold --master-port: no finding; torchrun reads PET_MASTER_PORT and
    never MASTER_PORT, and only the static rendezvous gets a free port (read in torch/distributed/run.py); torchrun
    counts only as the command (after settings and wrappers), not in prose."""
    assert torchrun_without_port(line, variables) is relies


def test_shell_variables_span_arrays_and_continued_strings() -> None:
    lines = ["MASTER_PORT=${MASTER_PORT:-29500}", "ARGS=(", "    --nnodes 1", "    --master_port $MASTER_PORT", ")",
             'export QUOTED="--nproc_per_node 1   --nnodes 1"', "echo $ARGS"]
    variables = shell_variables(lines)
    assert variables["MASTER_PORT"] == ["${MASTER_PORT:-29500}"]
    assert shell_words(variables["ARGS"][0]) == ("--nnodes", "1", "--master_port", "$MASTER_PORT")
    assert variables["QUOTED"] == ["--nproc_per_node 1   --nnodes 1"]


def test_every_spelling_of_master_port_29500_before_torchrun_is_one_finding(tmp_path: Path) -> None:
    """Issue 47: `MASTER_PORT=29500 torchrun ...` was advisory and `export MASTER_PORT=29500` then `torchrun` was
    breaks. A notebook's `%env` and a subprocess command spell it too; a file that also names 29500 elsewhere
    (a client's port) keeps the breaking finding."""
    notebook = write(tmp_path / "launch.ipynb", json.dumps({"cells": [
        {"cell_type": "code", "source": "%env MASTER_PORT=29500\n!torchrun --nproc-per-node=2 pretrain_gpt.py"}]}))
    command = write(tmp_path / "launcher.py", 'import subprocess\nsubprocess.run(["env", "MASTER_PORT=29500", '
                                              '"torchrun", "--nproc-per-node=2", "pretrain_gpt.py"])\n')
    spellings = [FIXTURES / "issue47" / "launch_prefixed.sh", FIXTURES / "issue47" / "launch_exported.sh",
                 notebook, command]
    found = [scan.scan_paths([path]).findings for path in spellings]
    assert [len(findings) for findings in found] == [1, 1, 1, 1]
    assert {(f.rule, f.detail, severity_of(f)) for [f] in found} == {
        ("port-29500", "MASTER_PORT=29500 for a torchrun without --master-port, which ignores it", "advisory")}
    client = write(tmp_path / "serve.sh", "export MASTER_PORT=29500\npython client.py --port 29500 &\n"
                                          "torchrun --nproc-per-node=2 pretrain_gpt.py\n")
    assert [severity_of(f) for f in scan.scan_paths([client]).findings] == ["breaks"]


def test_only_evidence_of_a_launch_makes_29500_a_torchrun_port() -> None:
    """Issue 47: a "LOCAL_RANK" string anywhere was taken to mean "runs under torchrun": a constants module and a
    unit test's monkeypatch.setenv fired. A read of LOCAL_RANK from the environment, or torchrun's entry point
    (torch.distributed.run), is evidence."""
    folder = FIXTURES / "issue47"
    found = {Path(f.path).name for f in scan.scan_paths([folder], select=["port-29500"]).findings}
    assert "dist_constants.py" not in found and "test_first_rank.py" not in found
    assert {"elastic_entry.py", "rank_from_getenv.py"} <= found


def test_torchrun_alone_is_not_a_finding() -> None:
    """Only a file that also names 29500 relies on the old default port."""
    without = scan.scan_notebook_json(json.dumps({"cells": [
        {"cell_type": "code", "source": "!torchrun --nproc-per-node=2 train.py"}]}))
    assert without.findings == []
    store = "import torch.distributed as dist\nstore = dist.TCPStore('localhost', 29500)"
    with_port = scan.scan_notebook_json(json.dumps({"cells": [
        {"cell_type": "code", "source": "!torchrun --nproc-per-node=2 train.py"},
        {"cell_type": "code", "source": store}]}))
    assert [(f.cell, f.line, f.rule) for f in with_port.findings] == [(1, 1, "port-29500"), (2, 2, "port-29500")]


def test_worker_processes_find_what_one_process_finds() -> None:
    one = scan.scan_paths([ROOT / "tests", ROOT / "tools"], jobs=1)
    two = scan.scan_paths([ROOT / "tests", ROOT / "tools"], jobs=2)
    assert one.files >= 2 * scan.BATCH, "enough files for the worker pool to start"
    assert one.findings == two.findings and one.errors == two.errors
    assert one.files == two.files and one.notes == two.notes and one.skipped_folders == two.skipped_folders


def test_the_skipped_folders_are_reported(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ci.yml").write_text("- run: pip install torch --index-url "
                                                  "https://download.pytorch.org/whl/cu128\n")
    report = scan.scan_paths([tmp_path])
    assert report.skipped_folders == [(tmp_path / ".git").as_posix()]
    assert [f.rule for f in report.findings] == ["cu128-wheels"], "hidden CI folders are read"
    assert "skipped folders: " in format_report(report)


def test_the_pre_commit_hook_runs_this_command() -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: torch-upgrade-scan" in hooks and "entry: torch-upgrade-scan " in hooks
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"torch-upgrade-scan": "torch_upgrade_scan.cli:main"}


def test_an_indented_markdown_block_is_dedented_before_it_is_parsed() -> None:
    """Issue 47: a fence holding an excerpt of a method body, four spaces in, did not parse, and the statement by
    statement fallback splits only at column 0: its two all_gather calls were missed (a note instead)."""
    report = scan.scan_paths([FIXTURES / "issue47" / "sequence_parallel.md"])
    assert [(f.line, f.column) for f in report.findings] == [(10, 23), (18, 23), (20, 28)]
    assert report.notes == []


def test_reexports_of_torch_are_followed_across_the_scanned_files() -> None:
    """Issue 47: a package's own distributed module does `from torch.distributed import *`, and its pipeline calls
    `dist.irecv` in a loop through it; a package's __init__.py and a module's __all__ pass torch's ops on too.
    The package's own isend (a wrapper it defines) is not torch's. Scanned alone, a user file has no such
    evidence."""
    package = FIXTURES / "issue47" / "reexport" / "meshpipe"
    found = {(f.path.rpartition("/")[2], f.line) for f in scan.scan_paths([package]).findings}
    assert found == {("p2p.py", 14), ("stages.py", 9), ("stages.py", 10), ("collectives.py", 9)}
    assert scan.scan_paths([package / "p2p.py"]).findings == []


def test_the_whole_repository_scans_cleanly_and_fast() -> None:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "torch_upgrade_scan", ".", "--format", "json"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    report = json.loads(result.stdout)
    assert report["files"] > 20, "the scan should reach the tools, tests and notebooks"
    assert not any(".venv" in f["path"] for f in report["findings"])
    assert report["errors"] == [], "every file in the repository should parse"
    assert elapsed < 20, f"scanning the repository took {elapsed:.1f} s"


def test_fixes_are_worded_per_api() -> None:
    fixes = {(Path(f.path).name, f.detail): f.fix for f in scan.scan_paths([FIXTURES]).findings}
    assert fixes[("test_scriptable.py", "torch.jit.script")].startswith("a test that checks scriptability")
    assert fixes[("aliases.py", "@torch.jit.script")].startswith("remove the decorator")
    assert fixes[("affected.py", "torch.jit.load")].startswith("torch.export.load") and "third-party" in fixes[
        ("affected.py", "torch.jit.load")]
    assert "all_gather_tensor_autograd" in fixes[("loss.py", "torch.distributed.nn.all_gather")]
    broadcast = fixes[("aliases.py", "torch.distributed.nn.functional.broadcast")]
    assert broadcast.startswith("use funcol.all_reduce(t * (dist.get_rank() == src), 'sum', group)")
    assert "funcol.broadcast(t, src, group) only where no gradient flows" in broadcast


def test_the_deprecated_dist_nn_collectives_are_the_ones_torch_deprecates() -> None:
    """The rule names every collective whose eager call warns (FutureWarning), and no other: read in the installed
    torch/distributed/nn/functional.py, where each deprecated function calls _deprecated."""
    import inspect

    import torch.distributed.nn.functional as dist_nn

    warning = {op for op in DIST_NN_OPS if "_deprecated(" in inspect.getsource(getattr(dist_nn, op))}
    assert warning == set(DEPRECATED_DIST_NN)
    changed = RULES["dist-nn-functional"].changed
    assert all(op in changed for op in DEPRECATED_DIST_NN) and "silent" not in changed


def test_the_funcol_fixes_have_gradients_except_broadcast() -> None:
    """Each funcol op the fixes name has an autograd kernel; broadcast has none, so its fix avoids it
    (torch/distributed/_functional_collectives.py registers the others with torch.library.register_autograd)."""
    import torch
    import torch.distributed._functional_collectives  # registers the autograd kernels

    def differentiable(op: str) -> bool:
        return torch._C._dispatch_has_kernel_for_dispatch_key(f"_c10d_functional::{op}", "Autograd")

    used = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single"]
    assert all(differentiable(op) for op in used)
    assert not differentiable("broadcast")
    assert not dist_nn_fix("broadcast").startswith("use funcol.broadcast")
    assert "no autograd kernel" in dist_nn_fix("broadcast")


def test_the_cu126_advice_leaves_out_blackwell() -> None:
    """The cu126 wheel has no sm_100/sm_120 kernels (PyTorch's RELEASE.md support matrix for 2.12), so the fix
    must not send a Blackwell GPU there."""
    fix = RULES["cu128-wheels"].fix
    assert "cu126" in fix and "no Blackwell kernels" in fix
    assert "update the driver" in fix and "2.11" in fix


# ---- everyday use: configuration, exit status, rules, noqa, excludes (issue 24) ---------------------------------


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding=encoding)
    return path


JIT = "import torch\nm = torch.jit.script(torch.nn.Linear(2, 2))\n"  # a torchscript finding (warns) on line 2
# A torchcomms-p2p finding (advisory) on line 3: ops posted in a loop.
P2P = "import torch.distributed as dist\nfor peer in (0, 1):\n    dist.isend(t, peer)\n"


def test_settings_come_from_the_projects_pyproject(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Found walking up from the scanned path, with every key applied (fails if any key is ignored)."""
    project = tmp_path / "project"
    write(project / "pyproject.toml", '[tool.torch-upgrade-scan]\nignore = ["magma"]\nexclude = ["vendor/*"]\n'
          'fail-on = "warns"\n[tool.torch-upgrade-scan.per-file-ignores]\n"tests/*" = ["torchscript"]\n')
    write(project / "src" / "model.py", JIT)
    write(project / "src" / "comm.py", P2P)
    write(project / "src" / "linalg.py", "import torch\ntorch.backends.cuda.preferred_linalg_library('magma')\n")
    write(project / "tests" / "test_model.py", JIT)
    write(project / "vendor" / "old.py", JIT)
    monkeypatch.chdir(tmp_path)  # not the project: the settings are found from the path scanned
    assert cli.main([str(project / "src"), "--format", "json"]) == 1
    found = {(Path(f["path"]).name, f["rule"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    assert found == {("model.py", "torchscript"), ("comm.py", "torchcomms-p2p")}, "ignore applies to magma"
    assert cli.main([str(project), "--format", "json"]) == 1
    paths = {Path(f["path"]).relative_to(project).as_posix() for f in json.loads(capsys.readouterr().out)["findings"]}
    assert paths == {"src/model.py", "src/comm.py"}, "vendor/ excluded, tests/* ignores torchscript"
    (project / "src" / "model.py").unlink()
    assert cli.main([str(project)]) == 0, "fail-on = warns: an advisory finding alone exits 0"
    assert cli.main([str(project), "--fail-on", "advisory"]) == 1, "the command line replaces the file's value"


def test_a_bad_setting_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "pyproject.toml", '[tool.torch-upgrade-scan]\nselect = ["torchscrpt"]\n')
    write(tmp_path / "a.py", JIT)
    assert cli.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown rule or severity torchscrpt" in err and "torchscript" in err and "Traceback" not in err
    write(tmp_path / "pyproject.toml", '[tool.torch-upgrade-scan]\nfail_on = "breaks"\n')
    assert cli.main([str(tmp_path)]) == 2
    assert "unknown key(s) fail_on" in capsys.readouterr().err


def test_exit_zero_and_fail_on(tmp_path: Path) -> None:
    write(tmp_path / "comm.py", P2P)
    assert cli.main([str(tmp_path)]) == 1
    assert cli.main([str(tmp_path), "--exit-zero"]) == 0
    assert cli.main([str(tmp_path), "--fail-on", "breaks"]) == 0
    assert cli.main([str(tmp_path), "--fail-on", "advisory"]) == 1
    assert cli.main([str(tmp_path / "missing"), "--exit-zero"]) == 2, "a missing path still fails"


def test_list_rules_and_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--list-rules"]) == 0
    listed = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[0] for line in listed] == list(RULES)
    assert all(line.split()[2] == RULES[line.split()[0]].severity_at(NEWEST) for line in listed)
    assert cli.main(["--explain", "green-context-positional"]) == 0
    assert "Fix mode: --fix names the positional arguments" in capsys.readouterr().out
    assert cli.main(["--explain", "torchscript"]) == 0
    assert "needs judgement" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["--explain", "no-such-rule"])
    assert "valid: torchscript, dist-nn-functional" in capsys.readouterr().err


def test_help_states_exit_codes_noqa_limits_and_fix_mode(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    for needed in ("exit status:", "  3  an internal error", "# noqa  ", "# noqa: torchscript", "--max-bytes",
                   "Notebooks, Markdown and reStructuredText files are never rewritten", "[tool.torch-upgrade-scan]"):
        assert needed in text, needed


def test_an_unknown_select_lists_the_valid_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main([str(FIXTURES / "clean.py"), "--select", "foo"])
    err = capsys.readouterr().err
    assert "unknown rule or severity foo" in err and "valid: breaks, warns, advisory, torchscript" in err


@pytest.mark.parametrize(("comment", "kept"), [
    ("", True),
    ("  # noqa", False),
    ("  # NOQA", False),
    ("  # noqa: TorchScript", False),
    ("  # noqa:torchscript,magma", False),
    ("  # noqa: warns", False),
    ("  # noqa: E501", True),
    ("  # noqa: torch", True),  # no prefixes
    ("  # noqa: advisory", True),
])
def test_noqa_forms(comment: str, kept: bool) -> None:
    report = scan.scan_source(f"import torch\nm = torch.jit.script(f){comment}\n")
    assert bool(report.findings) is kept


def test_excludes_are_relative_to_each_scanned_path(tmp_path: Path) -> None:
    """`--exclude 'tests/*'` works when the path scanned is not `.` (issue 24: it excluded nothing)."""
    write(tmp_path / "proj" / "tests" / "t.py", JIT)
    write(tmp_path / "proj" / "src" / "m.py", JIT)
    report = scan.scan_paths([tmp_path / "proj"], exclude=["tests/*"])
    assert [Path(f.path).name for f in report.findings] == ["m.py"]
    report = scan.scan_paths([tmp_path / "proj"], exclude=["tests"])
    assert [Path(f.path).name for f in report.findings] == ["m.py"], "a folder's name excludes the folder"


NOT_PARSED = "# Guide\n\n```python\nimport torch\ntorch.jit.script(\n```\n"


@pytest.mark.parametrize("form", ["text", "concise", "json", "sarif"])
def test_notes_are_in_every_format(form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "README.md", NOT_PARSED)
    assert cli.main([str(tmp_path), "--format", form]) == 0
    out = capsys.readouterr().out
    assert "README.md:5: code not parsed" in out


def test_notes_are_github_annotations_only_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A "code not parsed" note is no finding: annotating each one buried the findings (33 on diffusers)."""
    write(tmp_path / "README.md", NOT_PARSED)
    assert cli.main([str(tmp_path), "--output-format", "github"]) == 0
    assert capsys.readouterr().out.strip() == ""
    assert cli.main([str(tmp_path), "--output-format", "github", "--annotate-notes"]) == 0
    assert "::notice title=torch-upgrade-scan note::" in capsys.readouterr().out


# ---- robustness (issue 24) ---------------------------------------------------------------------------------------


def test_odd_nbformat_does_not_crash() -> None:
    notebook = {"metadata": None, "cells": [
        {"cell_type": "code", "source": None},
        {"cell_type": "code"},
        {"cell_type": "markdown", "source": ["# torch.jit"]},
        {"cell_type": "code", "source": ["import torch\n", None, "torch.jit.script(f)"]},
        "not a cell",
    ]}
    report = scan.scan_notebook_json(json.dumps(notebook))
    assert report.internal == [] and report.errors == []
    assert [(f.cell, f.line, f.rule) for f in report.findings] == [(4, 2, "torchscript")]
    for broken in ({"cells": None}, [1, 2], {"metadata": {}}):
        report = scan.scan_notebook_json(json.dumps(broken) + "  # torch.jit")
        assert report.internal == [], broken


def test_a_null_source_notebook_file_exits_normally(tmp_path: Path) -> None:
    write(tmp_path / "odd.ipynb", json.dumps({"cells": [{"cell_type": "code", "source": None},
                                                        {"cell_type": "code", "source": "import torch.jit"}]}))
    assert cli.main([str(tmp_path)]) == 0


def test_non_utf8_files_without_torch_content_never_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "notes.md", "# Café crème\n\nNo torch here: naïve.\n", encoding="latin-1")
    write(tmp_path / "ci.yml", "name: Café\non: push\n", encoding="latin-1")
    write(tmp_path / "old.py", "# -*- coding: utf-8 -*-\nname = 'café'\n", encoding="latin-1")
    assert cli.main([str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""
    write(tmp_path / "install.yml", "# Café\n- run: pip install torch --index-url "
          "https://download.pytorch.org/whl/cu128\n", encoding="latin-1")
    report = scan.scan_paths([tmp_path])
    assert [(Path(f.path).name, f.line, f.rule) for f in report.findings] == [("install.yml", 2, "cu128-wheels")]
    assert report.errors == [] and any("install.yml: not UTF-8, read as Latin-1" in n for n in report.notes)


def test_a_large_file_is_bounded(tmp_path: Path) -> None:
    """Over --max-bytes: no parse (an error only if it mentions torch), read in chunks, fast."""
    torch_heavy = write(tmp_path / "generated.py", "import torch\n" + "x = torch.jit.script(f)\n" * 320_000)  # 7.4 MB
    write(tmp_path / "plain.py", "x = 1\n" * 1_250_000)  # 7.5 MB, no torch content
    assert torch_heavy.stat().st_size > 7_000_000
    start = time.perf_counter()
    report = scan.scan_paths([tmp_path])
    assert time.perf_counter() - start < 5
    assert report.findings == [] and len(report.errors) == 1
    assert "generated.py" in report.errors[0] and "over the 1000000-byte limit" in report.errors[0]


def test_a_notebooks_outputs_do_not_count_against_the_limit(tmp_path: Path) -> None:
    image = "A" * 2_000_000
    notebook = {"cells": [{"cell_type": "code", "source": "import torch\ntorch.jit.script(f)",
                           "outputs": [{"output_type": "display_data", "data": {"image/png": image}}]}]}
    write(tmp_path / "plots.ipynb", json.dumps(notebook))
    report = scan.scan_paths([tmp_path])
    assert report.errors == [] and [f.cell for f in report.findings] == [1]


# ---- notebook findings name the cell (from 1) and the line in every format ----------------------------------------


@pytest.fixture
def notebook_file(tmp_path: Path) -> Path:
    """A notebook written as Jupyter writes it; the finding is in cell 2, line 2."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
             {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["import torch\n", "m = torch.jit.script(f)"]}]
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    return path


def json_line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().split("\n"), start=1) if text in line)


def test_notebook_findings_in_every_format(notebook_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    on_disk = json_line_of(notebook_file, "m = torch.jit.script(f)")
    cli.main([str(notebook_file)])
    assert "lesson.ipynb:cell 2:2:5: torch.jit.script\n" in capsys.readouterr().out
    cli.main([str(notebook_file), "--output-format", "concise"])
    concise = capsys.readouterr().out.splitlines()[0]
    assert concise.startswith(f"{notebook_file}:cell 2:2:5: torchscript torch.jit.script: ")
    cli.main([str(notebook_file), "--format", "json"])
    finding = json.loads(capsys.readouterr().out)["findings"][0]
    assert (finding["cell"], finding["line"], finding["column"], finding["file_line"]) == (2, 2, 5, on_disk)
    cli.main([str(notebook_file), "--format", "sarif"])
    result = json.loads(capsys.readouterr().out)["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": on_disk}
    assert result["properties"] == {"cell": 2, "cellLine": 2, "cellColumn": 5}
    assert result["message"]["text"].startswith("cell 2, line 2, column 5: torch.jit.script")
    cli.main([str(notebook_file), "--format", "github"])
    annotation = capsys.readouterr().out.splitlines()[0]
    assert f",line={on_disk},title=" in annotation and "::cell 2, line 2, column 5: torch.jit.script" in annotation


def ipython_runs(cell: str) -> bool:
    """Whether IPython itself compiles the cell (its input transformers, then Python's compiler)."""
    try:
        compile(TransformerManager().transform_cell(cell), "<cell>", "exec")
    except SyntaxError:
        return False
    return True


def test_a_notebook_is_read_as_ipython_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 47: a cell indented throughout (a `!python ...` command pasted from a script, four spaces in) runs
    under IPython, which removes a cell's common indent; it made the scan exit 2, even with --exit-zero. The
    finding's column counts the indent; a cell that IPython cannot run either is still an error."""
    path = FIXTURES / "issue47" / "indented_cells.ipynb"
    cells = [cell_source(c) for c in read_notebook(path)["cells"] if c["cell_type"] == "code"]
    assert all(map(ipython_runs, cells)) and any(cell.startswith("    !python") for cell in cells)
    assert cli.main([str(path), "--exit-zero"]) == 0
    assert f"{path}:cell 4:6:16: torch.jit.script\n" in capsys.readouterr().out
    broken = "    import torch\n  torch.jit.script(f)"
    assert not ipython_runs(broken)
    write(tmp_path / "broken.ipynb", json.dumps({"cells": [{"cell_type": "code", "source": broken}]}))
    assert cli.main([str(tmp_path / "broken.ipynb"), "--exit-zero"]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'broken.ipynb'}: cannot parse (cell 1, line 1: " \
                                      "unexpected indent)\n"


def test_a_notebook_on_one_line_points_at_line_1(tmp_path: Path) -> None:
    """When the JSON does not hold one source line per line, the region is line 1, never a guess."""
    path = write(tmp_path / "compact.ipynb", json.dumps({"cells": [
        {"cell_type": "code", "source": ["import torch\n", "torch.jit.script(f)"]}]}))
    finding = scan.scan_paths([path]).findings[0]
    assert (finding.cell, finding.line, finding.file_line, finding.on_disk()) == (1, 2, None, 1)


# ---- fix mode: each fixable rule's rewrite runs on the installed torch (2.12) --------------------------------------


def run_python(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=False, timeout=120)


def test_every_fixable_rule_is_a_rule() -> None:
    assert set(fix.FIXABLE) <= set(RULES)


def test_fix_green_context_positional(tmp_path: Path) -> None:
    """2.12's GreenContext.create takes keywords only: the fixed call binds (on a CPU machine it then stops at the
    CUDA driver, an AcceleratorError/RuntimeError, not a TypeError)."""
    script = write(tmp_path / "ctx.py", "from torch.cuda.green_contexts import GreenContext\n\n"
                   "context = GreenContext.create(16, 0)\n")
    assert "TypeError" in run_python(script).stderr, "the unfixed call fails on 2.12"
    assert cli.main([str(script), "--fix"]) == 0
    assert "GreenContext.create(num_sms=16, device_id=0)" in script.read_text()
    result = run_python(script)
    assert "TypeError" not in result.stderr, result.stderr
    import torch

    assert result.returncode == 0 or not torch.cuda.is_available(), result.stderr


def test_fix_defer_layout_freezing(tmp_path: Path) -> None:
    script = write(tmp_path / "knobs.py", "import torch._inductor.config as config\n\n"
                   "config.max_autotune_defer_layout_freezing = True  # the 2.12 notes' knob\n"
                   "if config.max_autotune:\n    config.max_autotune_defer_layout_freezing = False\n"
                   "print('ran')\n")
    assert "AttributeError" in run_python(script).stderr, "setting the knob raises on 2.12"
    assert cli.main([str(script), "--fix"]) == 0
    assert script.read_text() == ("import torch._inductor.config as config\n\n"
                                  "if config.max_autotune:\n    pass\nprint('ran')\n")
    result = run_python(script)
    assert result.returncode == 0 and result.stdout == "ran\n", result.stderr


def test_fix_port_29500(tmp_path: Path) -> None:
    """The fixed torchrun line listens on 29500 as 2.11 did: the worker sees MASTER_PORT=29500."""
    write(tmp_path / "train.py", "import os\n\nimport torch.distributed as dist\n\n"
          "dist.init_process_group('gloo')\nprint('port', os.environ['MASTER_PORT'])\ndist.destroy_process_group()\n")
    launch = write(tmp_path / "launch.sh", "# the metrics client connects to 29500 too\nexport CLIENT_PORT=29500\n"
                   "torchrun --nproc-per-node=1 train.py\n")
    assert [f.rule for f in scan.scan_paths([tmp_path]).findings] == ["port-29500"]
    assert cli.main([str(tmp_path), "--fix"]) == 0
    assert "torchrun --master-port=29500 --nproc-per-node=1 train.py" in launch.read_text()
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", str(launch)], cwd=tmp_path, capture_output=True, text=True, check=False,
                            timeout=120, env=environment)
    assert result.returncode == 0 and "port 29500" in result.stdout, result.stderr[-2000:]


def test_diff_previews_and_fix_leaves_judgement_and_notebooks(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             notebook_file: Path) -> None:
    source = ("import torch\nfrom torch.cuda.green_contexts import GreenContext\n\n"
              "context = GreenContext.create(8)\nmodel = torch.jit.script(torch.nn.Linear(2, 2))\n")
    script = write(tmp_path / "mixed.py", source)
    notebook_before = notebook_file.read_text()
    write(tmp_path / "cell.ipynb", json.dumps({"cells": [{"cell_type": "code", "source": [
        "from torch.cuda.green_contexts import GreenContext\n", "GreenContext.create(8)"]}]}))
    assert cli.main([str(tmp_path), "--diff"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"--- a/{script.as_posix()}\n+++ b/{script.as_posix()}\n")
    assert "-context = GreenContext.create(8)\n+context = GreenContext.create(num_sms=8)\n" in captured.out
    assert "cell.ipynb" not in captured.out and script.read_text() == source, "--diff writes nothing"
    assert cli.main([str(tmp_path), "--fix", "--format", "json"]) == 1
    left = {(Path(f["path"]).name, f["rule"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    assert left == {("mixed.py", "torchscript"), ("lesson.ipynb", "torchscript"),
                    ("cell.ipynb", "green-context-positional")}, "judgement rules and notebooks stay findings"
    assert notebook_file.read_text() == notebook_before
    assert cli.main([str(tmp_path), "--diff"]) == 0, "nothing left to fix"


@pytest.mark.parametrize(("line", "fixed"), [
    ("torchrun --nproc-per-node=2 train.py", "torchrun --master-port=29500 --nproc-per-node=2 train.py"),
    ("python -m torch.distributed.run --nproc_per_node 2 train.py",
     "python -m torch.distributed.run --master-port=29500 --nproc_per_node 2 train.py"),
    ('CMD ["torchrun", "--nproc-per-node=2", "train.py"]', None),  # JSON form: left alone, not broken
])
def test_the_port_fix_edits_only_shell_words(line: str, fixed: str | None) -> None:
    source = fix.Source(f"export CLIENT_PORT=29500\n{line}\n")
    finding = Finding("launch.sh", 2, "port-29500", "torchrun without --master-port")
    edits = fix.port_edits(source, finding)
    if fixed is None:
        assert edits == []
    else:
        [(start, end, text)] = edits
        assert (source.text[:start] + text + source.text[end:]).split("\n")[1] == fixed


# ---- the file system and the terminal never abort a scan (issue 34) ----------------------------------------------


def deny(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make `folder` unreadable as it is for a user who is not its owner (the tests may run as root, for whom
    chmod 000 changes nothing): listing it and looking inside it raise PermissionError."""
    real_scandir, real_stat = os.scandir, os.stat

    def refused(path: str) -> PermissionError:
        return PermissionError(13, "Permission denied", path)

    def scandir(path: str = ".") -> Any:
        if Path(path) == folder:
            raise refused(path)
        return real_scandir(path)

    def stat(path: str, *args: Any, **kwargs: Any) -> os.stat_result:
        if Path(path).parent == folder:
            raise refused(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)


def test_an_unreadable_sub_folder_is_one_error_and_the_report_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "m.py", JIT)
    (tmp_path / "sub").mkdir()
    deny(monkeypatch, tmp_path / "sub")
    assert cli.main([str(tmp_path), "--jobs", "1"]) == 2, "an error, not a scanner bug (3)"
    captured = capsys.readouterr()
    assert "m.py:2:5: torch.jit.script" in captured.out, "the report is written"
    assert captured.err.strip() == f"error: {tmp_path / 'sub'}: cannot read folder (Permission denied)"
    assert cli.main([str(tmp_path), "--exclude", "sub", "--jobs", "1"]) == 1, "--exclude applies before the probe"
    assert capsys.readouterr().err == ""


def test_an_unreadable_path_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "locked").mkdir()
    monkeypatch.chdir(tmp_path)
    deny(monkeypatch, tmp_path / "locked")
    assert cli.main([str(tmp_path / "locked")]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"error: {tmp_path / 'locked'}: cannot read folder (Permission denied)"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a user that permissions apply to")
def test_a_folder_without_permission(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "m.py", JIT)
    locked = tmp_path / "sub"
    write(locked / "n.py", JIT)
    locked.chmod(0)
    try:
        assert cli.main([str(tmp_path)]) == 2
        assert "sub: cannot read folder (Permission denied)" in capsys.readouterr().err
    finally:
        locked.chmod(0o755)


def test_links_loops_and_binary_files_say_why(tmp_path: Path) -> None:
    write(tmp_path / "real.py", JIT)
    (tmp_path / "alias.py").symlink_to(tmp_path / "real.py")
    (tmp_path / "loop_a.py").symlink_to(tmp_path / "loop_b.py")
    (tmp_path / "loop_b.py").symlink_to(tmp_path / "loop_a.py")
    (tmp_path / "blob.py").write_bytes(b"\x00\xff\xfe torch.jit.script \x00")
    report = scan.scan_paths([tmp_path])
    assert [(Path(f.path).name, f.line) for f in report.findings] == [("alias.py", 2)], "a linked file once"
    assert report.internal == []
    assert sorted(e.split(": ", 1)[1] for e in report.errors) == [
        "cannot decode (a binary file: it holds NUL bytes)",
        "cannot read (Too many levels of symbolic links)",
        "cannot read (Too many levels of symbolic links)",
    ]


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    write(tmp_path / "many.py", "import torch\n" + "torch.jit.script(f)\n" * 5000)  # more than a pipe holds
    process = subprocess.Popen([sys.executable, "-m", "torch_upgrade_scan", str(tmp_path), "--format", "concise"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stderr is not None
    assert "torchscript" in process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    err = process.stderr.read()
    assert process.wait(timeout=60) in (0, 1), err
    assert "Traceback" not in err and "BrokenPipe" not in err, err


# ---- what ruff users expect (issue 34) ---------------------------------------------------------------------------


def test_version_and_output_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"torch-upgrade-scan {VERSION}\n"
    assert cli.main([str(FIXTURES / "affected.py"), "--output-format", "concise"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any(re.fullmatch(r".*affected\.py:17:12: torchscript torch\.jit\.script: .* \[warns\]", line)
               for line in lines), lines
    findings = [line for line in lines if re.match(r".*:\d+:\d+: [a-z0-9-]+ ", line)]
    assert len(findings) == len(scan.scan_paths([FIXTURES / "affected.py"]).findings), "one line per finding"


def test_sarif_names_the_drivers_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(FIXTURES / "affected.py"), "--output-format", "sarif"]) == 1
    assert json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["version"] == VERSION


@pytest.mark.parametrize("option", ["--jobs", "--max-bytes"])
@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_jobs_and_max_bytes_must_be_positive(option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main([str(FIXTURES / "clean.py"), option, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"torch-upgrade-scan: error: argument {option}: ") and "Traceback" not in err


def test_rule_names_are_case_insensitive_everywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = scan.scan_paths([FIXTURES / "affected.py"])
    assert cli.main([str(FIXTURES / "affected.py"), "--select", "TorchScript", "--format", "json"]) == 1
    selected = json.loads(capsys.readouterr().out)["findings"]
    assert len(selected) == sum(f.rule == "torchscript" for f in report.findings) > 0
    assert cli.main(["--explain", "Port-29500"]) == 0
    write(tmp_path / "pyproject.toml", '[tool.torch-upgrade-scan]\nignore = ["TorchScript"]\n')
    write(tmp_path / "m.py", JIT)
    assert cli.main([str(tmp_path)]) == 0


def test_a_misspelt_table_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "pyproject.toml", '[tool.torch_upgrade_scan]\nignore = ["torchscript"]\n')
    write(tmp_path / "m.py", JIT)
    assert cli.main([str(tmp_path)]) == 1, "the table is not read"
    err = capsys.readouterr().err
    assert "warning: " in err and "[tool.torch_upgrade_scan] is not read" in err and "[tool.torch-upgrade-scan]" in err


def test_eager_dist_nn_collectives_warn_and_compiled_ones_break(capsys: pytest.CaptureFixture[str]) -> None:
    """2.12 only warns for a deprecated dist.nn collective that runs eagerly: a `--fail-on breaks` hook must pass
    (llm-foundry and axolotl call them eagerly); under torch.compile(fullgraph=True) they raise."""
    eager = scan.scan_paths([FIXTURES / "issue24" / "dist_nn_uncompiled.py"]).findings
    compiled = scan.scan_paths([FIXTURES / "issue24" / "dist_nn_compiled.py"]).findings
    assert eager and {severity_of(f) for f in eager} == {"warns"}
    assert compiled and {severity_of(f) for f in compiled} == {"breaks"}
    assert cli.main([str(FIXTURES / "issue24" / "dist_nn_uncompiled.py"), "--fail-on", "breaks"]) == 0


def test_a_dist_nn_collective_breaks_only_under_fullgraph(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 47: one compile with fullgraph=True in a file made every dist.nn call in it "breaks"; run on 2.12.0,
    only the collective reached from that compile raises (through a helper it calls), the others warn. The text
    report, JSON and SARIF levels follow."""
    path = FIXTURES / "issue47" / "dist_nn_contexts.py"
    found = {f.line: severity_of(f) for f in scan.scan_paths([path]).findings}
    assert found == {10: "breaks", 19: "warns", 25: "warns"}
    cli.main([str(path), "--format", "sarif"])
    levels = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r["level"]
              for r in json.loads(capsys.readouterr().out)["runs"][0]["results"]}
    assert levels == {10: "error", 19: "warning", 25: "warning"}
    assert cli.main([str(path), "--fail-on", "breaks", "--select", "warns"]) == 0


def test_fix_then_rescan_exits_0_on_every_fixable_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """fixable/ holds only findings that --fix rewrites, of every fixable rule and every line kind --explain names
    (issue 34: two port findings on one line got two insertions; YAML `- run:` and Dockerfile `CMD` lines were
    never rewritten; the MASTER_PORT advisory fired on a line that passes --master-port)."""
    copy = shutil.copytree(FIXTURES / "fixable", tmp_path / "fixable")
    before = scan.scan_paths([copy]).findings
    assert {f.rule for f in before} == set(fix.FIXABLE)
    assert {kind_of(Path(f.path)) for f in before} == {"python", "shell", "yaml", "docker"}
    assert cli.main([str(copy), "--fix"]) == 0
    assert f"fixed {len(before)} finding(s) in 6 file(s); 0 need a hand fix" in capsys.readouterr().err
    assert cli.main([str(copy)]) == 0, capsys.readouterr().out
    assert "env:" not in (copy / "job_env.yml").read_text(), "a job's env mapping of the knob alone goes with it"
    assert (copy / "launch.sh").read_text().count("--master-port=29500") == 2, "one insertion per line"


def test_after_fix_the_rescan_finds_what_fix_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On every fixture: the report --fix prints is what a rescan finds, and nothing is left to fix."""
    copy = shutil.copytree(FIXTURES, tmp_path / "fixtures")

    def found(args: list[str]) -> list[tuple[str, str, str, int | None]]:
        cli.main([str(copy), "--format", "json", *args])
        findings = json.loads(capsys.readouterr().out)["findings"]
        return sorted((f["path"], f["rule"], f["detail"], f["cell"]) for f in findings)

    before = found([])
    left = found(["--fix"])
    assert len(left) < len(before)
    assert found([]) == left
    assert cli.main([str(copy), "--diff"]) == 0, "nothing left that --fix could rewrite"


def test_fix_and_diff_say_what_needs_a_hand_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 47: port-29500 is a --fix rule, but a torchrun line in a README is prose that --fix does not rewrite;
    --diff found nothing, exited 0 and said nothing, and --fix's report did not say the finding was left."""
    copy = shutil.copytree(FIXTURES / "issue47" / "hand_fix", tmp_path / "hand_fix")
    assert cli.main([str(copy), "--diff"]) == 0, "no rewrite"
    err = capsys.readouterr().err.splitlines()
    assert err == ["0 finding(s) in 0 file(s) can be fixed with --fix",
                   f"{copy / 'README.md'}:7:1: port-29500 MASTER_PORT=29500 for a torchrun without --master-port, "
                   "which ignores it: needs a hand fix: documentation is not rewritten: edit its text"]
    assert cli.main([str(copy), "--fix", "--format", "json"]) == 1
    captured = capsys.readouterr()
    [finding] = json.loads(captured.out)["findings"]
    assert finding["hand_fix"] == "documentation is not rewritten: edit its text"
    assert "fixed 0 finding(s) in 0 file(s); 1 need a hand fix" in captured.err
    cli.main([str(copy), "--fix"])
    assert "ignores it (advisory) (needs a hand fix: documentation is not rewritten: edit its text)\n" in \
        capsys.readouterr().out
    cli.main([str(copy), "--fix", "--format", "concise"])
    assert capsys.readouterr().out.splitlines()[0].endswith(
        "[advisory] (needs a hand fix: documentation is not rewritten: edit its text)")


def test_dist_nn_fixes_carry_the_split_sizes_and_the_reduction() -> None:
    """Issue 38, item 7: the all_to_all_single fix dropped the split sizes, and the all_reduce fix always said 'sum'
    although funcol's backward raises for any other reduction (torch/distributed/_functional_collectives.py)."""
    report = scan.scan_source("import torch.distributed as dist\nimport torch.distributed.nn.functional as F\n"
                              "a = F.all_to_all_single(out, inp, [1, 3], [2, 2])\n"
                              "b = F.all_reduce(t, dist.ReduceOp.MAX)\nc = F.all_reduce(t)\n"
                              "d = F.reduce_scatter(o, xs, op=dist.ReduceOp.AVG)\n")
    fixes = {f.line: f.fix for f in report.findings}
    assert "funcol.all_to_all_single_autograd(inp, [1, 3], [2, 2], group)" in fixes[3]
    assert "funcol.all_reduce(t, 'max', group)" in fixes[4] and "supports only 'sum'" in fixes[4]
    assert "funcol.all_reduce(t, 'sum', group)" in fixes[5] and "only 'sum'" not in fixes[5]
    assert "'avg'" in fixes[6] and "supports only 'sum'" in fixes[6]


def test_the_magma_rule_names_triangular_solve() -> None:
    """Issue 38, item 8: 2.12 took MAGMA out of triangular_solve too (pytorch#174109)."""
    assert "triangular_solve" in RULES["magma"].changed
