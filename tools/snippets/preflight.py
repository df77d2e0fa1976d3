# The pre-flight's plumbing: the device, the install command, the packages' floors,
# the scanner's row, the memory readers, the two-process launcher and the result table.
# Source: tools/snippets/preflight.py; `make stamp` copies it here. It needs the
# install cell (the first cell), not the setup cell, so it runs on an old torch too.
# Runs after the stamped cell `install` (machine_plan, pip_advice, minor_release).
import ctypes
import dataclasses
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

# The packages the lessons import, with the floors of requirements.txt (threadpoolctl
# gives NumPy one thread in batched-eigh's timing).
PACKAGES = {
    "numpy": "1.26",
    "matplotlib": "3.8",
    "pandas": "2.1",
    "ipywidgets": "8.1",
    "threadpoolctl": "3.1",
}


def scanner_row() -> tuple[str, str]:
    """The upgrade scanner's row (found, fix; no fix when it imports): the course's own
    package, which only its lesson imports, from the handout's wheel (on Colab, in that
    lesson's own runtime)."""
    try:
        import torch_upgrade_scan
    except ImportError:
        if "google.colab" in sys.modules:
            return "missing", "in the scanner lesson: upload the handout's wheel"
        return "missing", "pip install the torch_upgrade_scan wheel of your handout"
    return f"torch-upgrade-scan {torch_upgrade_scan.__version__}", ""


# The setup cell defines `device`; on an old torch it stops before that line, so decide
# as it does, from what this build sees (torch.accelerator is 2.6 and newer).
xpu = getattr(torch.version, "xpu", None)  # an XPU build's version; None elsewhere
seen = {
    "cuda": torch.cuda.is_available(),
    "mps": torch.backends.mps.is_available(),
    "xpu": bool(xpu) and torch.xpu.is_available(),
    "cpu": True,
}
here = globals().get("device") or torch.device(next(k for k in seen if seen[k]))


def upgrade_command() -> str:
    """What to do for the taught release: the install cell's plan for this machine."""
    plan = machine_plan()
    if "google.colab" in sys.modules and plan.build in ("cpu", "cuda"):
        return "run the notebook's first cell: it installs torch and restarts"
    return f"{pip_advice(plan)}, then restart the kernel"


def linux_memory() -> list[int]:
    """MemAvailable, and what the container (cgroup v2 or v1) still allows."""
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in meminfo)
    limits = [int(fields["MemAvailable"].split()[0]) * 1024]
    v1 = ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes")
    for limit, used in (("memory.max", "memory.current"), v1):
        cap, now = Path("/sys/fs/cgroup", limit), Path("/sys/fs/cgroup", used)
        if cap.is_file() and now.is_file() and cap.read_text().strip().isdigit():
            limits.append(int(cap.read_text()) - int(now.read_text()))
    return limits


def macos_free_bytes(vm_stat: str) -> int:
    """Free, inactive and speculative pages from `vm_stat` output, in bytes."""
    page = int(re.search(r"page size of (\d+) bytes", vm_stat).group(1))
    counts = dict(re.findall(r"Pages (free|inactive|speculative):\s+(\d+)", vm_stat))
    return page * sum(int(n) for n in counts.values())


def windows_free_bytes() -> int:
    """Windows' GlobalMemoryStatusEx: the available physical memory."""
    if sys.platform != "win32":
        raise OSError("Windows only")
    names = ("total", "avail", "page", "avail_page", "virtual", "avail_virtual", "ext")

    class Status(ctypes.Structure):
        _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong)]
        _fields_ += [(name, ctypes.c_ulonglong) for name in names]

    status = Status(length=ctypes.sizeof(Status))
    ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status))
    return status.avail


def available_memory() -> int | None:
    """The bytes of memory this process can still use, or None on an unknown system."""
    system = platform.system()
    if system == "Linux" and Path("/proc/meminfo").is_file():
        return min(linux_memory())
    if system == "Darwin":
        vm_stat = subprocess.run(["vm_stat"], capture_output=True, text=True)
        return macos_free_bytes(vm_stat.stdout)
    return windows_free_bytes() if system == "Windows" else None


LAUNCH = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"]


def run_job(job: str, timeout: float) -> tuple[bool, str]:
    """Start a script on two processes: (finished, its output or first error line)."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder, "job.py")
        script.write_text(job)
        env = {**os.environ, "TMPDIR": folder}  # torchrun's log folders go here too
        command = [sys.executable, *LAUNCH, str(script)]
        try:
            run = subprocess.run(command, capture_output=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return False, f"no result after {timeout:.0f} s"
    finished = sorted(re.findall(r"rank \d of 2: sum 3", run.stdout.decode()))
    if run.returncode == 0 and len(finished) == 2:
        return True, "; ".join(finished)
    lines = run.stderr.decode(errors="replace").strip().splitlines() or ["no output"]
    error = next((line for line in lines if "Error" in line), lines[-1]).strip()[:160]
    return False, f"exit {run.returncode}, {len(finished)} of 2 ranks: {error}"


def run_check(check):
    """A check's row; a check that raises is a failed row, not a stopped notebook."""
    try:
        return check()
    except Exception as error:  # any failure of a check is what its row must report
        found, fix = f"{type(error).__name__}: {error}", "show this row to a helper"
        return Check(  # type: ignore[name-defined]  # a later cell defines the class
            check.__name__, "FAIL", found, fix, True, see="broken-check"
        )


HELP = "https://every-accelerator.github.io/pytorch-2.12-course/chapters/troubleshooting.html"


def help_link(label: str) -> str:
    """A row's troubleshooting label as a link to that section of the book."""
    link = f'<a href="{HELP}#{label}" target="_blank" style="color:#00449e">{label}</a>'
    return link if label else ""  # a dark blue that reads on the red and amber rows


def result_table(rows: list) -> tuple:
    """The rows as a table, failed rows first, and its view with red and amber rows."""
    import pandas as pd  # here, so that the cells above run without it

    order = {"FAIL": 0, "warn": 1, "ok": 2}
    rows = sorted(rows, key=lambda row: order[row.status])
    columns = ["status", "name", "fix", "see", "found", "required"]
    table = pd.DataFrame(map(dataclasses.asdict, rows), columns=columns)
    colours = {"FAIL": "background-color: #f8d0d0", "warn": "background-color: #fdebc8"}
    style = table.style.hide(axis="index").format(help_link, subset=["see"])
    style.set_properties(**{"text-align": "left"})
    style.apply(lambda row: [colours.get(row["status"], "")] * len(row), axis=1)
    return table, style
