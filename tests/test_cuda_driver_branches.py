"""cuda.ipynb's driver check on machines this one is not: a GPU with a fitting driver, one under NVIDIA's
forward compatibility (cuda-compat: a newer user-mode libcuda over an older kernel driver), and a contradiction.

The cells are taken from the notebook; nvidia-smi's header and the loaded libcuda's answer are replaced.
"""

from __future__ import annotations

import ctypes
import platform
from typing import Any

import pytest
import torch

from tools.course import ROOT, cell_source, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

CUDA = ROOT / "notebooks" / "platforms" / "cuda.ipynb"


def cell_with(marker: str) -> str:
    cells = [cell_source(c) for c in read_notebook(CUDA)["cells"] if c["cell_type"] == "code"]
    found = [source for source in cells if marker in source]
    assert len(found) == 1, f"expected one code cell with {marker!r}, found {len(found)}"
    return found[0]


def driver_cell(monkeypatch: pytest.MonkeyPatch, platform_name: str, smi: tuple[str | None, str | None],
                libcuda: str | None, runtime: str | None = "13.0") -> tuple[dict[str, Any], list[str]]:
    """Run the driver check as on a machine whose kernel driver is `smi` and whose loaded libcuda is `libcuda`."""
    monkeypatch.setattr(torch.version, "cuda", runtime)
    skipped: list[str] = []
    namespace: dict[str, Any] = {"torch": torch, "platform": platform, "platform_name": platform_name,
                                 "skip": skipped.append}
    exec(cell_with("def driver_fits("), namespace)
    exec(cell_with("def driver_versions("), namespace)
    namespace["driver_versions"] = lambda: smi
    namespace["loaded_driver_cuda"] = lambda: libcuda
    monkeypatch.setattr(platform, "system", lambda: "Linux")
    exec(cell_with("driver, driver_cuda = driver_versions()"), namespace)
    return namespace, skipped


def test_a_fitting_driver_passes(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cell, skipped = driver_cell(monkeypatch, "cuda", ("580.95.05", "13.0"), "13.0")
    out = capsys.readouterr().out
    assert cell["fits"] and "the kernel driver fits CUDA 13.0" in out and "forward compatibility" not in out
    assert not skipped


def test_forward_compatibility_is_reported_not_failed(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """An H100 in an NGC container: kernel driver 535 (CUDA 12.2), cuda-compat-13-0's libcuda loaded. The
    cu130 wheel runs there; before the fix the cell asserted that the kernel driver fits, and failed."""
    cell, _ = driver_cell(monkeypatch, "cuda", ("535.183.01", "12.2"), "13.0")
    out = capsys.readouterr().out
    assert not cell["fits"] and "does NOT fit" in out
    assert "forward compatibility: the loaded libcuda (CUDA 13.0) is newer" in out


@pytest.mark.parametrize("libcuda", ["12.2", None], ids=["libcuda too old", "no libcuda answer"])
def test_a_working_cuda_whose_libcuda_cannot_run_the_wheel_fails(monkeypatch: pytest.MonkeyPatch,
                                                                 libcuda: str | None) -> None:
    with pytest.raises(AssertionError):
        driver_cell(monkeypatch, "cuda", ("535.183.01", "12.2"), libcuda)


def test_without_a_driver_the_cell_says_what_it_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    _, skipped = driver_cell(monkeypatch, "cpu", (None, None), None)
    assert len(skipped) == 1 and "no NVIDIA driver" in skipped[0]


def test_an_nvidia_driver_without_a_gpu_in_use_is_only_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ROCm or CPU run on a machine that also has an old NVIDIA driver: no assertion, no skip line."""
    cell, skipped = driver_cell(monkeypatch, "rocm", ("470.82.01", "11.4"), None)
    assert cell["fits"] is False and not skipped


class FakeLibcuda:
    def __init__(self, version: int, result: int = 0) -> None:
        self.version, self.result = version, result

    def cuDriverGetVersion(self, pointer: Any) -> int:  # the driver API's name
        pointer._obj.value = self.version  # ctypes.byref(c_int) keeps the c_int as _obj
        return self.result


@pytest.mark.parametrize(("library", "expected"), [
    (FakeLibcuda(13000), "13.0"), (FakeLibcuda(12040), "12.4"), (FakeLibcuda(13020), "13.2"),
    (FakeLibcuda(0, result=100), None),  # CUDA_ERROR_NO_DEVICE
    (OSError("libcuda.so.1: cannot open shared object file"), None),
])
def test_the_loaded_driver_answers_for_itself(monkeypatch: pytest.MonkeyPatch, library: Any,
                                              expected: str | None) -> None:
    def cdll(name: str) -> Any:
        assert name in ("libcuda.so.1", "nvcuda.dll")
        if isinstance(library, Exception):
            raise library
        return library

    monkeypatch.setattr(ctypes, "CDLL", cdll)
    namespace: dict[str, Any] = {"platform": platform}
    exec(cell_with("def loaded_driver_cuda("), namespace)
    assert namespace["loaded_driver_cuda"]() == expected
