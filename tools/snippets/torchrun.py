# Launch helper of the distributed lessons: run a worker script under torchrun.
# Source: tools/snippets/torchrun.py; `make stamp` copies it here.
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Worker scripts, their results and torchrun's logs go here; removed at the end.
workdir = tempfile.TemporaryDirectory(prefix="course-distributed-")
work = Path(workdir.name)
worker_pids: list[int] = []

# Every worker script starts with `from join import ...`: this module joins the job.
JOIN = """
import faulthandler
import json
import os
import sys

import torch
import torch.distributed as dist

faulthandler.enable()  # a crash prints every thread's Python stack to stderr
rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
accelerator = torch.accelerator.current_accelerator(check_available=True)
enough = torch.accelerator.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"])
device = torch.device("cpu")
if accelerator is not None and enough:  # one accelerator per process
    device = torch.device(accelerator.type, local_rank)
    torch.accelerator.set_device_index(local_rank)
backend = dist.get_default_backend_for_device(device)  # gloo, nccl or xccl
dist.init_process_group(backend, device_id=None if device.type == "cpu" else device)
group = dist.group.WORLD


def finish(name, result):
    \"\"\"Leave the job with every rank, write this rank's results as JSON, and exit.

    os._exit skips the interpreter's shutdown: gloo's worker threads outlive
    destroy_process_group() and may still free tensors that Python owns; one that
    does so during the shutdown aborts the process (the course repository's
    tests/repro/gloo_exit_abort.py shows it).
    \"\"\"
    dist.barrier()
    dist.destroy_process_group()
    with open(f"{name}_rank{rank}.json", "w") as out:
        json.dump({"pid": os.getpid(), "device": str(device), **result}, out)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
"""
(work / "join.py").write_text(JOIN.lstrip())


# How torchrun marks a line of a rank's stderr in the job's output.
STDERR_PREFIX = "[rank{rank} stderr]:"


TEMP_VARIABLES = ("TMPDIR", "TEMP", "TMP")


def torchrun(
    script: str,
    *script_args: str,
    options: tuple[str, ...] = (),
    env: dict | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess:
    """Run `script` in `work` with 2 processes under torchrun; stop it after `timeout`.

    `sys.executable -m torch.distributed.run` is this kernel's torchrun, so the workers
    use this kernel's torch. On a timeout torchrun gets SIGTERM, which it forwards to
    its workers; `--shutdown-timeout 5` bounds how long it waits before killing them.
    """
    launch = ["-m", "torch.distributed.run", "--nproc-per-node", "2"]
    # --tee 2: each rank's stderr also reaches the output, each line marked with its
    # rank (STDERR_PREFIX), so that job_failure can show the failing rank's own lines.
    command = [sys.executable, *launch, "--shutdown-timeout", "5", "--tee", "2"]
    command += [*options, script]
    marked = STDERR_PREFIX.format(rank="${rank}")
    settings = {"OMP_NUM_THREADS": "1", "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE": marked}
    # torchrun's log folders go into `work` too, and are removed with it: Python's
    # tempfile reads TMPDIR, and on Windows TEMP and TMP.
    temp = dict.fromkeys(TEMP_VARIABLES, str(work))
    job = subprocess.Popen(
        [*command, *script_args],
        cwd=work,
        env={**os.environ, **settings, **temp, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        output, _ = job.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        job.terminate()
        output, _ = job.communicate(timeout=30)
        message = f"{script} ran past {timeout} s and was stopped; output:\n"
        raise TimeoutError(message + output[-3000:]) from expired
    return subprocess.CompletedProcess(command, job.returncode, output)


def rank_results(prefix: str, world_size: int = 2) -> list[dict]:
    """The JSON file each rank wrote as `work/<prefix>_rank<r>.json`, in rank order."""
    results = [
        json.loads((work / f"{prefix}_rank{rank}.json").read_text())
        for rank in range(world_size)
    ]
    worker_pids.extend(result["pid"] for result in results if "pid" in result)
    return results


def job_failure(job: subprocess.CompletedProcess, lines_per_rank: int = 12) -> str:
    """Why a job failed: each failed rank's last stderr lines, the first failure
    first, then torchrun's summary of the failures."""
    import re

    lines = job.stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.rstrip().endswith(" FAILED")]
    summary = lines[starts[-1] - 1 :] if starts else lines[-15:]
    failed = re.findall(r"^\s*rank\s*:\s*(\d+).*\n\s*exitcode\s*:\s*(.*)$",
                        "\n".join(summary), flags=re.MULTILINE)
    root = "\n".join(summary).partition("Root Cause")[2]
    first = re.search(r"^\s*rank\s*:\s*(\d+)", root, flags=re.MULTILINE)
    failed.sort(key=lambda found: found[0] != (first.group(1) if first else None))
    report = []
    for rank, exit_code in dict(failed).items():
        prefix = STDERR_PREFIX.format(rank=rank)
        own = [line[len(prefix):] for line in lines if line.startswith(prefix)]
        exited = f"rank {rank} exited with {exit_code.strip()}"
        report.append(f"{exited}; its last stderr lines:")
        report += [f"  {line}" for line in own[-lines_per_rank:]] or ["  (none)"]
    return "\n".join([*report, "torchrun's summary:", *summary])


def process_alive(pid: int) -> bool:
    """Whether process `pid` exists: psutil where installed, else the system's own way.

    Not os.kill(pid, 0) on Windows: there it calls TerminateProcess, ending the process.
    """
    if importlib.util.find_spec("psutil") is not None:
        import psutil

        return psutil.pid_exists(pid)
    if sys.platform == "win32":
        query = ["tasklist", "/FI", f"PID eq {pid}", "/FO", "CSV", "/NH"]
        listed = subprocess.run(query, capture_output=True, text=True, check=False)
        return f'"{pid}"' in listed.stdout
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def workers_still_running() -> list[int]:
    """The pids of the workers seen by `rank_results` that are still alive."""
    return [pid for pid in worker_pids if process_alive(pid)]
