"""Memory and CPU time of a notebook run: the peak of a kernel (VmHWM) and its CPU seconds from /proc, and the peak of
this process with all its descendants (pytest, its workers, kernels and the processes they start), sampled with psutil.
Where /proc cannot be read (macOS, Windows) the kernel's numbers are 0."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import psutil


def _status_kib(pid: int | None, field: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, TypeError):
        return 0
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def peak_rss(pid: int | None) -> int:
    """A process's peak resident memory (VmHWM) in bytes, or 0 where it cannot be read."""
    return _status_kib(pid, "VmHWM") * 1024


def cpu_seconds(pid: int | None) -> float:
    """CPU time a process and the children it waited for have used (user and system), 0 where unknown.

    Unlike wall time it hardly depends on what else the machine runs, so it compares runs on a shared machine."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, TypeError, IndexError):
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and its descendants (0 where the process is gone)."""
    try:
        process = psutil.Process(pid)
        family = [process, *process.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for member in family:
        try:
            total += member.memory_info().rss
        except psutil.Error:  # ended meanwhile
            continue
    return total


class MemoryWatch:
    """The peak of the resident memory of this process and all its descendants, sampled twice a second."""

    def __init__(self, interval: float = 0.5) -> None:
        self.interval = interval
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_bytes = max(self.peak_bytes, tree_rss(os.getpid()))
