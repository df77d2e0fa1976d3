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
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools import upgrade_scan
from tools.course import ROOT, cell_source, read_notebook
from tools.snippets import upgrade_scan as snippet

FIXTURES = ROOT / "tests" / "fixtures" / "upgrade_scan"
EXPECT = re.compile(r"#\s*expect(?:\(-(\d)\))?:\s*([a-z][a-z0-9-]*)")  # (-N): the finding is N lines up
Key = tuple[str, int | None, int, str]


def fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and snippet.kind_of(p))


def expected(path: Path) -> set[Key]:
    """(file, cell, line, rule) for every `# expect: <rule>` mark in a fixture (`# expect(-1):` marks the line
    above: a shell command continued with a backslash is reported where it starts)."""
    if path.suffix == ".ipynb":
        cells = read_notebook(path)["cells"]
        units = [(i, cell_source(c)) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    else:
        units = [(None, path.read_bytes().decode("utf-8", errors="replace"))]
    return {(path.name, cell, number - int(match.group(1) or 0), match.group(2))
            for cell, source in units
            for number, line in enumerate(source.split("\n"), start=1)
            for match in EXPECT.finditer(line)}


@pytest.fixture(scope="module")
def whole() -> upgrade_scan.Report:
    """One scan of the fixture tree, as a project: torchrun lines in one file are evidence for another."""
    return upgrade_scan.scan_paths([FIXTURES])


def test_there_are_fixtures() -> None:
    names = {p.name for p in fixture_files()}
    assert names >= {"affected.py", "aliases.py", "clean.py", "affected.ipynb", "clean.ipynb", "false_alarms.py",
                     "misses.py", "profiler_use.py", "bom_coding.py", "latin1.py", "launch.sh", "test.yml",
                     "Dockerfile", "requirements.txt", "README.md", "continued.ipynb", "r_kernel.ipynb"}


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_findings_are_exactly_the_marked_lines(path: Path, whole: upgrade_scan.Report) -> None:
    want = expected(path)
    got = {(Path(f.path).name, f.cell, f.line, f.rule) for f in whole.findings if Path(f.path) == path}
    assert got - want == set(), "reported but not marked (a false positive)"
    assert want - got == set(), "marked but not reported (a miss)"


def test_the_fixtures_scan_without_errors(whole: upgrade_scan.Report) -> None:
    assert whole.errors == [] and whole.internal == []
    assert any("README.md" in note and "not parsed" in note for note in whole.notes)
    assert any("r_kernel.ipynb" in note and "skipped" in note for note in whole.notes)


@pytest.mark.parametrize("name", ["clean.py", "clean.ipynb", "false_alarms.py"])
def test_clean_code_gives_no_finding(name: str) -> None:
    assert expected(FIXTURES / name) == set(), "a clean fixture must not mark anything"
    assert upgrade_scan.main([str(FIXTURES / name)]) == 0


def test_every_rule_has_a_fixture() -> None:
    marked = {rule for path in fixture_files() for *_, rule in expected(path)}
    assert marked == set(upgrade_scan.RULES)


def test_every_rule_has_a_severity_and_the_unruled_changes_a_reason() -> None:
    assert {r.severity for r in upgrade_scan.RULES.values()} == {"breaks", "warns", "advisory"}
    assert all(len(reason) > 20 for reason in snippet.NO_RULE.values())


def test_the_cli_is_the_snippet() -> None:
    """One source: the command line runs the very code the notebook stamps in."""
    assert upgrade_scan.scan_paths is snippet.scan_paths
    assert upgrade_scan.RULES is snippet.RULES


def test_text_report_is_grouped_by_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(FIXTURES / "affected.ipynb")]) == 1
    out = capsys.readouterr().out
    assert out.count("[torchscript] warns: TorchScript is deprecated") == 1, "what changed is said once per rule"
    assert "affected.ipynb[cell 2]:1:12: torch.jit.script" in out
    assert "fix (torch.jit.script, torch.jit.trace): " in out or "fix: " in out
    assert re.search(r"finding\(s\) in 1 file\(s\), 0 error\(s\); [\d.]+ s, \d+ files/s", out)


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(FIXTURES / "affected.py"), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == [] and report["files"] == 1
    first = report["findings"][0]
    assert {"path", "cell", "line", "column", "rule", "severity", "detail", "changed", "fix"} <= set(first)
    assert (first["line"], first["column"], first["rule"], first["severity"]) == (17, 12, "torchscript", "warns")


