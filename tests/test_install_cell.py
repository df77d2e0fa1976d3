"""The install cell that opens every notebook (tools/snippets/install.py), on simulated runtimes.

The stamped snippet runs as a notebook runs it, with the machine replaced: the installed torch (what
importlib.metadata answers), the tools on PATH (a fake `nvidia-smi` that prints a driver version, `rocm-smi`,
`xpu-smi`), Colab (a `google.colab` module), pip and the kernel restart (recorded, never run).
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tools.author.stamp import snippet_source
from tools.course import taught_release

INDEX = "https://download.pytorch.org/whl"
TAUGHT = taught_release()


class Runtime:
    """One simulated machine: what the install cell printed, asked pip for, and whether it restarted."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        self.monkeypatch = monkeypatch
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        monkeypatch.setenv("PATH", str(self.bin))
        self.pip_calls: list[list[str]] = []
        self.restarts = 0
        real_run = subprocess.run

        def run(command: list[str], *args: Any, **kwargs: Any) -> Any:
            if command[:3] == [sys.executable, "-m", "pip"]:
                self.pip_calls.append(command[3:])
                return subprocess.CompletedProcess(command, 0)
            return real_run(command, *args, **kwargs)

        monkeypatch.setattr(subprocess, "run", run)

    def torch(self, version: str | None) -> Runtime:
        def installed(name: str) -> str:
            if name == "torch" and version is not None:
                return version
            raise importlib.metadata.PackageNotFoundError(name)

        self.monkeypatch.setattr(importlib.metadata, "version", installed)
        return self

    def tool(self, name: str, prints: str = "") -> Runtime:
        script = self.bin / name
        script.write_text(f"#!/bin/sh\necho '{prints}'\n")
        script.chmod(0o755)
        return self

    def nvidia(self, driver: str, capability: str = "8.6") -> Runtime:
        """nvidia-smi answering --query-gpu=driver_version,compute_cap; capability "": a driver too old to know
        that field, which then fails that query and answers the driver's alone."""
        script = self.bin / "nvidia-smi"
        if capability:
            script.write_text(f"#!/bin/sh\necho '{driver}, {capability}'\n")
        else:
            script.write_text(f'#!/bin/sh\ncase "$1" in *compute_cap*) exit 2;; esac\necho {driver}\n')
        script.chmod(0o755)
        return self

    def system(self, name: str) -> Runtime:
        import platform

        self.monkeypatch.setattr(platform, "system", lambda: name)
        return self

    def colab(self) -> Runtime:
        self.monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
        kernel = types.SimpleNamespace(do_shutdown=self._restart)
        application = types.SimpleNamespace(instance=lambda: types.SimpleNamespace(kernel=kernel))
        self.monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(Application=application))
        return self

    def _restart(self, restart: bool) -> None:
        assert restart, "the cell must restart the kernel, not shut it down"
        self.restarts += 1

    def run_cell(self) -> dict[str, Any]:
        namespace: dict[str, Any] = {"__name__": "install_cell_under_test"}
        exec(snippet_source("install"), namespace)
        return namespace

    def run_cell_definitions(self) -> dict[str, Any]:
        """The cell's functions, without its last line (the call that installs or stops)."""
        namespace: dict[str, Any] = {"__name__": "install_cell_under_test"}
        source = snippet_source("install")
        assert source.rstrip().endswith("\ninstall_taught_torch()"), "the cell ends with its one call"
        exec(source.rstrip().removesuffix("install_taught_torch()"), namespace)
        return namespace


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Runtime:
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    return Runtime(monkeypatch, tmp_path)


def stops_with(runtime: Runtime) -> str:
    with pytest.raises(RuntimeError, match=f"runs on PyTorch {TAUGHT}") as stopped:
        runtime.run_cell()
    assert not runtime.pip_calls and not runtime.restarts, "outside Colab the cell never installs"
    return str(stopped.value)


def test_the_cell_pins_the_taught_release() -> None:
    assert f'TAUGHT_TORCH = "{TAUGHT}"' in snippet_source("install"), "constraints.txt and the cell disagree"


