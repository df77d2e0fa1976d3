"""The upgrade scanner in time and memory linear in a file's size: a large module is parsed in pieces of whole
top-level statements (torch_upgrade_scan/pieces.py), which find what one parse of the whole module finds."""

from __future__ import annotations

import ast
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tools.course import ROOT
from torch_upgrade_scan import filescan, pieces, scan
from torch_upgrade_scan.rules import shell

pytestmark = pytest.mark.integration  # subprocesses over generated megabytes

FIXTURES = ROOT / "tests" / "fixtures"
# One block of a dense generated module: 8 findings in 11 lines (a decorator, a dist.nn collective, a port, a
# multi-device backend, stream capturing, magma, a trace and another collective).
DENSE_BLOCK = '''
@torch.jit.script
def f{i}(x: torch.Tensor) -> torch.Tensor:
    y = torch.distributed.nn.all_reduce(x)
    port = os.environ.get("MASTER_PORT", "29500")
    dist.init_process_group("cpu:gloo,cuda:nccl", init_method=f"tcp://localhost:{{port}}")
    s = torch.cuda.is_current_stream_capturing()
    torch.backends.cuda.preferred_linalg_library("magma")
    return torch.jit.trace(y, (x, [1, 2, 3], {{"a": 29500}})) + dnn.all_gather(y)
'''
DENSE_HEADER = "import os\nimport torch\nimport torch.distributed as dist\nfrom torch.distributed import nn as dnn\n"
# The scanner's peak memory on a 1.5 MB dense module, measured here: 85 to 95 MB with the module parsed in
# pieces; 245 MB with one syntax tree of the whole module (Python 3.11).
MEMORY_BOUND_MB = 150


def dense_module(size: int) -> str:
    """A Python module of about `size` characters, dense with findings."""
    blocks, length, index = [DENSE_HEADER], len(DENSE_HEADER), 0
    while length < size:
        blocks.append(DENSE_BLOCK.format(i=index))
        length += len(blocks[-1])
        index += 1
    return "".join(blocks)


def findings_of(report: scan.Report) -> list[tuple]:
    return [(f.path, f.cell, f.line, f.column, f.rule, f.severity, f.detail, f.fix) for f in report.findings]


# The rules that pair two statements of one scope (a shard and a compile, two point-to-point ops, a profiler and
# its result, a dispatch mode and a compile, setup.py's requirement list and its setup() call): at module level, in
# a module parsed in pieces, they see the pair only where both statements fall in one piece (see the scanner's
# README, "Limits").
PAIRING_RULES = {"fsdp2-fullgraph", "fullgraph-no-frames", "torchcomms-p2p", "metadata-json", "python-310"}


