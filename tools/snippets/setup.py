# Setup: the same cell opens every notebook.
# Source: tools/snippets/setup.py; `make stamp` copies it here.
import datetime
import logging
import os
import platform
import random

import matplotlib.pyplot as plt
import numpy as np
import torch

# torch.utils.benchmark imports torch.utils.cpp_extension, which on a CUDA build
# without a GPU logs a warning about CUDA_HOME; it concerns building C++
# extensions, not these lessons.
logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
import torch.utils.benchmark

if tuple(int(part) for part in torch.__version__.split(".")[:2]) < (2, 12):
    raise RuntimeError(
        "This course needs PyTorch 2.12 or newer; "
        f"this runtime has {torch.__version__}. Run the notebook's first cell: it "
        "installs torch 2.12.0 with the right wheel for this machine, or says how."
    )

# check_available=True matters: a CUDA build of torch on a machine without a GPU
# would otherwise answer "cuda".
# COURSE_DEVICE=cpu keeps a machine with an accelerator on the CPU paths (a CPU room).
device = torch.accelerator.current_accelerator(check_available=True)
if device is None or os.environ.get("COURSE_DEVICE") == "cpu":
    device = torch.device("cpu")
try:  # an accelerator that reports itself available can still fail to allocate
    torch.ones(1, device=device)  # (MPS in a macOS virtual machine, such as CI's)
except RuntimeError as error:
    reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:100]
    print(f"{device.type} is available but cannot allocate ({reason}): using the CPU.")
    device = torch.device("cpu")
platform_name = "rocm" if device.type == "cuda" and torch.version.hip else device.type
on_accelerator = device.type != "cpu"

# One figure style for the whole book: readable in the book's column and on a phone.
plt.rcParams.update(
    {
        "figure.figsize": (7.0, 3.8),
        "figure.dpi": 100,
        "font.size": 11,
        "axes.titlesize": 12,
        "axes.labelsize": 11,
        "legend.fontsize": 10,
        "xtick.labelsize": 10,
        "ytick.labelsize": 10,
        "axes.grid": True,
        "grid.alpha": 0.3,
    }
)

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


def describe_machine() -> str:
    """One line naming torch, the platform, the device and the date of this run."""
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        hip, cuda = torch.version.hip, torch.version.cuda
        runtime = f"HIP {hip}" if hip else f"CUDA {cuda}"
        where = f"{props.name}, {props.total_memory / 2**30:.0f} GiB, {runtime}"
    elif device.type == "xpu":
        where = torch.xpu.get_device_name(device)
    elif device.type == "mps":
        where = f"Apple GPU through Metal, macOS {platform.mac_ver()[0]}"
    else:
        threads = torch.get_num_threads()
        where = f"no accelerator; {platform.machine()} CPU, {threads} threads"
    return (
        f"torch {torch.__version__} | {platform_name}: {where} | "
        f"Python {platform.python_version()} | {datetime.date.today()}"
    )


def skip(reason: str) -> None:
    """Say in one line what a cell skips on this machine, and why."""
    print(f"Skipped on {platform_name}: {reason}")


def median_seconds(fn, *args, min_run_time: float = 0.1) -> float:
    """Median wall time of fn(*args) in seconds.

    torch.utils.benchmark synchronises accelerators, so the time includes the kernels.
    """
    timer = torch.utils.benchmark.Timer(
        stmt="fn(*args)", globals={"fn": fn, "args": args}
    )
    median = timer.blocked_autorange(min_run_time=min_run_time).median
    assert median > 0, "the timed code did not run"
    return median


print(describe_machine())