@pytest.mark.parametrize("version", [f"{TAUGHT}+cu130", f"{TAUGHT}+cpu", TAUGHT.rsplit(".", 1)[0] + ".1"])
def test_the_taught_release_present_does_nothing(runtime: Runtime, version: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    runtime.torch(version).colab().nvidia("550.54.15").run_cell()
    assert not runtime.pip_calls and not runtime.restarts
    assert "nothing to do" in capsys.readouterr().out


def test_a_newer_torch_outside_colab_runs_and_says_the_outputs_differ(
        runtime: Runtime, capsys: pytest.CaptureFixture[str]) -> None:
    """The version matrix runs every notebook on newer releases: the cell must let them run."""
    runtime.torch("2.15.0").run_cell()
    assert not runtime.pip_calls and "outputs differ" in capsys.readouterr().out


Simulate = Callable[[Runtime], Runtime]


@pytest.mark.parametrize(("machine", "pip_arguments"), [
    (lambda r: r.torch("2.15.0"), f"torch=={TAUGHT} --index-url {INDEX}/cpu"),
    (lambda r: r.torch(None), f"torch=={TAUGHT} --index-url {INDEX}/cpu"),
    (lambda r: r.torch("2.9.0+cu126").nvidia("550.54.15"), f"torch=={TAUGHT} --index-url {INDEX}/cu126"),
    (lambda r: r.torch("2.15.0+cu130").nvidia("580.82.07"), f"torch=={TAUGHT}"),
    (lambda r: r.torch("2.9.0+cu126").nvidia("590.44.01"), f"torch=={TAUGHT}"),
], ids=["cpu runtime, newer torch", "cpu runtime, no torch", "T4, driver 550: cu126", "driver 580: PyPI's CUDA 13",
        "driver 590: PyPI's CUDA 13"])
def test_colab_installs_the_right_wheel_and_restarts(runtime: Runtime, machine: Simulate, pip_arguments: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    machine(runtime.colab()).run_cell()
    assert runtime.pip_calls == [["install", "-q", *pip_arguments.split()]]
    assert runtime.restarts == 1
    assert "run the notebook again from the top" in capsys.readouterr().out


@pytest.mark.parametrize(("machine", "command"), [
    (lambda r: r.torch("2.11.0+cu128").nvidia("575.57.08"), f"pip install torch=={TAUGHT} --index-url {INDEX}/cu126`"),
    (lambda r: r.torch("2.11.0+cu128").nvidia("580.65.06"), f"pip install torch=={TAUGHT}`"),
    (lambda r: r.torch("2.11.0"), f"pip install torch=={TAUGHT} --index-url {INDEX}/cpu`"),
    (lambda r: r.torch(None), f"pip install torch=={TAUGHT} --index-url {INDEX}/cpu`"),
    (lambda r: r.torch("2.11.0+rocm7.1").nvidia("580.65.06"), f"--index-url {INDEX}/rocm7.2`"),
    (lambda r: r.torch(None).tool("rocm-smi"), f"--index-url {INDEX}/rocm7.2`"),
    (lambda r: r.torch("2.11.0+xpu"), f"--index-url {INDEX}/xpu`"),
    (lambda r: r.torch(None).tool("xpu-smi"), f"--index-url {INDEX}/xpu`"),
], ids=["old torch, driver 575", "old torch, driver 580", "old torch, no gpu", "no torch, no gpu",
        "rocm build", "rocm machine, no torch", "xpu build", "xpu machine, no torch"])
def test_outside_colab_an_old_torch_stops_with_the_command(runtime: Runtime, machine: Simulate, command: str) -> None:
    message = stops_with(machine(runtime))
    assert command in message, message


@pytest.mark.parametrize("machine", [lambda r: r.torch("2.11.0+rocm7.1"), lambda r: r.torch("2.11.0+xpu")],
                         ids=["rocm", "xpu"])
def test_colab_never_installs_a_rocm_or_xpu_build(runtime: Runtime, machine: Simulate) -> None:
    """Those builds come from PyTorch's own indexes for local machines: the cell says what to run instead."""
    stops_with(machine(runtime.colab()))


def test_an_unreadable_driver_counts_as_no_gpu(runtime: Runtime) -> None:
    runtime.torch(None).tool("nvidia-smi", "")  # prints nothing, as on a machine whose driver is not loaded
    assert f"{INDEX}/cpu" in stops_with(runtime)


def test_a_mac_gets_pypis_wheel(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """PyPI's macOS wheel carries the CPU and the MPS backends; the CPU index would be wrong advice there."""
    import platform

    monkeypatch.setattr(platform, "system", lambda: "Darwin")
    assert stops_with(runtime.torch("2.11.0")).endswith(f"Run `pip install torch=={TAUGHT}`, then restart.")


# ---- the plan on every machine: system x driver x compute capability, ROCm, XPU, Colab ---------------------------

CU126, CU130 = f"torch=={TAUGHT} --index-url {INDEX}/cu126", f"torch=={TAUGHT} --index-url {INDEX}/cu130"
PYPI = f"torch=={TAUGHT}"


@pytest.mark.parametrize(("system", "driver", "capability", "pip_arguments"), [
    ("Linux", "580.65.06", "9.0", PYPI),
    ("Linux", "575.57.08", "9.0", CU126),
    ("Linux", "590.44.01", "12.0", PYPI),
    ("Linux", "580.65.06", "6.1", CU126),
    ("Linux", "580.65.06", "7.0", CU126),
    ("Linux", "550.54.15", "", CU126),
    ("Linux", "590.44.01", "", PYPI),
    ("Windows", "581.57", "8.9", CU130),
    ("Windows", "581.57", "12.0", CU130),
    ("Windows", "566.36", "8.6", CU126),
    ("Windows", "581.57", "6.1", CU126),
], ids=["linux H100 driver 580: PyPI's CUDA 13", "linux H100 driver 575: cu126", "linux RTX 5090 driver 590",
        "linux Pascal driver 580: only cu126 has sm_61", "linux V100 driver 580: only cu126 has sm_70",
        "linux old nvidia-smi without compute_cap, driver 550", "same, driver 590",
        "windows RTX 4090 driver 581: cu130 index, not PyPI's CPU wheel", "windows RTX 5090 driver 581",
        "windows RTX 3080 driver 566: cu126", "windows GTX 1080 driver 581: cu126"])
def test_an_nvidia_machine_gets_the_build_with_kernels_for_its_gpu(
        runtime: Runtime, system: str, driver: str, capability: str, pip_arguments: str) -> None:
    runtime.torch("2.11.0+cpu").system(system).nvidia(driver, capability)
    plan = runtime.run_cell_definitions()["machine_plan"]()
    assert (plan.build, plan.pip_arguments, plan.driver_update) == ("cuda", pip_arguments, ""), plan


@pytest.mark.parametrize(("system", "capability", "pip_arguments"), [
    ("Linux", "12.0", PYPI), ("Linux", "10.0", PYPI), ("Windows", "12.0", CU130)],
    ids=["linux RTX 5090", "linux B200", "windows RTX 5090"])
def test_a_blackwell_gpu_below_driver_580_is_told_in_one_line_to_update_the_driver(
        runtime: Runtime, system: str, capability: str, pip_arguments: str) -> None:
    """CUDA 12.6, the only 2.12.0 build for drivers below 580, has no Blackwell kernels (RELEASE.md's matrix)."""
    runtime.torch("2.11.0").system(system).nvidia("572.16", capability)
    message = stops_with(runtime)
    expected = (f"Update the NVIDIA driver (here 572.16) to 580 or newer: compute capability {capability} needs "
                f"CUDA 13; then run `pip install {pip_arguments}`, then restart.")
    assert message.endswith(expected) and "\n" not in message, message


def test_colab_never_installs_a_build_without_kernels_for_its_gpu(runtime: Runtime) -> None:
    runtime.colab().torch("2.9.0+cu126").nvidia("570.00", "12.0")
    assert "Update the NVIDIA driver" in stops_with(runtime)


@pytest.mark.parametrize(("system", "pip_arguments"), [
    ("Windows", f"torch=={TAUGHT} --index-url {INDEX}/cpu"), ("Linux", f"torch=={TAUGHT} --index-url {INDEX}/cpu"),
    ("Darwin", PYPI)])
def test_without_an_nvidia_gpu_each_system_gets_its_cpu_wheel(runtime: Runtime, system: str,
                                                               pip_arguments: str) -> None:
    runtime.torch("2.11.0").system(system)
    assert stops_with(runtime).endswith(f"Run `pip install {pip_arguments}`, then restart.")


@pytest.mark.parametrize("system", ["Linux", "Windows"])
@pytest.mark.parametrize(("tool", "index"), [("rocm-smi", "rocm7.2"), ("amd-smi", "rocm7.2"), ("xpu-smi", "xpu")])
def test_rocm_and_xpu_keep_their_index_beside_an_nvidia_driver(runtime: Runtime, system: str, tool: str,
                                                                index: str) -> None:
    runtime.torch(None).system(system).tool(tool).nvidia("580.65.06", "9.0")
    assert f"--index-url {INDEX}/{index}`" in stops_with(runtime)
