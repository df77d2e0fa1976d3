"""The fix that rule fsdp2-fullgraph gives, measured: which way of compiling a module that fully_shard shards compiles.

Run in a fresh Python (one gloo rank on the CPU), so that a process group and Dynamo's caches stay out of this one.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from torch_upgrade_scan.catalog import RULES

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

MEASURE = textwrap.dedent("""
    import os, socket, torch, torch.distributed as dist
    from torch.distributed.fsdp import fully_shard
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1")
    dist.init_process_group("gloo")
    graphs = []
    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward
    for way in ("torch.compile, then fully_shard", "fully_shard, then m.compile", "m.compile, then fully_shard"):
        graphs.clear()
        torch._dynamo.reset()
        m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
        if way.startswith("torch.compile"):
            m = torch.compile(m, fullgraph=True, backend=counting)
            fully_shard(m)
        elif way.startswith("fully_shard"):
            fully_shard(m)
            m.compile(fullgraph=True, backend=counting)
        else:
            m.compile(fullgraph=True, backend=counting)
            fully_shard(m)
        m(torch.randn(4, 8)).sum().backward()
        print(f"{way}: {len(graphs)}")
    dist.destroy_process_group()
""")


def test_only_sharding_what_torch_compile_returns_compiles_a_graph() -> None:
    done = subprocess.run([sys.executable, "-c", MEASURE], capture_output=True, text=True, timeout=300, check=True)
    graphs = dict(line.rsplit(": ", 1) for line in done.stdout.splitlines())
    assert graphs == {"torch.compile, then fully_shard": "1", "fully_shard, then m.compile": "0",
                      "m.compile, then fully_shard": "0"}, done.stdout
    fix = RULES["fsdp2-fullgraph"].fix
    assert "m = torch.compile(m, fullgraph=True) and then fully_shard(m)" in fix
    assert "Not m.compile(fullgraph=True)" in fix, "the rule must not send anyone to the way that compiles nothing"
