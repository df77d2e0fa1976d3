"""The setup cell: stops on an old torch with the fix, and names the platform right on every machine.

The cell is executed here as a notebook would run it, with torch's answers replaced where a test
needs a machine we do not have (a GPU, a ROCm build, Colab).
"""

from __future__ import annotations

import types
from typing import Any

import pytest
import torch

from tests.simulated import accelerator_allocates
from tools.author.stamp import snippet_source

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)


def run_setup() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "setup_cell_under_test"}
    exec(snippet_source("setup"), namespace)
    return namespace


def fake_accelerator(monkeypatch: pytest.MonkeyPatch, present: torch.device | None, built: str = "cuda",
                     allocation_error: str | None = None) -> None:
    """An accelerator `present` (None: none) in a build for `built`; its allocations (the setup cell's probe) give
    a CPU tensor, or raise RuntimeError(allocation_error)."""
    def current_accelerator(check_available: bool = False) -> torch.device | None:
        return present if check_available else torch.device(built)

    monkeypatch.setattr(torch.accelerator, "current_accelerator", current_accelerator)
    accelerator_allocates(monkeypatch, allocation_error)


def test_old_torch_stops_and_points_at_the_install_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wheel advice lives in one place, the install cell (tools/snippets/install.py, tests/test_install_cell.py)."""
    monkeypatch.setattr(torch, "__version__", "2.11.0+cu128")
    with pytest.raises(RuntimeError, match=r"needs PyTorch 2\.12 or newer; this runtime has 2\.11\.0") as error:
        run_setup()
    assert "Run the notebook's first cell" in str(error.value)


def test_course_device_cpu_keeps_an_accelerator_machine_on_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Mac in a CPU room: COURSE_DEVICE=cpu makes the lesson take its CPU paths."""
    fake_accelerator(monkeypatch, torch.device("mps"), built="mps")
    assert run_setup()["device"].type == "mps"
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    namespace = run_setup()
    assert namespace["device"].type == "cpu" and namespace["platform_name"] == "cpu"
    assert not namespace["on_accelerator"]


def test_cuda_build_without_gpu_uses_the_cpu(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_accelerator(monkeypatch, present=None, built="cuda")
    cell = run_setup()
    assert cell["device"] == torch.device("cpu")
    assert cell["platform_name"] == "cpu" and cell["on_accelerator"] is False
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"torch {torch.__version__} | cpu: no accelerator") and "\n" not in line


def test_rocm_is_told_apart_from_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_accelerator(monkeypatch, present=torch.device("cuda"))
    monkeypatch.setattr(torch.version, "hip", "7.0.2")
    properties = types.SimpleNamespace(name="AMD Instinct MI300X", total_memory=192 * 2**30)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _device: properties)
    cell = run_setup()
    assert cell["platform_name"] == "rocm"
    assert cell["describe_machine"]().split(" | ")[1] == "rocm: AMD Instinct MI300X, 192 GiB, HIP 7.0.2"


def test_nvidia_gpu_is_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_accelerator(monkeypatch, present=torch.device("cuda"))
    monkeypatch.setattr(torch.version, "hip", None)
    properties = types.SimpleNamespace(name="NVIDIA H200", total_memory=141 * 2**30)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _device: properties)
    assert run_setup()["platform_name"] == "cuda"


def test_generators_are_seeded() -> None:
    first = run_setup()["torch"].rand(3)
    second = run_setup()["torch"].rand(3)
    torch.testing.assert_close(first, second)


def test_median_seconds_measures_real_work() -> None:
    cell = run_setup()
    assert cell["median_seconds"](sum, range(1000), min_run_time=0.01) > 0


def test_an_accelerator_that_cannot_allocate_counts_as_absent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub's macOS arm64 runners (virtual machines) report MPS as available, then cannot allocate: the cell
    says so in one line and uses the CPU."""
    error = "MPS backend out of memory (MPS allocated: 0 bytes, max allowed: 0 bytes)"
    fake_accelerator(monkeypatch, torch.device("mps"), built="mps", allocation_error=error)
    cell = run_setup()
    assert cell["device"] == torch.device("cpu") and cell["platform_name"] == "cpu"
    first, *rest = capsys.readouterr().out.splitlines()
    assert first == "mps is available but cannot allocate (MPS backend out of memory (MPS allocated: 0 bytes, " \
                    "max allowed: 0 bytes)): using the CPU.", first
    assert len(rest) == 1 and rest[0].startswith(f"torch {torch.__version__} | cpu: no accelerator"), rest