def test_sarif_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(FIXTURES / "misses.py"), "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == set(upgrade_scan.RULES)
    fsdp = next(r for r in run["results"] if r["ruleId"] == "fsdp2-fullgraph")
    assert fsdp["level"] == "error"
    assert fsdp["locations"][0]["physicalLocation"]["region"] == {"startLine": 33, "startColumn": 8}


def test_github_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(FIXTURES / "misses.py"), "--format", "github", "--select", "advisory"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("::notice file=") for line in lines), lines
    assert any(",line=34,col=11,title=2.12 torchcomms-p2p::isend: " in line for line in lines)


def test_select_ignore_and_exclude(capsys: pytest.CaptureFixture[str]) -> None:
    report = upgrade_scan.scan_paths([FIXTURES], select=["torchscript"], ignore=[], exclude=["*/project/*"])
    assert report.findings and {f.rule for f in report.findings} == {"torchscript"}
    assert not any("project" in Path(f.path).parts for f in report.findings)
    report = upgrade_scan.scan_paths([FIXTURES / "misses.py"], ignore=["torchscript", "advisory"])
    assert {f.rule for f in report.findings} == {"dist-nn-functional", "defer-layout-freezing", "fsdp2-fullgraph"}
    with pytest.raises(SystemExit):
        upgrade_scan.main([str(FIXTURES), "--select", "no-such-rule"])


def test_noqa_suppresses_only_the_rule_it_names() -> None:
    report = upgrade_scan.scan_source("import torch\nm = torch.jit.script(f)  # noqa: torchscript\n"
                                      "n = torch.jit.script(f)  # noqa: magma\n")
    assert [f.line for f in report.findings] == [3]


def test_a_missing_path_is_bad_input_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert upgrade_scan.main([str(tmp_path / "nowhere.py")]) == 2
    captured = capsys.readouterr()
    assert "nowhere.py: no such file or folder" in captured.err
    assert "nowhere" not in captured.out and "Traceback" not in captured.err


def test_a_parse_failure_is_reported_and_the_scan_goes_on(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n    torch.jit.script\n")
    (tmp_path / "ok.py").write_text("import torch\ntorch.jit.script(torch.nn.Linear(2, 2))\n")
    (tmp_path / "broken.ipynb").write_text("{not json, torch.jit")
    report = upgrade_scan.scan_paths([tmp_path])
    assert [(Path(f.path).name, f.line, f.rule) for f in report.findings] == [("ok.py", 2, "torchscript")]
    assert len(report.errors) == 2
    assert any("broken.py: cannot parse (line 2: invalid syntax)" in e for e in report.errors)
    assert any("broken.ipynb: not a valid notebook" in e for e in report.errors)
    assert all("\n" not in e for e in report.errors), "one line per error"
    assert upgrade_scan.exit_code(report) == 2


def test_deep_nesting_a_fifo_and_a_huge_file_are_per_file_errors(tmp_path: Path) -> None:
    """Crash classes of issue 13: each is one error line, and the other files are still scanned."""
    (tmp_path / "chain600.py").write_text("import torch\nx = " + " + ".join(["a"] * 600) + "\ntorch.jit.script\n")
    (tmp_path / "deep.py").write_text("import torch\nx = " + "+".join(["a"] * 100_000) + "\n")
    (tmp_path / "huge.py").write_text("import torch\n" + "x = 1  # torch.jit\n" * 2000)
    os.mkfifo(tmp_path / "pipe.py")
    start = time.perf_counter()
    report = upgrade_scan.scan_paths([tmp_path], max_bytes=20_000)
    assert time.perf_counter() - start < 30, "a FIFO or a big file must not hang the scan"
    assert [(Path(f.path).name, f.line) for f in report.findings] == [("chain600.py", 3)]
    messages = sorted(report.errors)
    assert len(messages) == 3 and report.internal == []
    assert "deep.py: too deeply nested to parse" in messages[0] or "deep.py" in messages[0]
    assert any("huge.py" in m and "limit" in m for m in messages)
    assert any("pipe.py: not a regular file" in m for m in messages)
    assert upgrade_scan.exit_code(report) == 2


def test_an_internal_error_exits_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object) -> None:
        raise KeyError("bug")

    monkeypatch.setattr(snippet, "python_findings", broken)
    assert upgrade_scan.main([str(FIXTURES / "affected.py"), "--jobs", "1"]) == 3
    assert "internal error" in capsys.readouterr().err


