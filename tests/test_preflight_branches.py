"""The pre-flight after a stopped setup cell, on machines this one is not: a Colab GPU runtime, ROCm, XPU, a Mac,
an NVIDIA driver that torch cannot use, and a CPU-only laptop.

On a torch older than 2.12 the setup cell stops before it defines `device`, so the pre-flight decides the device
itself. Each test defines the pre-flight's checks as on such a machine (torch's answers replaced), then reads the
rows that depend on the machine: the device row and the torch row's upgrade command.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.utils.benchmark  # imported unpatched here: it picks its timer on import

from tools.course import ROOT, cell_source, cell_tags, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

PREFLIGHT = ROOT / "notebooks" / "workshop" / "preflight.ipynb"
INDEX = "https://download.pytorch.org/whl/"


def stopped_preflight(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *, system: str = "Linux",
                      cuda: bool = False, hip: str | None = None, xpu: str | None = None, xpu_seen: bool = False,
                      mps: bool = False, driver: str | None = None, colab: bool = False, version: str = "2.10.0",
                      has_xpu_attribute: bool = True, device: torch.device | None = None) -> dict[str, Any]:
    """The pre-flight's definitions on a machine whose install and setup cells stopped (no `device`).

    `driver` is what a fake `nvidia-smi` on PATH prints (None: no nvidia-smi); importlib.metadata answers
    `version` for torch, as torch.__version__ does."""
    monkeypatch.setattr(torch, "__version__", version)
    monkeypatch.setattr(importlib.metadata, "version", lambda name: version if name == "torch" else "1.0")
    monkeypatch.setattr(torch.version, "hip", hip)
    if has_xpu_attribute:
        monkeypatch.setattr(torch.version, "xpu", xpu, raising=False)
    else:  # torch.version.xpu is newer than some old torch
        monkeypatch.delattr(torch.version, "xpu", raising=False)
    monkeypatch.setattr(torch.version, "cuda", None if hip or xpu else "12.6")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.xpu, "is_available", lambda: xpu_seen)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    tools = tmp_path / "bin"
    tools.mkdir()
    if driver is not None:
        (tools / "nvidia-smi").write_text(f"#!/bin/sh\necho {driver}\n")
        (tools / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.setattr(platform, "system", lambda: system)
    if colab:
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    module = types.ModuleType("preflight_under_test")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look their module up
    namespace: dict[str, Any] = module.__dict__
    if device is not None:  # the setup cell finished
        namespace["device"] = device
    for cell in read_notebook(PREFLIGHT)["cells"]:
        source = cell_source(cell)
        if cell["cell_type"] != "code" or "stamp:setup" in cell_tags(cell):
            continue
        if "CHECKS = [" in source:
            break
        if "stamp:install" in cell_tags(cell):  # it stops on an old torch, after defining its functions
            source = source.replace("\ninstall_taught_torch()", "\n")
        exec(source, namespace)
    return namespace


def test_a_colab_gpu_runtime_keeps_its_gpu_and_is_sent_to_the_install_cell(monkeypatch: pytest.MonkeyPatch,
                                                                           tmp_path: Path) -> None:
    """The case the review found: before the fix the pre-flight reasoned as on a CPU, so it reported 'an NVIDIA
    GPU, but torch cannot use it' and told a Colab GPU runtime to install the CPU wheel."""
    cell = stopped_preflight(monkeypatch, tmp_path, cuda=True, driver="550.54.15", colab=True, version="2.9.0+cu126")
    assert cell["here"] == torch.device("cuda")
    row = cell["check_device"]()
    assert (row.status, row.found) == ("ok", "cuda"), row
    torch_row = cell["check_torch"]()
    assert torch_row.status == "FAIL" and torch_row.see == "old-torch"
    assert torch_row.fix == "run the notebook's first cell: it installs torch and restarts", torch_row.fix


def test_a_rocm_build_keeps_rocm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, cuda=True, hip="7.1.25424", version="2.11.0+rocm7.1")
    assert cell["here"] == torch.device("cuda") and cell["check_device"]().status == "ok"
    expected = f"Run `pip install torch==2.12.0 --index-url {INDEX}rocm7.2`, then restart the kernel"
    assert cell["upgrade_command"]() == expected


def test_an_xpu_build_keeps_xpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, xpu="20250101", xpu_seen=True, version="2.11.0+xpu")
    assert cell["here"] == torch.device("xpu") and cell["check_device"]().status == "ok"
    assert f"--index-url {INDEX}xpu`," in cell["upgrade_command"]()


def test_an_xpu_build_that_sees_no_gpu_still_keeps_xpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, xpu="20250101", xpu_seen=False, version="2.11.0+xpu")
    assert cell["here"] == torch.device("cpu")
    assert f"--index-url {INDEX}xpu`," in cell["upgrade_command"]()


