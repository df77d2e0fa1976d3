"""A learner's kernel: a student copy run as Run All runs it (tools/execute/student_copies.py), in another interpreter.

nbval runs the course's notebooks (tools/execute/pytest_plugin.py). The student-copy check needs what nbval's kernel
does not offer: ipykernel in a different interpreter (a venv built from the student branch's requirements alone, which
hold no pytest or nbval) and Run All's stop at the first failing cell. NotebookKernel starts that kernel through
nbclient; besides nbval, only this module starts kernels (tests/test_lesson.py).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

CELL_TIMEOUT = 300  # seconds a cell may run, as the book's `execute.timeout`


class KernelStopped(Exception):
    """A cell ran over CELL_TIMEOUT, or the kernel died: the run cannot go on."""


class NotebookKernel:
    """The kernel of one notebook, its cells run in place."""

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


async def _learner_run(notebook: Any, folder: Path, python: str | None) -> tuple[list[int], bool]:
    failed = []
    async with NotebookKernel(notebook, folder, python) as kernel:
        count = 0
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                count += 1
                stopped = await kernel.run(cell, index, count) is not None
                # nbclient lets a cell tagged raises-exception raise: its error is an output, and the run goes on
                if stopped or any(output.get("output_type") == "error" for output in cell.outputs):
                    failed.append(index)
                if stopped:
                    return failed, False
    return failed, True


def run_as_learner(notebook: dict[str, Any], folder: Path, python: str | None = None) -> tuple[Any, list[int], bool]:
    """Run a notebook as a learner's Run All does, alone in `folder` (no gate, no harness): a cell that raises stops
    the run unless it is tagged `raises-exception`, as in JupyterLab. The executed notebook, the indices of the cells
    that failed, and whether the run reached the end. `python`: the kernel's interpreter (default: this one), for
    example a venv built from the student branch's requirements alone."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    executed = nbformat.reads(json.dumps(notebook), as_version=4)
    failed, finished = asyncio.run(_learner_run(executed, folder, python))
    return executed, failed, finished
