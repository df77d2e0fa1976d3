"""Record the batched-eigh benchmark of the flagship notebook into results/.

    python -m tools.records.record_eigh                 on the best device here (an accelerator if any)
    python -m tools.records.record_eigh --device cpu    on the CPU even where there is an accelerator

It runs the very cells the notebook runs: tools/snippets/setup.py, tools/snippets/cpu_timer.py and
tools/snippets/eigh_benchmark.py are stamped into the notebook and executed here.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

import torch

from tools.course import RESULTS, SNIPPETS
from tools.records.results import provenance, write_result

BENCHMARK = "eigh-batched"


def run_snippets(*names: str) -> dict[str, Any]:
    """Execute snippets in one namespace, as the notebook's cells are executed in one kernel."""
    namespace: dict[str, Any] = {"__name__": "course_snippets"}
    for name in names:
        path = SNIPPETS / f"{name}.py"
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=["cpu", "cuda", "mps", "xpu"], help="default: the best device here")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the result file (default: results/)")
    args = parser.parse_args(argv)
    cells = run_snippets("setup", "cpu_timer", "eigh_benchmark")
    device = cells["device"] if args.device is None else torch.device(args.device)
    if device.type != "cpu" and (device.type != cells["device"].type):
        print(f"error: no {device.type} device here; this machine offers {cells['device'].type}", file=sys.stderr)
        return 2
    sizes, batches = cells["eigh_benchmark_sizes"](device)
    rows = cells["benchmark_eigh"](device, cells["device_timer"](device), sizes, batches)
    command = "python -m tools.records.record_eigh " + shlex.join(argv if argv is not None else sys.argv[1:])
    path = write_result(args.out, BENCHMARK, rows, provenance(device, command.strip()))
    print(f"wrote {path} ({len(rows)} measurements)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
