# Setup: the same cell opens every notebook (source: tools/snippets/setup.py; `make stamp` copies it).
import logging
import platform
import random
import sys

import numpy as np
import torch

# torch.utils.benchmark imports torch.utils.cpp_extension, which on a CUDA build without a GPU logs
# a warning about CUDA_HOME; it concerns building C++ extensions, not these lessons.
logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
import torch.utils.benchmark

if tuple(int(part) for part in torch.__version__.split(".")[:2]) < (2, 12):
    if "google.colab" in sys.modules:
        fix = ('run `%pip install -q --upgrade "torch>=2.12"` in a new cell, '
               "then Runtime > Restart session, and run this notebook again")
    else:
        fix = 'run `pip install --upgrade "torch>=2.12"`, then restart the kernel'
    raise RuntimeError(f"This course needs PyTorch 2.12 or newer; this runtime has {torch.__version__}. "
                       f"To fix it, {fix}.")

# check_available=True matters: a CUDA build of torch on a machine without a GPU would otherwise answer "cuda".
device = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")
platform_name = "rocm" if device.type == "cuda" and torch.version.hip else device.type
on_accelerator = device.type != "cpu"

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


def describe_machine() -> str:
    """One line naming torch, the platform and the device this notebook runs on."""
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        runtime = f"HIP {torch.version.hip}" if torch.version.hip else f"CUDA {torch.version.cuda}"
        where = f"{props.name}, {props.total_memory / 2**30:.0f} GiB, {runtime}"
    elif device.type == "xpu":
        where = torch.xpu.get_device_name(device)
    elif device.type == "mps":
        where = f"Apple GPU through Metal, macOS {platform.mac_ver()[0]}"
    else:
        where = f"no accelerator; {platform.machine()} CPU, {torch.get_num_threads()} threads"
    return f"torch {torch.__version__} | {platform_name}: {where} | Python {platform.python_version()}"


def skip(reason: str) -> None:
    """Say in one line what a cell skips on this machine, and why."""
    print(f"Skipped on {platform_name}: {reason}")


def median_seconds(fn, *args, min_run_time: float = 0.1) -> float:
    """Median wall time of fn(*args) in seconds; torch.utils.benchmark synchronises accelerators."""
    timer = torch.utils.benchmark.Timer(stmt="fn(*args)", globals={"fn": fn, "args": args})
    median = timer.blocked_autorange(min_run_time=min_run_time).median
    assert median > 0, "the timed code did not run"
    return median


print(describe_machine())
