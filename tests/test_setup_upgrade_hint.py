"""The setup cell's upgrade command on an old torch keeps the learner's build (ROCm, XPU, CUDA or CPU).

The stamped snippet is executed as a notebook runs it, with torch's answers replaced: the version, the build
(`torch.version.hip`, `torch.version.xpu`) and whether `torch.cuda` sees a GPU, which a ROCm build answers too.
"""

from __future__ import annotations

import sys
import types

import pytest
import torch
import torch.utils.benchmark  # imported unpatched here: it picks its timer on import

from tools.author.stamp import snippet_source

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

INDEX = "https://download.pytorch.org/whl/"


def upgrade_line(monkeypatch: pytest.MonkeyPatch, version: str, hip: str | None = None, xpu: str | None = None,
                 gpu: bool = False, has_xpu_attribute: bool = True) -> str:
    """The message the setup cell stops with on an old torch of this build."""
    monkeypatch.setattr(torch, "__version__", version)
    monkeypatch.setattr(torch.version, "hip", hip)
    if has_xpu_attribute:
        monkeypatch.setattr(torch.version, "xpu", xpu, raising=False)
    else:
        monkeypatch.delattr(torch.version, "xpu", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu)
    with pytest.raises(RuntimeError, match=r"needs PyTorch 2\.12 or newer") as stopped:
        exec(snippet_source("setup"), {"__name__": "setup_cell_under_test"})
    return str(stopped.value)


def test_a_rocm_build_keeps_rocm(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch.cuda.is_available() is true on ROCm: PyPI's plain wheel would replace the build with CUDA's."""
    line = upgrade_line(monkeypatch, "2.11.0+rocm7.1", hip="7.1.25424", gpu=True)
    assert f'pip install --upgrade "torch>=2.12" --index-url {INDEX}rocm7.2`' in line, line


def test_a_rocm_build_without_a_visible_gpu_still_keeps_rocm(monkeypatch: pytest.MonkeyPatch) -> None:
    line = upgrade_line(monkeypatch, "2.10.0+rocm7.0", hip="7.0.51831", gpu=False)
    assert f"--index-url {INDEX}rocm7.2" in line and f"{INDEX}cpu" not in line, line


def test_an_xpu_build_keeps_xpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch.cuda sees nothing on an Intel GPU: the CPU index would replace the build with the CPU one."""
    line = upgrade_line(monkeypatch, "2.11.0+xpu", xpu="20250101", gpu=False)
    assert f'pip install --upgrade "torch>=2.12" --index-url {INDEX}xpu`' in line, line


def test_an_xpu_build_on_colab_gets_the_pip_magic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    line = upgrade_line(monkeypatch, "2.11.0+xpu", xpu="20250101")
    assert f'%pip install -q --upgrade "torch>=2.12" --index-url {INDEX}xpu`' in line, line


@pytest.mark.parametrize(("gpu", "expected"), [
    (True, 'pip install --upgrade "torch>=2.12"`'),  # CUDA: PyPI's Linux wheel
    (False, f'pip install --upgrade "torch>=2.12" --index-url {INDEX}cpu`'),
], ids=["nvidia gpu", "no gpu"])
def test_a_torch_older_than_torch_version_xpu_is_decided_by_its_gpu(monkeypatch: pytest.MonkeyPatch, gpu: bool,
                                                                    expected: str) -> None:
    line = upgrade_line(monkeypatch, "2.3.1+cu121", gpu=gpu, has_xpu_attribute=False)
    assert expected in line, line
