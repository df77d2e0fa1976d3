"""know-your-accelerator's stream-capture guard, on machines we do not have.

`Stream.is_capturing()` is new in 2.12, and a backend that does not implement the capture query raises
(the CPU in 2.12.0; MPS, read in its 2.12 device guard). The notebook asks through `capture_state`, and its
probe row through `capture_query_row`. Here both run as the notebook runs them, after the setup cell, with
torch's answers replaced to simulate a NVIDIA GPU, a Mac, an Intel GPU, a CPU-only machine and an older torch.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.simulated import accelerator_allocates
from tools.author.stamp import snippet_source
from tools.course import ROOT, cell_source, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

NOTEBOOK = ROOT / "notebooks" / "getting-started" / "know-your-accelerator.ipynb"
NOT_SUPPORTED = "Backend doesn't support stream capture query."


def guard_source() -> str:
    cells = [cell_source(c) for c in read_notebook(NOTEBOOK)["cells"] if c["cell_type"] == "code"]
    found = [source for source in cells if "def capture_state(" in source]
    assert len(found) == 1, "know-your-accelerator must define capture_state in exactly one cell"
    return found[0]


class FakeStream:
    """A stream whose capture query answers `answer`, or raises it when it is an exception."""

    def __init__(self, answer: bool | Exception) -> None:
        self.answer = answer

    def is_capturing(self) -> bool:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def machine(monkeypatch: pytest.MonkeyPatch, device_type: str | None, stream: object = None) -> dict[str, Any]:
    """Run the setup cell and the guard cell as on a machine with this accelerator (None: CPU only)."""
    present = torch.device(device_type) if device_type else None
    monkeypatch.setattr(torch.accelerator, "current_accelerator",
                        lambda check_available=False: present if check_available else torch.device("cuda"))
    monkeypatch.setattr(torch.version, "hip", None)
    properties = types.SimpleNamespace(name="simulated GPU", total_memory=80 * 2**30)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _device: properties)
    monkeypatch.setattr(torch.xpu, "get_device_name", lambda _device=None: "simulated Intel GPU")

    def current_stream(_device: object = None) -> object:
        if stream is None:
            raise AssertionError("a CPU-only machine has no current accelerator stream to ask")
        return stream

    monkeypatch.setattr(torch.accelerator, "current_stream", current_stream)
    accelerator_allocates(monkeypatch)
    namespace: dict[str, Any] = {"__name__": "know_your_accelerator_under_test"}
    exec(snippet_source("setup"), namespace)
    exec(guard_source(), namespace)
    return namespace


def test_a_mac_gets_no_answer_instead_of_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = machine(monkeypatch, "mps", FakeStream(RuntimeError(NOT_SUPPORTED)))
    assert cell["platform_name"] == "mps"
    assert cell["capture_state"](FakeStream(RuntimeError(NOT_SUPPORTED))) is None
    native, why = cell["capture_query_row"]()
    assert native is False and "mps streams do not answer" in why


@pytest.mark.parametrize("device_type", ["cuda", "xpu"])
def test_a_backend_that_answers_is_native(monkeypatch: pytest.MonkeyPatch, device_type: str) -> None:
    cell = machine(monkeypatch, device_type, FakeStream(False))
    assert cell["capture_state"](FakeStream(True)) is True
    native, why = cell["capture_query_row"]()
    assert native is True and why.endswith("capturing=False")


def test_a_cpu_only_machine_never_asks_a_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = machine(monkeypatch, None)
    assert cell["capture_query_row"]() == (False, "needs an accelerator stream")


def test_a_torch_without_the_method_gets_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = machine(monkeypatch, "cuda", object())
    assert cell["capture_state"](object()) is None
    assert cell["capture_query_row"]()[0] is False


def test_other_errors_are_not_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = machine(monkeypatch, "cuda", FakeStream(False))
    guard: Callable[[object], bool | None] = cell["capture_state"]
    with pytest.raises(RuntimeError, match="device-side assert"):
        guard(FakeStream(RuntimeError("CUDA error: device-side assert triggered")))


def test_the_real_cpu_stream_matches_the_release() -> None:
    namespace: dict[str, Any] = {"__name__": "guard_only"}
    exec(guard_source(), namespace)
    version = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
    expected = None if version < (2, 13) else False  # 2.12.0 raises; 2.13.0 and later answer False
    assert namespace["capture_state"](torch.Stream(device="cpu")) is expected


# ---- the NVIDIA rows: what the lesson needs, read from the driver and cuda-bindings ----------------------------------

def nvidia_rows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, driver: str, tools_id: bool) -> dict[str, str]:
    """The NVIDIA rows' statuses on a simulated NVIDIA GPU whose `nvidia-smi` reports CUDA `driver`, with a
    cuda-bindings whose runtime has cudaGraphNodeGetToolsId or not (torch's requirement allows 13.0.3)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "nvidia-smi").write_text(f"#!/bin/sh\necho 'Driver Version: 999.0   CUDA Version: {driver}'\n")
    (tools / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    runtime = types.ModuleType("cuda.bindings.runtime")
    if tools_id:
        runtime.cudaGraphNodeGetToolsId = lambda node: (0, 1)  # type: ignore[attr-defined]
    bindings = types.ModuleType("cuda.bindings")
    bindings.runtime = runtime  # type: ignore[attr-defined]
    for name, module in (("cuda", types.ModuleType("cuda")), ("cuda.bindings", bindings),
                         ("cuda.bindings.runtime", runtime)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    namespace: dict[str, Any] = {"torch": torch, "platform_name": "cuda"}
    exec(snippet_source("probe_facts"), namespace)
    namespace |= {"is_nvidia": True, "annotations_kwarg": True}
    cells = [cell_source(c) for c in read_notebook(NOTEBOOK)["cells"] if c["cell_type"] == "code"]
    exec(next(source for source in cells if "cond_ok = " in source), namespace)
    return {feature: status for feature, status, _why in namespace["rows"]}


@pytest.mark.parametrize(("driver", "expected"), [("12.2", "CPU path"), ("12.4", "has the API")])
def test_cond_in_graphs_needs_a_12_4_driver(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, driver: str,
                                          expected: str) -> None:
    """Before: any NVIDIA GPU with the API said 'has the API', a 12.2 driver too."""
    assert nvidia_rows(monkeypatch, tmp_path, driver, True)["torch.cond inside CUDA graphs"] == expected


@pytest.mark.parametrize(("tools_id", "expected"), [(False, "not here"), (True, "has the API")])
def test_graph_annotations_need_the_tools_id_call(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tools_id: bool,
                                                  expected: str) -> None:
    """Before: a 13.1 driver was enough, though cuda-bindings without cudaGraphNodeGetToolsId records nothing."""
    assert nvidia_rows(monkeypatch, tmp_path, "13.1", tools_id)["CUDA graph kernel annotations"] == expected