@pytest.mark.parametrize("piece_chars", [1, 300, 3000])
def test_pieces_find_what_the_whole_module_finds(piece_chars: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Python fixture parsed whole, then in pieces of one statement (1 character: a cut at each statement
    that can start one) and of a few statements: the same findings, severities and errors, but for pairs of
    module-level statements cut apart (none in pieces of 3,000 characters). Fails where a rule lost what
    another piece holds (an import, a compile that makes dist.nn break, a noqa line) or found more."""
    files = sorted(FIXTURES.rglob("*.py"))
    whole = scan.scan_paths(files)
    monkeypatch.setattr(filescan, "PIECE_CHARS", piece_chars)
    cut = scan.scan_paths(files)
    assert len(whole.findings) > 100
    # In pieces, a collective breaks wherever the module compiles with fullgraph=True (the compile may be in a
    # later piece than the function it names): only the fixture whose collectives differ by context differs.
    by_context = [f for f in findings_of(cut) if f[0].endswith("dist_nn_contexts.py")]
    assert all(f in findings_of(whole) or (f[4], f[5]) == ("dist-nn-functional", "") for f in by_context)
    missed = set(findings_of(whole)) - set(findings_of(cut)) - {f for f in findings_of(whole) if f[0].endswith(
        "dist_nn_contexts.py")}
    assert set(findings_of(cut)) - set(by_context) <= set(findings_of(whole))
    assert {rule for _, _, _, _, rule, *_ in missed} <= PAIRING_RULES
    assert len(missed) <= {1: 7, 300: 4, 3000: 0}[piece_chars]
    assert cut.errors == whole.errors


def test_a_module_that_compiles_in_another_piece_breaks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dist.nn collective warns in a module that never compiles, breaks where a later piece compiles with
    fullgraph=True, and a noqa naming 'warns' silences it only as a warning."""
    monkeypatch.setattr(filescan, "PIECE_CHARS", 1)
    eager = "import torch.distributed.nn as dnn\n\ndef f(t):\n    return dnn.all_reduce(t)\n"
    compiled = eager + "\ng = torch.compile(f, fullgraph=True)\n"
    assert [f.severity for f in scan.scan_source(eager).findings] == ["warns"]
    assert [f.severity for f in scan.scan_source(compiled).findings] == [""]
    assert scan.scan_source(eager.replace("(t)\n", "(t)  # noqa: warns\n")).findings == []
    assert len(scan.scan_source(compiled.replace("(t)\n", "(t)  # noqa: warns\n")).findings) == 1


def test_pieces_are_whole_statements_and_linear_in_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cuts fall between statements, never after a decorator, before an else or inside a string; a cut that does
    not parse doubles the piece, so a 60,000-character string of unindented lines costs under 4 times its
    length in parsing (one more line per try would cost some 30 times)."""
    parsed: list[int] = []
    real_parse = pieces.parse_quietly

    def counting(source: str) -> ast.Module:
        parsed.append(len(source))
        return real_parse(source)

    monkeypatch.setattr(pieces, "parse_quietly", counting)
    code = "x = 1\n@dec\ndef f():\n    pass\nif x:\n    y = (\n1)\nelse:\n    y = 2\ntry:\n    z\nexcept E:\n    pass\n"
    cut = list(pieces.pieces(code * 20, 1))
    assert sum(len(tree.body) for _, tree in cut) == len(ast.parse(code * 20).body)
    assert [first for first, _ in cut][:5] == [1, 2, 5, 10, 14]
    text = 'doc = """\n' + "an unindented line\n" * 3_000 + '"""\nx = 1\n'
    parsed.clear()
    assert [first for first, _ in pieces.pieces(text, 100)] == [1]
    assert sum(parsed) < 4 * len(text)


def test_a_syntax_error_in_a_late_piece_names_the_modules_line(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A module that does not parse gives one error with its own line and no findings from earlier pieces."""
    monkeypatch.setattr(filescan, "PIECE_CHARS", 50)
    path = tmp_path / "broken.py"
    # (the broken statement holds a trigger: statements that no rule reads are not parsed, see partial.py)
    path.write_text("import torch\n" + "torch.jit.script(f)\n" * 40 + "def (: torch.jit.script\n    pass\n")
    report = scan.scan_paths([path])
    assert report.findings == []
    assert report.errors == [f"{path}: cannot parse (line 42: invalid syntax)"]


def test_memory_is_bounded_on_a_dense_module(tmp_path: Path) -> None:
    """The scanner's peak memory on a 1.5 MB module dense with findings: VmHWM, the peak RSS of its own process
    image, read in it (getrusage's ru_maxrss would carry over the peak of the pytest process it was forked from
    across exec: 738 MB measured here)."""
    path = tmp_path / "dense.py"
    path.write_text(dense_module(1_500_000))
    probe = (
        "import re, sys\n"
        "from torch_upgrade_scan import cli\n"
        "try:\n"
        f"    cli.main(['--max-bytes', '2000000', '--exit-zero', '--output-format', 'json', {str(path)!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "status = open('/proc/self/status').read()\n"
        "print(re.search(r'VmHWM:\\s*(\\d+) kB', status).group(1), file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert '"rule": "magma"' in run.stdout  # it scanned the module
    peak_mb = int(run.stderr.split()[-1]) / 1024
    assert peak_mb < MEMORY_BOUND_MB, f"{peak_mb:.0f} MB"


def test_backend_strings_hold_across_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module-level constant in an earlier piece and a helper in a later one both reach the process groups of
    a module parsed one statement per piece."""
    monkeypatch.setattr(filescan, "PIECE_CHARS", 1)
    source = (
        "import torch.distributed as dist\n"
        "MIXED = 'cpu:gloo,cuda:nccl'\n"
        "def start():\n"
        "    dist.init_process_group(helper())\n"
        "    dist.init_process_group(MIXED)\n"
        "def helper():\n"
        "    return f'{device}:nccl,cpu:gloo'\n"
    )
    found = [(f.line, f.rule) for f in scan.scan_source(source).findings]
    assert found == [(4, "torchcomms-one-device"), (5, "torchcomms-one-device")]


def test_each_shell_line_is_split_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 47: every check of a shell line split it again (Megatron-LM's 130 shell-like files: 24,244
    shlex.split calls, over half of the scan's time). A script of 300 launch lines, each different, as its
    experiments are written: at most one split per line (and per variable value that a torchrun line expands)."""
    lines = ["#!/bin/bash", 'GPT_ARGS="--num-layers 24 --hidden-size 1024"', "export MASTER_PORT=29500"]
    lines += [f"torchrun --nproc-per-node=8 pretrain_gpt.py $GPT_ARGS --seed {seed} --lr 1e-{seed % 5 + 3}"
              for seed in range(300)]
    script = tmp_path / "sweep.sh"
    script.write_text("\n".join(lines) + "\n")
    splits: list[str] = []
    split = shlex.split

    def counted(text: str, **options: bool) -> list[str]:
        splits.append(text)
        return split(text, **options)

    monkeypatch.setattr(shlex, "split", counted)
    getattr(shell.shell_words, "cache_clear", lambda: None)()  # a split kept from another test is no split here
    assert len(scan.scan_paths([script]).findings) == 300
    assert len(splits) <= len(lines) + 1, f"{len(splits)} splits of {len(lines)} lines"
