"""fused-adagrad's cells that decide by the device: the comparison (bitwise on the CPU, close elsewhere) and the probe.

The single-tensor loop calls `param.addcdiv_(grad, std, value=-clr)`; foreach multiplies `-clr * grad` first and then
calls `_foreach_addcdiv_` with value 1 (torch/optim/adagrad.py). The CPU addcdiv kernel multiplies by value before
it divides, so both compute `p + (-clr * g) / std`; the eager CUDA kernel computes `p + value * (g / std)`, so there
the loop rounds `g / std` and foreach rounds `-clr * g`. Here the notebook's table and assertion cells run on
parameters computed in each order, with `fused_device` set to the CPU or to a GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
import torch

from tools.course import ROOT, cell_source, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

NOTEBOOK = ROOT / "notebooks" / "optimizers-and-compiler" / "fused-adagrad.ipynb"
LR = 0.01
WIDE = (torch.float64, torch.float32)


def code_cell(marker: str) -> str:
    cells = [cell_source(c) for c in read_notebook(NOTEBOOK)["cells"] if c["cell_type"] == "code"]
    found = [source for source in cells if marker in source]
    assert len(found) == 1, f"expected one code cell containing {marker!r}, found {len(found)}"
    return found[0]


def adagrad(dtype: torch.dtype, update: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, float], torch.Tensor],
            steps: int = 5) -> list[torch.Tensor]:
    """Five Adagrad steps (lr_decay 0, eps 1e-10) on a seeded parameter, with `update(p, g, std, -clr)`."""
    torch.manual_seed(0)
    p = torch.randn(64, 64, dtype=dtype)
    state_sum = torch.zeros_like(p)
    for _ in range(steps):
        g = torch.randn(64, 64, dtype=dtype)
        state_sum += g * g
        p = update(p, g, state_sum.sqrt() + 1e-10, -LR)
    return [p]


def cpu_order(p: torch.Tensor, g: torch.Tensor, std: torch.Tensor, value: float) -> torch.Tensor:
    return p + value * g / std  # the CPU addcdiv kernel, and foreach's _foreach_mul then addcdiv with value 1


def cuda_loop_order(p: torch.Tensor, g: torch.Tensor, std: torch.Tensor, value: float) -> torch.Tensor:
    """The eager CUDA addcdiv, value * (g / std) added with one rounding (an FMA, emulated in float64)."""
    quotient = g / std
    if p.dtype == torch.float32:
        return (p.double() + value * quotient.double()).float()
    return p + value * quotient


def fused_order(p: torch.Tensor, g: torch.Tensor, std: torch.Tensor, value: float) -> torch.Tensor:
    """Another order of the same formula, as the fused kernel has its own."""
    return p - (g / std) * -value


def scaled_by(factor: float) -> Callable[[torch.Tensor, torch.Tensor, torch.Tensor, float], torch.Tensor]:
    def update(p: torch.Tensor, g: torch.Tensor, std: torch.Tensor, value: float) -> torch.Tensor:
        return cpu_order(p, g, std, value * factor)

    return update


def run_cells(fused_device: str, single: Callable[..., torch.Tensor], foreach: Callable[..., torch.Tensor]) -> None:
    """The notebook's table cell and assertion cell, with run_adagrad giving these orders of rounding."""

    def run_adagrad(dtype: torch.dtype, flags: dict[str, bool]) -> list[torch.Tensor]:
        if dtype not in WIDE:  # the short formats are not what this test is about
            return adagrad(dtype, cpu_order)
        if flags.get("fused"):
            return adagrad(dtype, fused_order)
        return adagrad(dtype, foreach if flags.get("foreach") else single)

    namespace: dict[str, Any] = {"__name__": "fused_adagrad_under_test", "torch": torch, "pd": pd, "LR": LR,
                                 "fused_device": torch.device(fused_device), "run_adagrad": run_adagrad,
                                 "implementations": {"single-tensor": {"foreach": False}, "foreach": {"foreach": True},
                                                     "fused": {"fused": True}}}
    exec(code_cell("comparison = pd.DataFrame("), namespace)
    exec(code_cell("foreach_bitwise ="), namespace)


def test_the_two_cuda_orders_really_differ() -> None:
    """Without this the GPU cases below would prove nothing."""
    for dtype in WIDE:
        [loop], [batched] = adagrad(dtype, cuda_loop_order), adagrad(dtype, cpu_order)
        assert not torch.equal(loop, batched), dtype


def test_the_cpu_asserts_bitwise_equality_and_passes() -> None:
    run_cells("cpu", cpu_order, cpu_order)


def test_on_a_gpu_the_rounding_difference_is_printed_not_asserted(capsys: pytest.CaptureFixture[str]) -> None:
    run_cells("cuda", cuda_loop_order, cpu_order)
    assert "foreach bitwise equal to the loop on cuda: False" in capsys.readouterr().out


def test_on_the_cpu_a_rounding_difference_fails() -> None:
    with pytest.raises(AssertionError, match="on the CPU, foreach and the loop round alike"):
        run_cells("cpu", cuda_loop_order, cpu_order)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_a_foreach_that_is_off_by_more_than_rounding_fails_everywhere(device: str) -> None:
    with pytest.raises(AssertionError):
        run_cells(device, cpu_order, scaled_by(1.001))


class NoKernelAdagrad:
    """Adagrad as MPS and XPU answer in 2.12: fused=True is accepted, and the first step fails off the CPU."""

    def __init__(self, params: Any, **kwargs: Any) -> None:
        self.params = list(params)

    def step(self) -> None:
        if self.params[0].device.type != "cpu":
            raise NotImplementedError("Could not run 'aten::_fused_adagrad_' with arguments from this backend")


def run_probe(device: str, monkeypatch: pytest.MonkeyPatch) -> tuple[torch.device, list[str]]:
    """The notebook's probe cell on `device`, with torch.optim.Adagrad answering as NoKernelAdagrad."""
    monkeypatch.setattr(torch.optim, "Adagrad", NoKernelAdagrad)
    skipped: list[str] = []
    namespace: dict[str, Any] = {"__name__": "fused_adagrad_probe", "torch": torch, "device": torch.device(device),
                                 "skip": skipped.append}
    exec(code_cell("def fused_adagrad_runs_on("), namespace)
    return namespace["fused_device"], skipped


def test_a_device_without_the_kernel_falls_back_to_the_cpu_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    fused_device, skipped = run_probe("meta", monkeypatch)  # stands in for mps or xpu
    assert fused_device == torch.device("cpu")
    assert len(skipped) == 1 and "no fused Adagrad kernel for meta" in skipped[0]


def test_the_cpu_keeps_its_own_kernel_without_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_probe("cpu", monkeypatch) == (torch.device("cpu"), [])


def test_a_torch_without_the_cpu_kernel_fails_the_probe_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_kernel_anywhere(self: NoKernelAdagrad) -> None:
        raise RuntimeError("no fused Adagrad kernel")

    monkeypatch.setattr(NoKernelAdagrad, "step", no_kernel_anywhere)
    with pytest.raises(AssertionError, match=r"the CPU has had one since 2\.4"):
        run_probe("cpu", monkeypatch)
