# Timing helper, shared by the lessons that time on the CPU.
# Source: tools/snippets/cpu_timer.py; `make stamp` copies it here.
import contextlib
import time

import threadpoolctl


@contextlib.contextmanager
def one_thread_each():
    """Torch's thread pool and NumPy's BLAS at one thread each, put back afterwards.

    Left alone, each starts a thread per core, and they fight over the cores.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpoolctl.threadpool_limits(limits=1):
            yield
    finally:
        torch.set_num_threads(threads)


def cpu_seconds(fn, *args, min_run_time: float = 0.1) -> float:
    """Median CPU time of fn(*args), one thread each.

    CPU time, not wall time: other work on a busy machine is not counted.
    """
    with one_thread_each():
        timer = torch.utils.benchmark.Timer(
            stmt="fn(*args)", globals={"fn": fn, "args": args}, timer=time.process_time
        )
        return timer.blocked_autorange(min_run_time=min_run_time).median


def device_timer(device: torch.device):
    """CPU time on a CPU; on an accelerator, median_seconds (wall time, synced)."""
    return cpu_seconds if device.type == "cpu" else median_seconds
