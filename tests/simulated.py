"""What the tests that simulate an accelerator share: the setup cell's allocation probe, answered without one."""

from __future__ import annotations

from typing import Any

import pytest
import torch


def accelerator_allocates(monkeypatch: pytest.MonkeyPatch, error: str | None = None) -> None:
    """torch.ones on a simulated accelerator (the setup cell's probe) gives a CPU tensor, or raises RuntimeError(error)
    as an accelerator that reports itself available and cannot allocate does."""
    real_ones = torch.ones

    def ones(*size: int, device: torch.device | str | None = None, **kwargs: Any) -> torch.Tensor:
        if error is not None and device is not None and torch.device(device).type != "cpu":
            raise RuntimeError(error)
        return real_ones(*size, **kwargs)

    monkeypatch.setattr(torch, "ones", ones)