def test_a_mac_sees_mps_and_keeps_pypis_wheel(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, system="Darwin", mps=True)
    assert cell["here"] == torch.device("mps") and cell["check_device"]().status == "ok"
    assert cell["upgrade_command"]() == "Run `pip install torch==2.12.0`, then restart the kernel"


@pytest.mark.parametrize(("driver", "fix"), [("575.57.08", f"--index-url {INDEX}cu126`,"),
                                             ("580.65.06", "pip install torch==2.12.0`, then")],
                         ids=["driver older than CUDA 13 needs", "driver 580"])
def test_an_nvidia_driver_that_torch_cannot_use_gets_the_wheel_for_the_driver(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, driver: str, fix: str) -> None:
    """Not "update the driver" for an old CUDA torch: the wheel that fits the driver this machine has."""
    cell = stopped_preflight(monkeypatch, tmp_path, cuda=False, driver=driver, version="2.11.0+cu130")
    row = cell["check_device"]()
    assert (row.status, row.see) == ("FAIL", "driver-mismatch") and f"driver {driver}" in row.found
    assert fix in row.fix, row.fix


def test_a_cpu_only_laptop_gets_the_cpu_wheel(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path)
    assert cell["here"] == torch.device("cpu")
    assert cell["check_device"]().status == "warn"
    assert f"torch==2.12.0 --index-url {INDEX}cpu`, then" in cell["upgrade_command"]()


def test_a_colab_cpu_runtime_is_sent_to_the_install_cell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, colab=True)
    assert cell["upgrade_command"]() == "run the notebook's first cell: it installs torch and restarts"


def test_a_torch_without_torch_version_xpu_is_read_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, cuda=True, driver="580.65.06", version="2.3.1+cu121",
                             has_xpu_attribute=False)
    assert cell["here"] == torch.device("cuda")
    assert "--index-url" not in cell["upgrade_command"]()


def test_a_finished_setup_cell_decides_the_device(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Where the setup cell ran, its `device` is used as it is."""
    cell = stopped_preflight(monkeypatch, tmp_path, version="2.12.0", device=torch.device("xpu"))
    assert cell["here"] == torch.device("xpu")


def test_a_missing_compiler_is_a_warning_not_a_failure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only the lessons that compile with Inductor need a C++ compiler: a laptop without one is not turned away."""
    cell = stopped_preflight(monkeypatch, tmp_path, version="2.12.0", device=torch.device("cpu"))
    monkeypatch.setattr(torch, "compile", lambda *args, **kwargs: (_ for _ in ()).throw(RuntimeError("no g++")))
    row = cell["check_inductor"]()
    assert (row.status, row.required, row.see) == ("warn", False, "no-compiler"), row
    # the fix says it is optional on every system (Windows' Build Tools are an hour's install)
    assert [fix for fix in [row.fix, *cell["FIXES"].values()] if not fix.startswith("optional: ")] == [], row.fix


def test_a_cuda_build_on_a_machine_without_an_nvidia_gpu_is_a_warning_with_the_cpu_wheel(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The CUDA build runs on the CPU, with 2.7 GB of NVIDIA libraries it cannot use: amber, and the CPU wheel."""
    cell = stopped_preflight(monkeypatch, tmp_path, version="2.12.0+cu130", device=torch.device("cpu"))
    row = cell["check_device"]()
    assert row.status == "warn" and "a CUDA build of torch (12.6), but no NVIDIA GPU" in row.found, row
    assert f"--index-url {INDEX}cpu`" in row.fix, row.fix


@pytest.mark.parametrize("cuda", [None, "12.6"], ids=["a CPU build", "on Colab"])
def test_a_cpu_build_or_colab_gets_no_note_about_cuda_libraries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                cuda: str | None) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, version="2.12.0", colab=cuda is not None)
    monkeypatch.setattr(torch.version, "cuda", cuda)
    row = cell["check_device"]()
    assert row.status == "warn" and row.found == "none: the CPU is used", row


@pytest.mark.parametrize(("version", "status"), [("2.11.0", "FAIL"), ("2.12.0", "ok"), ("2.12.1", "ok"),
                                                 ("2.13.0", "warn"), ("2.15.0+cu130", "warn")])
def test_the_torch_row_is_amber_on_a_release_other_than_the_books(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path, version: str,
                                                                   status: str) -> None:
    cell = stopped_preflight(monkeypatch, tmp_path, version=version)
    row = cell["check_torch"](version)
    assert row.status == status, row
    if status == "warn":
        assert "the lessons run; for the book's outputs: Run `pip install torch==2.12.0" in row.fix, row.fix
