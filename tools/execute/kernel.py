"""A notebook's kernel, as the course's executor (tools/execute/engine.py) drives it, and the memory it takes.

NotebookKernel starts ipykernel in this interpreter (or another one, for the learner's path) through nbclient and
runs the notebook's own cells in place and the exercise harness's code beside them. MemoryWatch samples the resident
memory of this process and all its descendants (kernels and the processes they start) with psutil. Only this module
starts kernels: tests/test_lesson.py fails if another module imports nbclient or jupyter_client.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil

CELL_TIMEOUT = 300  # seconds a cell may run, as the book's `execute.timeout`


class KernelStopped(Exception):
    """A cell ran over CELL_TIMEOUT, or the kernel died: the run cannot go on."""


class NotebookKernel:
    """The kernel of one notebook: its own cells run in place, code of the harness runs beside them."""

    def __init__(self, notebook: Any, folder: Path, python: str | None = None) -> None:
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import AsyncKernelManager
        from nbclient import NotebookClient

        class ThisInterpreter(KernelSpecManager):  # `python3` is ipykernel in sys.executable (or `python`)
            def get_kernel_spec(self, kernel_name: str) -> Any:
                if kernel_name == "python3":
                    from ipykernel.kernelspec import RESOURCES, get_kernel_dict

                    spec = get_kernel_dict()
                    if python is not None:
                        spec["argv"] = [python, *spec["argv"][1:]]
                    return self.kernel_spec_class(resource_dir=RESOURCES, **spec)
                return super().get_kernel_spec(kernel_name)

        self.notebook = notebook
        manager = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=ThisInterpreter())
        # record_timing=False: timing metadata in the cells would change the notebook's hash in the book's cache.
        self.client = NotebookClient(notebook, km=manager, kernel_name="python3", timeout=CELL_TIMEOUT,
                                     allow_errors=False, record_timing=False,
                                     resources={"metadata": {"path": str(folder)}})

    async def __aenter__(self) -> NotebookKernel:
        from jupyter_core.utils import ensure_async

        self._context = self.client.async_setup_kernel(cleanup_kc=True)
        await self._context.__aenter__()
        assert self.client.kc is not None
        reply = await self.client.async_wait_for_reply(await ensure_async(self.client.kc.kernel_info()))
        if reply is not None and "language_info" in reply["content"]:
            self.notebook.metadata["language_info"] = reply["content"]["language_info"]
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._context.__aexit__(*exc)

    @property
    def pid(self) -> int | None:
        return getattr(getattr(self.client.km, "provisioner", None), "pid", None)

    def peak_rss(self) -> int:
        """The kernel's peak resident memory (VmHWM) in bytes, or 0 where it cannot be read."""
        return _status_kib(self.pid, "VmHWM") * 1024

    def cpu_seconds(self) -> float:
        """CPU time the kernel and the processes it waited for have used (user and system), 0 where unknown.

        Unlike wall time it hardly depends on what else the machine runs, so it compares runs on a shared machine."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, TypeError, IndexError):
            return 0.0
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    async def _execute(self, cell: Any, index: int, **options: Any) -> None:
        """nbclient's execution of one cell; a cell over CELL_TIMEOUT, or a kernel that died, raises KernelStopped."""
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        try:
            await self.client.async_execute_cell(cell, index, **options)
        except (CellTimeoutError, DeadKernelError) as error:
            raise KernelStopped(f"{type(error).__name__}: {str(error).strip()}") from error

    async def run(self, cell: Any, index: int, count: int) -> Any:
        """Run one of the notebook's cells in place; the CellExecutionError, or None when it finished."""
        from nbclient.exceptions import CellExecutionError

        try:
            await self._execute(cell, index, execution_count=count)
        except CellExecutionError as error:
            return error
        for output in cell.outputs:
            if output.get("output_type") == "execute_result":
                output["execution_count"] = count
        return None

    async def scratch(self, source: str, tags: Sequence[str] = ()) -> tuple[str, str] | None:
        """Run code that is not one of the notebook's cells, outside its history; its outputs are dropped."""
        import nbformat
        from nbclient.exceptions import CellExecutionError

        cell = nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)})
        self.notebook.cells.append(cell)
        try:
            await self._execute(cell, len(self.notebook.cells) - 1, store_history=False)
        except CellExecutionError as error:
            return error.ename, error.evalue.strip()
        finally:
            self.notebook.cells.pop()
        return None


def _status_kib(pid: int | None, field: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, TypeError):
        return 0
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


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

    @staticmethod
    def sample() -> int:
        return tree_rss(os.getpid())


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