def test_ipython_lines_keep_line_numbers_and_blocks() -> None:
    code, shell = upgrade_scan.split_cell("import os\nfor i in range(2):\n    !echo $i\n%matplotlib inline\nx = !ls")
    assert code.split("\n") == ["import os", "for i in range(2):", "    pass", "", ""]
    assert shell == [(3, "echo $i"), (5, "ls")]
    code, shell = upgrade_scan.split_cell("%%bash\ntorchrun train.py")
    assert code == "" and shell == [(2, "torchrun train.py")]
    code, shell = upgrade_scan.split_cell("!pip install \\\n    torch\nimport torch")
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
    assert snippet.torchrun_without_port(line) is relies


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
    assert snippet.torchrun_without_port(line, variables) is relies


def test_shell_variables_span_arrays_and_continued_strings() -> None:
    lines = ["MASTER_PORT=${MASTER_PORT:-29500}", "ARGS=(", "    --nnodes 1", "    --master_port $MASTER_PORT", ")",
             'export QUOTED="--nproc_per_node 1   --nnodes 1"', "echo $ARGS"]
    variables = snippet.shell_variables(lines)
    assert variables["MASTER_PORT"] == ["${MASTER_PORT:-29500}"]
    assert snippet.shell_words(variables["ARGS"][0]) == ["--nnodes", "1", "--master_port", "$MASTER_PORT"]
    assert variables["QUOTED"] == ["--nproc_per_node 1   --nnodes 1"]


def test_torchrun_alone_is_not_a_finding() -> None:
    """Only a file that also names 29500 relies on the old default port."""
    without = upgrade_scan.scan_notebook_json(json.dumps({"cells": [
        {"cell_type": "code", "source": "!torchrun --nproc-per-node=2 train.py"}]}))
    assert without.findings == []
    store = "import torch.distributed as dist\nstore = dist.TCPStore('localhost', 29500)"
    with_port = upgrade_scan.scan_notebook_json(json.dumps({"cells": [
        {"cell_type": "code", "source": "!torchrun --nproc-per-node=2 train.py"},
        {"cell_type": "code", "source": store}]}))
    assert [(f.cell, f.line, f.rule) for f in with_port.findings] == [(0, 1, "port-29500"), (1, 2, "port-29500")]


def test_worker_processes_find_what_one_process_finds() -> None:
    one = upgrade_scan.scan_paths([ROOT / "tests", ROOT / "tools"], jobs=1)
    two = upgrade_scan.scan_paths([ROOT / "tests", ROOT / "tools"], jobs=2)
    assert one.files >= 64, "enough files for the worker pool to start"
    assert one.findings == two.findings and one.errors == two.errors


def test_the_skipped_folders_are_reported(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ci.yml").write_text("- run: pip install torch --index-url "
                                                  "https://download.pytorch.org/whl/cu128\n")
    report = upgrade_scan.scan_paths([tmp_path])
    assert report.skipped_folders == [(tmp_path / ".git").as_posix()]
    assert [f.rule for f in report.findings] == ["cu128-wheels"], "hidden CI folders are read"
    assert "skipped folders: " in upgrade_scan.format_report(report)


def test_the_pre_commit_hook_runs_this_command() -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: torch-2-12-upgrade-scan" in hooks and "entry: python -m tools.upgrade_scan" in hooks


def test_the_whole_repository_scans_cleanly_and_fast() -> None:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "tools.upgrade_scan", ".", "--format", "json"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    report = json.loads(result.stdout)
    assert report["files"] > 20, "the scan should reach the tools, tests and notebooks"
    assert not any(".venv" in f["path"] for f in report["findings"])
    assert report["errors"] == [], "every file in the repository should parse"
    assert elapsed < 20, f"scanning the repository took {elapsed:.1f} s"


def test_fixes_are_worded_per_api() -> None:
    fixes = {(Path(f.path).name, f.detail): f.fix for f in upgrade_scan.scan_paths([FIXTURES]).findings}
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

    warning = {op for op in snippet.DIST_NN_OPS if "_deprecated(" in inspect.getsource(getattr(dist_nn, op))}
    assert warning == set(snippet.DEPRECATED_DIST_NN)
    changed = upgrade_scan.RULES["dist-nn-functional"].changed
    assert all(op in changed for op in snippet.DEPRECATED_DIST_NN) and "silent" not in changed


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
    assert not snippet.dist_nn_fix("broadcast").startswith("use funcol.broadcast")
    assert "no autograd kernel" in snippet.dist_nn_fix("broadcast")


def test_the_cu126_advice_leaves_out_blackwell() -> None:
    """The cu126 wheel has no sm_100/sm_120 kernels (PyTorch's RELEASE.md support matrix for 2.12), so the fix
    must not send a Blackwell GPU there."""
    fix = upgrade_scan.RULES["cu128-wheels"].fix
    assert "cu126" in fix and "no Blackwell kernels" in fix
    assert "update the driver" in fix and "2.11" in fix
