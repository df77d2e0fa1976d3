"""The pre-flight after a stopped setup cell, on machines this one is not: a Colab GPU runtime, ROCm, XPU, a Mac,
an NVIDIA driver that torch cannot use, and a CPU-only laptop.

On a torch older than 2.12 the setup cell stops before it defines `device`, so the pre-flight decides the device
itself. Each test defines the pre-flight's checks as on such a machine (torch's answers replaced), then reads the
rows that depend on the machine: the device row and the torch row's upgrade command.
"""

from __future__ import annotations

import shutil
import sys
import types
from typing import Any

import pytest
import torch
import torch.utils.benchmark  # imported unpatched here: it picks its timer on import

from tools.course import ROOT, cell_source, cell_tags, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

PREFLIGHT = ROOT / "notebooks" / "workshop" / "preflight.ipynb"
INDEX = "https://download.pytorch.org/whl/"


def stopped_preflight(monkeypatch: pytest.MonkeyPatch, *, system: str = "Linux", cuda: bool = False,
                      hip: str | None = None, xpu: str | None = None, xpu_seen: bool = False, mps: bool = False,
                      nvidia_smi: bool = False, colab: bool = False, version: str = "2.10.0",
                      has_xpu_attribute: bool = True, device: torch.device | None = None) -> dict[str, Any]:
    """The pre-flight's definitions on a machine whose setup cell stopped (no `device`), as described."""
    monkeypatch.setattr(torch, "__version__", version)
    monkeypatch.setattr(torch.version, "hip", hip)
    if has_xpu_attribute:
        monkeypatch.setattr(torch.version, "xpu", xpu, raising=False)
    else:  # torch.version.xpu is newer than some old torch
        monkeypatch.delattr(torch.version, "xpu", raising=False)
    monkeypatch.setattr(torch.version, "cuda", None if hip or xpu else "12.6")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.xpu, "is_available", lambda: xpu_seen)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *rest: "/usr/bin/nvidia-smi" if name == "nvidia-smi" and
                        nvidia_smi else None if name == "nvidia-smi" else which(name, *rest))
    if colab:
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    module = types.ModuleType("preflight_under_test")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look their module up
    namespace: dict[str, Any] = module.__dict__
    exec("import platform", namespace)
    if device is not None:  # the setup cell finished
        namespace["device"] = device
    monkeypatch.setattr(namespace["platform"], "system", lambda: system)
    for cell in read_notebook(PREFLIGHT)["cells"]:
        source = cell_source(cell)
        if cell["cell_type"] != "code" or "stamp:setup" in cell_tags(cell):
            continue
        if "CHECKS = [" in source:
            break
        exec(source, namespace)
    return namespace


def test_a_colab_gpu_runtime_keeps_its_gpu_and_pypis_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The case the review found: before the fix the pre-flight reasoned as on a CPU, so it reported 'an NVIDIA
    GPU, but torch cannot use it' and told a Colab GPU runtime to install the CPU wheel."""
    cell = stopped_preflight(monkeypatch, cuda=True, nvidia_smi=True, colab=True, version="2.9.0+cu126")
    assert cell["here"] == torch.device("cuda")
    row = cell["check_device"]()
    assert (row.status, row.found) == ("ok", "cuda"), row
    torch_row = cell["check_torch"]()
    assert torch_row.status == "FAIL" and torch_row.see == "old-torch"
    assert torch_row.fix == '%pip install -q "torch==2.12.*", then Runtime > Restart session', torch_row.fix


def test_a_rocm_build_keeps_rocm(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = stopped_preflight(monkeypatch, cuda=True, hip="7.1.25424", version="2.11.0+rocm7.1")
    assert cell["here"] == torch.device("cuda") and cell["check_device"]().status == "ok"
    expected = f'pip install "torch==2.12.*" --index-url {INDEX}rocm7.2, then restart the kernel'
    assert cell["upgrade_command"]() == expected


def test_an_xpu_build_keeps_xpu(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = stopped_preflight(monkeypatch, xpu="20250101", xpu_seen=True, version="2.11.0+xpu")
    assert cell["here"] == torch.device("xpu") and cell["check_device"]().status == "ok"
    assert f"--index-url {INDEX}xpu," in cell["upgrade_command"]()


def test_an_xpu_build_that_sees_no_gpu_still_keeps_xpu(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = stopped_preflight(monkeypatch, xpu="20250101", xpu_seen=False, version="2.11.0+xpu")
    assert cell["here"] == torch.device("cpu")
    assert f"--index-url {INDEX}xpu," in cell["upgrade_command"]()


def test_a_mac_sees_mps_and_keeps_pypis_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = stopped_preflight(monkeypatch, system="Darwin", mps=True)
    assert cell["here"] == torch.device("mps") and cell["check_device"]().status == "ok"
    assert "--index-url" not in cell["upgrade_command"]()


def test_an_nvidia_driver_that_torch_cannot_use_is_still_red(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = stopped_preflight(monkeypatch, cuda=False, nvidia_smi=True, version="2.11.0+cu130")
    row = cell["check_device"]()
    assert (row.status, row.see) == ("FAIL", "driver-mismatch") and "cannot use it" in row.found


@pytest.mark.parametrize("colab", [False, True], ids=["laptop", "colab cpu runtime"])
def test_a_cpu_only_machine_gets_the_cpu_wheel(monkeypatch: pytest.MonkeyPatch, colab: bool) -> None:
    cell = stopped_preflight(monkeypatch, colab=colab)
    assert cell["here"] == torch.device("cpu")
    assert cell["check_device"]().status == "warn"
    assert f'"torch==2.12.*" --index-url {INDEX}cpu, then' in cell["upgrade_command"]()


def test_a_torch_without_torch_version_xpu_is_read_too(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = stopped_preflight(monkeypatch, cuda=True, nvidia_smi=True, version="2.3.1+cu121", has_xpu_attribute=False)
    assert cell["here"] == torch.device("cuda")
    assert "--index-url" not in cell["upgrade_command"]()


def test_a_finished_setup_cell_decides_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the setup cell ran, its `device` is used as it is."""
    cell = stopped_preflight(monkeypatch, version="2.12.0", device=torch.device("xpu"))
    assert cell["here"] == torch.device("xpu")
