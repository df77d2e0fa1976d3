"""The pre-checks that skip work (torch_upgrade_scan/prefilter.py and the gates built on it): a file, or a line
pattern, that holds what a rule needs is still read. Each case is a file whose only finding sits behind one word
that a pre-check looks for; leaving that word out of its pre-check makes the case find nothing."""

import json
import re
from pathlib import Path

import pytest

from torch_upgrade_scan import prefilter, scan

FIXTURES = Path(__file__).parent / "fixtures"

# (file name, text, the file and rule of the one finding expected)
CASES = {
    "requirements: cu128 wheel": ("requirements.txt", "torch==2.12.0+cu128\n", "requirements.txt", "cu128-wheels"),
    "CI YAML: the knob's variable": (
        "ci.yml",
        'env:\n  TORCHINDUCTOR_MAX_AUTOTUNE_DEFER_LAYOUT_FREEZING: "1"\n',
        "ci.yml",
        "defer-layout-freezing",
    ),
    "Dockerfile: a source build's CUDA": (
        "Dockerfile",
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN git clone https://github.com/pytorch/pytorch\n",
        "Dockerfile",
        "cuda-source-build",
    ),
    "script: MASTER_PORT=29500 torchrun": (
        "launch.sh",
        "MASTER_PORT=29500 torchrun --nproc-per-node=2 train.py\n",
        "launch.sh",
        "port-29500",
    ),
    "script: MASTER_PORT=29500 python -m torch.distributed.run": (
        "launch.sh",
        "export MASTER_PORT=29500\npython -m torch.distributed.run --nproc-per-node=2 train.py\n",
        "launch.sh",
        "port-29500",
    ),
    "setup.py: a Python floor and torch": (
        "setup.py",
        'from setuptools import setup\n\nsetup(python_requires=">=3.8", install_requires=["torch"])\n',
        "setup.py",
        "python-310",
    ),
    "Python: a process group's multi-device backend string": (
        "group.py",
        'import torch.distributed as dist\n\ndist.init_process_group("cpu:gloo,cuda:nccl")\n',
        "group.py",
        "torchcomms-one-device",
    ),
    "notebook: a cu128 wheel in a shell escape": (
        "setup.ipynb",
        json.dumps({"cells": [{"cell_type": "code", "source": "!pip install torch --index-url "
                               "https://download.pytorch.org/whl/cu128"}]}),
        "setup.ipynb",
        "cu128-wheels",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_finding_behind_each_pre_checked_word_is_found(tmp_path: Path, name: str) -> None:
    file_name, text, where, rule = CASES[name]
    (tmp_path / file_name).write_text(text)
    report = scan.scan_paths([tmp_path], jobs=1)
    assert [(Path(f.path).name, f.rule) for f in report.findings] == [(where, rule)]


def test_a_torchrun_line_alone_is_read_as_evidence_for_the_script_it_starts(tmp_path: Path) -> None:
    """A script whose only pre-checked word is `torchrun` (no 29500) is read: it starts train.py on a port that
    2.12 picks, so train.py's 29500 is reported."""
    (tmp_path / "run.sh").write_text("torchrun --nproc-per-node=2 train.py\n")
    (tmp_path / "train.py").write_text("import torch.distributed as dist\nstore = dist.TCPStore('localhost', 29500)\n")
    report = scan.scan_paths([tmp_path], jobs=1)
    assert [(Path(f.path).name, f.rule) for f in report.findings] == [("train.py", "port-29500")]


def test_a_shell_like_file_is_checked_for_fewer_words_than_a_document() -> None:
    """A shell-like file is never parsed as Python: a Python rule's word alone does not make it read, while a
    Markdown file's code blocks are Python."""
    jit = b"model = torch.jit.script(model)\n"
    assert not prefilter.needed("yaml", jit) and prefilter.needed("markdown", jit)
    assert prefilter.needed("yaml", b"torchrun train.py") and prefilter.needed("shell", b"+cu128")


def test_every_fixture_finds_the_same_with_the_shell_like_pre_check_and_with_every_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shell-like files of the fixtures (scripts, CI YAML, Dockerfiles, requirements of issues 13 to 47 and of
    real projects) give the same findings, errors and notes where they are checked for every rule's words: a rule
    that can find something in such a file and is missing from SHELL_LIKE_RULES (or TEXT_NEEDS) fails here."""
    folders = [FIXTURES / "upgrade_scan", FIXTURES / "scan_corpus"]
    narrow = scan.scan_paths(folders, jobs=1)
    monkeypatch.setitem(prefilter.UNIQUE_NEEDS, "shell", prefilter.UNIQUE_NEEDS["text"])
    wide = scan.scan_paths(folders, jobs=1)
    assert (narrow.findings, narrow.errors, narrow.notes) == (wide.findings, wide.errors, wide.notes)
    shell_like = [f for f in narrow.findings if Path(f.path).suffix in (".sh", ".yml", ".yaml", ".txt")]
    assert len(shell_like) > 10, "the fixtures hold findings in shell-like files (22 on 2026-12-06)"


# (a pattern written to start at a rarer character, its plain spelling, texts where they must agree, how many match)
REWRITTEN = {
    "MULTI_DEVICE": (
        prefilter.MULTI_DEVICE,
        rb"[\w}]:[^,\s\"']*,[^,\s\"':]*:",
        [b'"cpu:gloo,cuda:nccl"', b'f"{d}:{b},cpu:gloo"', b"x[1:2,3:4]", b'":gloo,cuda:"', b"(:a,b:", b"a: b,c:",
         b"cpu:gloo, cuda:nccl", b"cpu:gloo,cuda", b"", b"::,:", b"a::,b:"],
        4,
    ),
    "GREEN_CONTEXT": (
        prefilter.GREEN_CONTEXT,
        rb"reen(?:Context|_contexts)",
        [b"GreenContext.create(", b"cuda.green_contexts", b"screenContext", b"greenContex", b"reen_context", b"xt"],
        3,
    ),
    "ISEND_IRECV": (
        prefilter.ISEND_IRECV,
        rb"i(?:send|recv)\(",
        [b"dist.isend(t, 1)", b"irecv(t, 0)", b"isend (t)", b"send(t)", b"(isend(", b"isendx(", b"irecv", b""],
        3,
    ),
}


@pytest.mark.parametrize("name", sorted(REWRITTEN))
def test_a_rewritten_pattern_matches_where_its_plain_spelling_does(name: str) -> None:
    """A pre-check pattern that starts at a rarer character and looks back at what comes before it (for speed)
    matches where its plain spelling does, and nowhere else."""
    fast, plain, texts, matching = REWRITTEN[name]
    assert [bool(re.search(plain, t)) for t in texts] == [bool(fast.search(t)) for t in texts]
    assert sum(bool(re.search(plain, t)) for t in texts) == matching
