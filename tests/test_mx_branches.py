"""The MX lessons' cells that decide by the device, run on devices we do not have.

Two kinds of decision. Where the MX arithmetic runs: a device qualifies when this torch can cast to float8 and read
E8M0 there (MPS has no float8 dtypes: torch raises a TypeError naming the MPS backend), otherwise the lessons compute
on the CPU. And which scale layout the hardware MX matmul needs: `mx_matmul_swizzle` in mx-matmul follows PyTorch's
`PLATFORM_SUPPORTS_MX_GEMM` (torch/testing/_internal/common_cuda.py): CUDA compute capability 10.0 or newer, or
ROCm 7+ on gfx950. Here the cells run with torch's answers replaced to simulate each device.
"""

from __future__ import annotations

import types
from typing import Any

import pytest
import torch
import torch.nn.functional as F

from tools.course import ROOT, cell_source, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

FOLDER = ROOT / "notebooks" / "mx-quantization"
FLOAT8 = (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e8m0fnu)
MPS_REFUSAL = "Trying to convert Float8_e4m3fn to the MPS backend but it does not have support for that dtype."


def code_cells(name: str, marker: str) -> list[str]:
    cells = [cell_source(c) for c in read_notebook(FOLDER / f"{name}.ipynb")["cells"] if c["cell_type"] == "code"]
    return [source for source in cells if marker in source]


def one_cell(name: str, marker: str) -> str:
    found = code_cells(name, marker)
    assert len(found) == 1, f"{name}: expected one code cell containing {marker!r}, found {len(found)}"
    return found[0]


def refuse_float8(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every cast to a float8 dtype raise as it does on MPS."""
    real_to = torch.Tensor.to

    def to(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        if any(arg in FLOAT8 for arg in args) or kwargs.get("dtype") in FLOAT8:
            raise TypeError(MPS_REFUSAL)
        return real_to(self, *args, **kwargs)

    monkeypatch.setattr(torch.Tensor, "to", to)


def run(sources: list[str], device: torch.device) -> tuple[dict[str, Any], list[str]]:
    """Run cells after a minimal stand-in for the setup cell; return the namespace and the skip lines."""
    skipped: list[str] = []
    namespace: dict[str, Any] = {"__name__": "mx_lesson_under_test", "torch": torch, "device": device,
                                 "platform_name": device.type, "skip": skipped.append, "F": F}
    for source in sources:
        exec(source, namespace)
    return namespace, skipped


@pytest.mark.parametrize("name", ["mx-from-first-principles", "mx-blocks"])
def test_the_float8_probe_accepts_the_cpu(name: str) -> None:
    cell, skipped = run(code_cells(name, "def float8_works_on("), torch.device("cpu"))
    assert cell["mx_device"] == torch.device("cpu") and skipped == []


@pytest.mark.parametrize("name", ["mx-from-first-principles", "mx-blocks"])
def test_a_device_without_float8_falls_back_to_the_cpu(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cell, _ = run(code_cells(name, "def float8_works_on("), torch.device("cpu"))
    refuse_float8(monkeypatch)
    assert cell["float8_works_on"](torch.device("cpu")) is False


@pytest.mark.parametrize("name", ["mx-from-first-principles", "mx-blocks"])
def test_a_mac_computes_on_the_cpu_and_says_so(name: str) -> None:
    # torch.tensor(device="mps") raises on a machine without MPS, and a cast to float8 raises on one with it:
    # either way the probe must answer False, and the cell must say what it skips.
    cell, skipped = run(code_cells(name, "def float8_works_on("), torch.device("mps"))
    assert cell["mx_device"] == torch.device("cpu")
    assert skipped and "no float8 dtypes on mps" in skipped[0]


def accuracy_probe() -> list[str]:
    helpers = [*code_cells("mx-accuracy", "tools/snippets/mx_formats.py"),
               *code_cells("mx-accuracy", "tools/snippets/mx_quantizer.py")]
    assert len(helpers) == 2, "mx-accuracy carries the MX formats and quantizer in two stamped cells"
    return [*helpers, one_cell("mx-accuracy", "def mx_works_on(")]


def test_the_quantizer_probe_accepts_the_cpu() -> None:
    cell, _ = run(accuracy_probe(), torch.device("cpu"))
    assert cell["mx_device"] == torch.device("cpu")


def test_the_quantizer_probe_refuses_a_device_without_float8(monkeypatch: pytest.MonkeyPatch) -> None:
    cell, _ = run(accuracy_probe(), torch.device("cpu"))
    refuse_float8(monkeypatch)
    assert cell["mx_works_on"](torch.device("cpu")) is False
    monkeypatch.undo()
    assert run(accuracy_probe(), torch.device("mps"))[0]["mx_device"] == torch.device("cpu")


def swizzle_on(monkeypatch: pytest.MonkeyPatch, device_type: str, hip: str | None = None,
               capability: tuple[int, int] = (0, 0), arch: str = "") -> tuple[Any, str]:
    """mx_matmul_swizzle's answer on a simulated device."""
    monkeypatch.setattr(torch.version, "hip", hip)
    properties = types.SimpleNamespace(gcnArchName=arch, name="simulated GPU")
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _device=None: properties)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda _device=None: capability)
    cell, _ = run([one_cell("mx-matmul", "def mx_matmul_swizzle(")], torch.device(device_type))
    return cell["mx_matmul_swizzle"]()


@pytest.mark.parametrize("capability", [(10, 0), (10, 3), (12, 0)])
def test_blackwell_gets_the_cublas_swizzle(monkeypatch: pytest.MonkeyPatch, capability: tuple[int, int]) -> None:
    assert swizzle_on(monkeypatch, "cuda", capability=capability) == (F.SwizzleType.SWIZZLE_32_4_4, "")


@pytest.mark.parametrize("capability", [(8, 0), (8, 9), (9, 0)])
def test_older_nvidia_gpus_are_skipped_with_their_capability(monkeypatch: pytest.MonkeyPatch,
                                                              capability: tuple[int, int]) -> None:
    swizzle, reason = swizzle_on(monkeypatch, "cuda", capability=capability)
    assert swizzle is None and "10.0+" in reason and str(capability) in reason


def test_mi350_on_rocm_7_takes_scales_as_they_are(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = swizzle_on(monkeypatch, "cuda", hip="7.0.51831", arch="gfx950:sramecc+:xnack-")
    assert answer == (F.SwizzleType.NO_SWIZZLE, "")


@pytest.mark.parametrize(("hip", "arch"), [("6.4.43482", "gfx950"), ("7.0.51831", "gfx942:sramecc+:xnack-")])
def test_rocm_needs_both_version_7_and_gfx950(monkeypatch: pytest.MonkeyPatch, hip: str, arch: str) -> None:
    swizzle, reason = swizzle_on(monkeypatch, "cuda", hip=hip, arch=arch)
    assert swizzle is None and "ROCm 7+ and gfx950" in reason and arch in reason


def test_xpu_is_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    assert swizzle_on(monkeypatch, "xpu") == (F.SwizzleType.NO_SWIZZLE, "")


@pytest.mark.parametrize("device_type", ["mps", "cpu"])
def test_no_kernel_elsewhere(monkeypatch: pytest.MonkeyPatch, device_type: str) -> None:
    swizzle, reason = swizzle_on(monkeypatch, device_type)
    assert swizzle is None and reason.endswith(f"no MX matmul kernel for {device_type}")

