"""A gloo worker aborts at exit: the minimal reproducer, outside the course's notebooks.

Two processes under torchrun do what the distributed lessons' workers do: a few functional
collectives on gloo, waited on, then `dist.barrier()` and `dist.destroy_process_group()`, then
the end of the script. Now and then a process dies of SIGABRT after its last line ran.

Why (read in a core file of such a run with gdb): the barrier's work object keeps the earlier
all_reduce work objects, and their tensors, which Python owns. gloo's worker thread
(`pt_gloo_runloop`) drops the barrier's work after it completed, and with it those tensors;
freeing a tensor that Python owns takes the GIL. `destroy_process_group()` does not stop gloo's
threads (its `shutdown()` does nothing for gloo), so when the thread gets there after the main
thread has begun the interpreter's shutdown, CPython ends the thread (`pthread_exit` in
`take_gil`) inside a destructor that may not throw, and `std::terminate` aborts the process.
The window is short, so load on the machine widens it.

    python tests/repro/gloo_exit_abort.py --runs 60            # the plain ending
    python tests/repro/gloo_exit_abort.py --runs 60 --exit-now # the workaround: os._exit(0)

The workaround, which the course's `finish()` uses (tools/snippets/torchrun.py): after the
barrier, `destroy_process_group()` and the last write, flush and leave with `os._exit(0)`, so no
interpreter shutdown runs while gloo's threads may still free Python's tensors.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = """
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo")
x = torch.ones(4)
for _ in range(20):
    x = funcol.wait_tensor(funcol.all_reduce(x, "sum", dist.group.WORLD)) / 2
dist.barrier()
dist.destroy_process_group()
if "--exit-now" in sys.argv:
    sys.stdout.flush()
    os._exit(0)
"""


def launch(folder: Path, exit_now: bool) -> tuple[int, str]:
    """One two-process job under torchrun: its exit code and output."""
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
               "--standalone", str(folder / "worker.py")]
    job = subprocess.run([*command, *(["--exit-now"] if exit_now else [])], cwd=folder,
                         env={**os.environ, "OMP_NUM_THREADS": "1"},
                         capture_output=True, text=True, timeout=120, check=False)
    return job.returncode, job.stdout + job.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--exit-now", action="store_true", help="end each worker with os._exit(0)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    aborted = failed = 0
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "worker.py").write_text(WORKER)
        for _ in range(args.runs):
            code, output = launch(folder, args.exit_now)
            if "SIGABRT" in output:
                aborted += 1
            elif code != 0:
                failed += 1
                print(output[-2000:], file=sys.stderr)
    import torch

    print(f"torch {torch.__version__}, {'os._exit(0)' if args.exit_now else 'plain exit'}: "
          f"{aborted} of {args.runs} runs aborted (SIGABRT), {failed} failed otherwise")
    return 0


if __name__ == "__main__":
    sys.exit(main())
