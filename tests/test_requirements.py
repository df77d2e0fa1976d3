"""torch is a floor, never a pin, and Binder installs the same packages with CPU-only torch."""

from __future__ import annotations

from tools.course import ROOT


def _requirements(path: str) -> list[str]:
    lines = (ROOT / path).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_torch_is_a_floor() -> None:
    torch_lines = [line for line in _requirements("requirements.txt") if line.startswith("torch")]
    assert torch_lines == ["torch>=2.12"]


def test_binder_has_the_same_packages_with_cpu_wheels() -> None:
    binder = _requirements("binder/requirements.txt")
    options = [line for line in binder if line.startswith("--")]
    assert options == ["--extra-index-url https://download.pytorch.org/whl/cpu"]
    assert [line for line in binder if not line.startswith("--")] == _requirements("requirements.txt")
