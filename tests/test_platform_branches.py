"""Branches of the platform lessons that decide by a device's answer, run on devices we do not have.

Each test takes the code from the notebook cell itself and replaces the device's answer: the SMs
an H200's driver grants a green context (cuda), whether a device computes in float64 and which
peer library the eigh benchmark found (batched-eigh), which macOS a Mac runs (mps), and what the
accelerator probe may claim on an NVIDIA GPU (know-your-accelerator).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest
import threadpoolctl
import torch
import torch.utils.benchmark

from tools.author.stamp import snippet_source
from tools.course import ROOT, cell_source, read_notebook

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

NOTEBOOKS = ROOT / "notebooks"
CUDA = NOTEBOOKS / "platforms" / "cuda.ipynb"
MPS = NOTEBOOKS / "platforms" / "mps.ipynb"
EIGH = NOTEBOOKS / "batched-eigh" / "batched-eigh.ipynb"
KYA = NOTEBOOKS / "getting-started" / "know-your-accelerator.ipynb"
PREFLIGHT = NOTEBOOKS / "workshop" / "preflight.ipynb"


def cell_with(path: Path, marker: str) -> str:
    """The source of the one code cell of a notebook that contains `marker`."""
    cells = [cell_source(c) for c in read_notebook(path)["cells"] if c["cell_type"] == "code"]
    found = [source for source in cells if marker in source]
    assert len(found) == 1, f"{path.name}: expected one code cell with {marker!r}, found {len(found)}"
    return found[0]


def definitions(source: str) -> str:
    """Only the imports and function definitions of a cell: what it defines, not what it runs."""
    kept = [node for node in ast.parse(source).body
            if isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef)]
    return ast.unparse(ast.Module(body=kept, type_ignores=[]))


# ---- cuda: green contexts on an H200 ----------------------------------------------------------------------------

class FakeDriver:
    """SM splits as NVIDIA documents them for cuDevSmResourceSplitByCount: a request is rounded up to the
    architecture's minimum and multiple; a group larger than the device cannot be made, and 2.12's
    GreenContext then raises (nb_groups != 1)."""

    def __init__(self, total: int, fewest: int, multiple: int) -> None:
        self.total, self.fewest, self.multiple = total, fewest, multiple

    def grant(self, num_sms: int) -> int:
        if not 0 < num_sms <= self.total:
            raise RuntimeError(f"Invalid number of SMs requested for green context: {num_sms}")
        granted = -(-max(num_sms, self.fewest) // self.multiple) * self.multiple
        if granted > self.total:
            raise RuntimeError("Failed to create single SM resource group")
        return granted


# (name, SMs, compute capability, fewest SMs, multiple): the guideline of the CUDA driver API documentation.
GPUS = [
    ("H200", 132, (9, 0), 8, 8),
    ("H100 PCIe", 114, (9, 0), 8, 8),
    ("B200", 148, (10, 0), 8, 8),
    ("A100", 108, (8, 0), 4, 2),
    ("V100", 80, (7, 0), 2, 2),
]


@pytest.fixture(scope="module")
def grantable() -> Callable[[int, int, tuple[int, int]], int]:
    namespace: dict[str, Any] = {}
    exec(cell_with(CUDA, "def grantable_sms("), namespace)  # its own table-driven checks run too
    return namespace["grantable_sms"]


def test_by_the_guideline_all_sms_of_an_h200_round_past_the_device() -> None:
    h200 = FakeDriver(132, 8, 8)
    with pytest.raises(RuntimeError, match="single SM resource group"):
        h200.grant(132)
    assert h200.grant(33) == 40, "a quarter is rounded up, so a bar labelled 33 SMs would show 40"


@pytest.mark.parametrize(("name", "total", "capability", "fewest", "multiple"), GPUS)
def test_requested_counts_are_granted_as_asked(grantable: Callable[[int, int, tuple[int, int]], int], name: str,
                                               total: int, capability: tuple[int, int], fewest: int,
                                               multiple: int) -> None:
    driver = FakeDriver(total, fewest, multiple)
    for wanted in (total // 4, total // 2, total, 1):
        asked = grantable(wanted, total, capability)
        assert driver.grant(asked) == asked, f"{name}: asked for {asked} SMs (wanting {wanted})"
        assert asked >= min(wanted, total // multiple * multiple), f"{name}: {asked} is less than needed"


class FakeBindings:
    """cuda.bindings.driver where the stream leads to a green context granted `sms` SMs."""

    def __init__(self, sms: int, stream_error: int = 0, missing_call: bool = False) -> None:
        self.driver = types.SimpleNamespace(
            CUresult=types.SimpleNamespace(CUDA_SUCCESS=0),
            CUdevResourceType=types.SimpleNamespace(CU_DEV_RESOURCE_TYPE_SM=1),
            CUstream=lambda handle: ("stream", handle),
            cuStreamGetGreenCtx=self.green_context,
            cuGreenCtxGetDevResource=lambda context, kind: (0, types.SimpleNamespace(
                sm=types.SimpleNamespace(smCount=sms))),
        )
        self.stream_error, self.missing_call = stream_error, missing_call

    def green_context(self, stream: object) -> tuple[int, object]:
        if self.missing_call:
            raise RuntimeError('Function "cuStreamGetGreenCtx" not found')
        return self.stream_error, ("green context of", stream)


def readback(monkeypatch: pytest.MonkeyPatch, bindings: FakeBindings | None) -> int | None:
    """granted_sms from the notebook, with cuda.bindings replaced (None: not installed)."""
    package = None if bindings is None else types.SimpleNamespace(driver=bindings.driver)
    monkeypatch.setitem(sys.modules, "cuda.bindings", package)
    if bindings is not None:
        monkeypatch.setitem(sys.modules, "cuda.bindings.driver", bindings.driver)
    namespace: dict[str, Any] = {"torch": torch}
    exec(definitions(cell_with(CUDA, "def granted_sms(")), namespace)
    return namespace["granted_sms"](types.SimpleNamespace(cuda_stream=0x1234))


def test_the_granted_count_is_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    assert readback(monkeypatch, FakeBindings(sms=40)) == 40


@pytest.mark.parametrize("bindings", [None, FakeBindings(40, stream_error=400), FakeBindings(40, missing_call=True)],
                         ids=["no cuda.bindings", "not a green-context stream", "driver without the call"])
def test_an_unreadable_count_is_none(monkeypatch: pytest.MonkeyPatch, bindings: FakeBindings | None) -> None:
    assert readback(monkeypatch, bindings) is None


class FakeGreenContext:
    """GreenContext.create on a simulated H200; each context's stream knows what was granted."""

    driver = FakeDriver(132, 8, 8)
    requests: ClassVar[list[int]] = []

    def __init__(self, granted: int) -> None:
        self.granted = granted

    @classmethod
    def create(cls, *, num_sms: int, device_id: int) -> FakeGreenContext:
        cls.requests.append(num_sms)
        return cls(cls.driver.grant(num_sms))

    def Stream(self) -> types.SimpleNamespace:  # the name GreenContext has
        return types.SimpleNamespace(granted=self.granted, wait_stream=lambda other: None)


@pytest.mark.parametrize(("readable", "labels"), [
    (True, ["40 SMs", "72 SMs", "128 SMs"]),
    (False, ["40 SMs asked", "72 SMs asked", "128 SMs asked"]),
])
def test_bars_are_labelled_with_what_the_driver_granted(monkeypatch: pytest.MonkeyPatch, readable: bool,
                                                        labels: list[str]) -> None:
    FakeGreenContext.requests = []
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: None)
    namespace: dict[str, Any] = {
        "torch": torch,
        "device": torch.device("cpu"),
        "GreenContext": FakeGreenContext,
        "median_seconds": lambda fn: 1.0,
    }
    exec(cell_with(CUDA, "def grantable_sms("), namespace)
    exec(cell_with(CUDA, "def share_timings("), namespace)
    namespace["granted_sms"] = lambda stream: stream.granted if readable else None
    got, seconds = namespace["share_timings"](132, (9, 0))
    assert got == labels and len(seconds) == 3
    assert FakeGreenContext.requests == [40, 72, 128]


# ---- batched-eigh: float64 on the device, and the peer library's outliers -------------------------------------

@pytest.fixture()
def eigh_cell() -> dict[str, Any]:
    """The setup cell and the cell that picks eigh's devices, run on this CPU-only machine."""
    namespace: dict[str, Any] = {"__name__": "batched_eigh_under_test"}
    exec(snippet_source("setup"), namespace)
    exec(cell_with(EIGH, "def has_float64("), namespace)
    assert namespace["wide_device"] == torch.device("cpu")
    return namespace


def without_float64(kind: str, error: type[Exception]) -> Callable[..., torch.Tensor]:
    """torch.ones where devices of this kind refuse float64 (MPS raises TypeError), CPU tensors elsewhere."""
    ones = torch.ones

    def fake_ones(*size: int, dtype: torch.dtype | None = None, device: Any = None) -> torch.Tensor:
        if torch.device(device).type == kind and dtype == torch.float64:
            raise error(f"{kind} has no float64")
        return ones(*size, dtype=dtype)

    return fake_ones


def test_the_cpu_has_float64(eigh_cell: dict[str, Any]) -> None:
    assert eigh_cell["has_float64"](torch.device("cpu")) is True


def test_a_mac_has_no_float64(eigh_cell: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch, "ones", without_float64("mps", TypeError))
    assert eigh_cell["has_float64"](torch.device("mps")) is False


@pytest.mark.parametrize(("declared", "works", "expected"), [
    (False, True, False),  # the driver says no: not even tried
    (True, True, True),
    (True, False, False),  # declared, but the computation fails
])
def test_an_intel_gpu_answers_for_itself(eigh_cell: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                         declared: bool, works: bool, expected: bool) -> None:
    monkeypatch.setattr(torch.xpu, "get_device_properties",
                        lambda device=None: types.SimpleNamespace(has_fp64=declared))
    tried: list[bool] = []
    fake = without_float64("xpu", RuntimeError) if not works else without_float64("none", RuntimeError)

    def ones(*size: int, **options: Any) -> torch.Tensor:
        tried.append(True)
        return fake(*size, **options)

    monkeypatch.setattr(torch, "ones", ones)
    assert eigh_cell["has_float64"](torch.device("xpu")) is expected
    assert bool(tried) == declared, "a device that declares no float64 is not asked to compute in it"


def test_float64_is_made_on_the_cpu_not_on_the_device() -> None:
    sources = [cell_source(c) for c in read_notebook(EIGH)["cells"] if c["cell_type"] == "code"]
    assert not any(".double().cpu()" in source for source in sources), "move to the CPU first, then widen"


@pytest.fixture()
def cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with CuPy: find_spec finds it, and its eigh is NumPy's on host arrays."""
    fake = types.ModuleType("cupy")
    fake.linalg = types.SimpleNamespace(eigh=np.linalg.eigh)  # type: ignore[attr-defined]
    fake.asarray = lambda tensor: tensor.numpy()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy", fake)
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: object() if name == "cupy" else find_spec(name, *rest))


def benchmark_namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {"torch": torch, "np": np, "pd": pd, "eigh_device": torch.device("cpu")}
    exec(snippet_source("cpu_timer"), namespace)
    exec(snippet_source("eigh_benchmark"), namespace)
    exec(definitions(cell_with(EIGH, "def outlier_report(")), namespace)
    return namespace


def live_run(peer: str, peer_seconds: float) -> pd.DataFrame:
    live = pd.DataFrame([
        {"impl": "torch batched", "n": 8, "batch": 16, "seconds": 16e-6},
        {"impl": "torch loop", "n": 8, "batch": 16, "seconds": 32e-6},
        {"impl": peer, "n": 8, "batch": 16, "seconds": peer_seconds},
    ])
    live["µs per matrix"] = live["seconds"] / live["batch"] * 1e6
    return live


@pytest.mark.usefixtures("cupy")
def test_a_cupy_outlier_is_measured_again() -> None:
    cells = benchmark_namespace()
    implementations = cells["eigh_implementations"](torch.device("cuda"))
    assert "cupy batched" in implementations
    timed: list[str] = []

    def timer(fn: Callable[[Any], Any], stack: Any) -> float:
        fn(stack)  # the re-measurement runs the implementation the outlier came from
        timed.append(type(stack).__name__)
        return 16e-6

    report = cells["outlier_report"](live_run("cupy batched", 0.02), implementations, timer)
    assert len(report) == 1 and "cupy batched" in report[0] and "re-measured 1 µs" in report[0], report
    assert timed == ["ndarray"], "CuPy is given the converted array"


@pytest.mark.usefixtures("cupy")
def test_a_slow_outlier_is_reported_without_timing_it_again() -> None:
    cells = benchmark_namespace()
    implementations = cells["eigh_implementations"](torch.device("cuda"))

    def timer(fn: Callable[[Any], Any], stack: Any) -> float:
        raise AssertionError("a point slower than 0.1 s is not timed again")

    report = cells["outlier_report"](live_run("cupy batched", 0.5), implementations, timer)
    assert len(report) == 1 and report[0].endswith("(not re-measured)"), report


# ---- batched-eigh: the CPU benchmark times one thread per library, in CPU time, one library at a time -----------

def test_the_cpu_timer_counts_cpu_time_not_the_wait() -> None:
    """Wall time would count a busy machine's other work; a sleep stands for it: each call computes for about a
    quarter of a millisecond, then waits 20 ms (wall time: over 20 ms; a wall-time timer fails here). A call that only
    slept would take the timer tens of seconds to gather its CPU time."""
    def compute_then_wait() -> None:
        sum(range(5_000))
        time.sleep(0.02)

    timer = benchmark_namespace()["device_timer"](torch.device("cpu"))
    assert timer(compute_then_wait, min_run_time=0.005) < 0.01


def test_each_library_runs_on_one_thread_while_it_is_timed() -> None:
    cells = benchmark_namespace()
    seen: list[tuple[int, set[int]]] = []

    def count_threads() -> None:
        pools = {pool["num_threads"] for pool in threadpoolctl.threadpool_info()}
        seen.append((torch.get_num_threads(), pools))

    threads = torch.get_num_threads()
    cells["device_timer"](torch.device("cpu"))(count_threads, min_run_time=0.001)
    assert seen and all(entry == (1, {1}) for entry in seen), f"torch and BLAS threads while timed: {seen[0]}"
    assert torch.get_num_threads() == threads, "the thread count is put back"


def test_each_implementation_is_timed_apart() -> None:
    cells = benchmark_namespace()
    names = {id(fn): impl for impl, (fn, _) in cells["eigh_implementations"](torch.device("cpu")).items()}
    order: list[str] = []

    def timer(fn: Callable[[Any], Any], stack: Any) -> float:
        order.append(names[id(fn)])
        return 1e-6

    cells["benchmark_eigh"](torch.device("cpu"), timer, [2, 3], [1, 4])
    runs = [impl for i, impl in enumerate(order) if i == 0 or order[i - 1] != impl]
    assert runs == ["torch batched", "torch loop", "numpy batched"], f"timed in the order {order}"


# ---- mps: which macOS gets the precompiled Metal-4 shaders ------------------------------------------------------

@pytest.mark.parametrize(("release", "applies"), [
    ("26.0", True), ("26", True), ("27.1.2", True), ("15.7.2", False), ("14.0", False), ("", False),
])
def test_precompiled_shaders_need_macos_26(release: str, applies: bool) -> None:
    namespace: dict[str, Any] = {}
    exec(definitions(cell_with(MPS, "def precompiled_shaders_apply(")), namespace)
    assert namespace["precompiled_shaders_apply"](release) is applies


# ---- know-your-accelerator: "native" only for what the probe ran ------------------------------------------------

def probe_rows(monkeypatch: pytest.MonkeyPatch, platform: str) -> dict[str, str]:
    """The rows the probe decides by reading (not by running), as on a GPU of this platform."""
    monkeypatch.setattr(torch.version, "hip", "7.0.2" if platform == "rocm" else None)
    device_type = "cuda" if platform == "rocm" else platform
    namespace: dict[str, Any] = {
        "torch": torch, "version": (2, 12), "device": torch.device(device_type), "platform_name": platform,
        "is_nvidia": platform == "cuda", "driver": (13, 2) if platform == "cuda" else (0,),
        "driver_text": "13.2", "build_cuda": (13, 2), "green_in_cpp": True, "annotations_kwarg": True,
        "rocm_fma": False, "cond_if": True, "tools_id": True,
    }
    exec(cell_with(KYA, "def status("), namespace)
    exec(cell_with(KYA, '"XPU: memory clock and bus width"'), namespace)
    return {feature: state for feature, state, _ in namespace["rows"]}


@pytest.mark.parametrize("platform", ["cuda", "rocm", "mps", "xpu"])
def test_rows_read_from_signatures_never_say_native(monkeypatch: pytest.MonkeyPatch, platform: str) -> None:
    rows = probe_rows(monkeypatch, platform)
    assert "native" not in rows.values(), rows
    assert "has the API" in rows.values(), f"the {platform} rows should find their platform's API"


def test_status_keeps_native_for_what_ran() -> None:
    namespace: dict[str, Any] = {}
    exec(definitions(cell_with(KYA, "def status(")), namespace)
    status = namespace["status"]
    assert status(True, True, ran=True) == "native"
    assert status(True, True) == "has the API"
    assert status(False, True, ran=True) == "CPU path"
    assert status(False, False) == "not here"


@pytest.mark.parametrize(("platform", "fused_error", "expected"), [
    ("cuda", None, "native"), ("rocm", None, "native"), ("cpu", None, "CPU path"),
    ("mps", "no fused kernel", "not here"), ("xpu", "no fused kernel", "not here")])
def test_a_fused_adagrad_step_that_ran_on_the_gpu_is_native(platform: str, fused_error: str | None,
                                                            expected: str) -> None:
    """The row says native wherever the fused step ran on the accelerator: ROCm runs CUDA's kernel through HIP."""
    namespace: dict[str, Any] = {
        "rows": [], "fused_error": fused_error, "on_accelerator": platform != "cpu",
        "is_nvidia": platform == "cuda", "graph_error": None, "capture_native": True, "capture_why": "",
        "e8m0_ok": True, "funcol_ok": True, "event_fields": {}, "port_default": None,
    }
    exec(definitions(cell_with(KYA, "def status(")), namespace)
    exec(cell_with(KYA, '"fused Adagrad on this device"'), namespace)
    rows = {feature: state for feature, state, _ in namespace["rows"]}
    assert rows["fused Adagrad on this device"] == expected, rows


# ---- know-your-accelerator: the FMA row reads Inductor's addcdiv lowering ---------------------------------------

LOWERING_212 = '''
def addcdiv(self, tensor1, tensor2, *, value=1):
    use_fma = dtype.is_floating_point and not torch.version.hip and device.type in ["cuda", "xpu"]

    def inner_fn(idx):
        return None
'''
LOWERING_215 = LOWERING_212.replace(" and not torch.version.hip", "")


@pytest.mark.parametrize(("source", "on_rocm"), [(LOWERING_212, False), (LOWERING_215, True), ("", False)],
                         ids=["2.12 and 2.13: not on ROCm", "2.14.1 on: also ROCm", "no such lowering"])
def test_the_fma_row_reads_the_lowering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str,
                                        on_rocm: bool) -> None:
    (tmp_path / "_inductor").mkdir()
    (tmp_path / "_inductor" / "lowering.py").write_text(source)
    monkeypatch.setattr(torch, "__file__", str(tmp_path / "__init__.py"))
    namespace: dict[str, Any] = {"torch": torch}
    exec(definitions(cell_with(KYA, "def addcdiv_fma_on_rocm(")), namespace)
    assert namespace["addcdiv_fma_on_rocm"]() is on_rocm


# ---- know-your-accelerator: the device the setup cell chose ---------------------------------------------------

@pytest.mark.parametrize(("chosen", "present", "holds"), [
    ("cpu", None, True), ("mps", "mps", True), ("cuda", "cuda", True),
    ("cpu", "mps", True),  # a Mac in a CPU room (COURSE_DEVICE=cpu), or an MPS that cannot allocate (CI's macOS)
    ("cuda", "mps", False), ("mps", None, False),
])
def test_the_device_check_allows_the_setup_cells_ways_back_to_the_cpu(monkeypatch: pytest.MonkeyPatch, chosen: str,
                                                                      present: str | None, holds: bool) -> None:
    found = torch.device(present) if present else None
    monkeypatch.setattr(torch.accelerator, "current_accelerator", lambda check_available=False: found)
    monkeypatch.setattr(torch.accelerator, "device_count", lambda: int(found is not None))
    monkeypatch.setattr(torch.accelerator, "is_available", lambda: found is not None)
    source = cell_with(KYA, "built_for = torch.accelerator.current_accelerator()")
    namespace: dict[str, Any] = {"torch": torch, "device": torch.device(chosen)}
    if holds:
        exec(source, namespace)
    else:
        with pytest.raises(AssertionError):
            exec(source, namespace)


# ---- preflight: the rows, decided for machines and releases other than this one ---------------------------------

@pytest.fixture()
def preflight(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The pre-flight's check functions, defined as on a machine whose setup cell stopped (an old torch)."""
    module = types.ModuleType("preflight_under_test")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look their module up
    namespace: dict[str, Any] = module.__dict__
    for cell in read_notebook(PREFLIGHT)["cells"]:
        source = cell_source(cell)
        if cell["cell_type"] != "code" or "stamp:setup" in cell.get("metadata", {}).get("tags", []):
            continue
        if "CHECKS = [" in source:
            break
        exec(source, namespace)
    assert namespace["here"] == torch.device("cpu")
    return namespace


@pytest.mark.parametrize(("text", "parts"), [
    ("2.12.0+cu130", (2, 12)), ("2.13.0.dev20260601", (2, 13)), ("8.1.0rc1", (8, 1)), ("3.10.14", (3, 10)),
])
def test_versions_are_read_as_numbers(preflight: dict[str, Any], text: str, parts: tuple[int, int]) -> None:
    """The install cell's minor_release, which the pre-flight's rows compare with their floors."""
    assert preflight["minor_release"](text) == parts


def test_an_old_torch_fails_with_the_upgrade_command(preflight: dict[str, Any],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    old = preflight["check_torch"]("2.11.0")
    assert old.status == "FAIL" and old.required and 'torch==2.12.0' in old.fix
    assert preflight["check_torch"]("2.12.0").status == "ok"
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert preflight["check_torch"]("2.11.0").fix.startswith("run the notebook's first cell"), "Colab: the install cell"


def test_binder_memory_is_enough_and_one_gigabyte_is_not(preflight: dict[str, Any]) -> None:
    gib = 2**30
    assert preflight["check_memory"](free=int(1.7 * gib)).status == "ok", "Binder's 2 GB must be enough"
    assert preflight["check_memory"](free=int(1.0 * gib)).status == "FAIL", "1 GB free is too little"


def test_macos_free_memory_counts_free_inactive_and_speculative_pages(preflight: dict[str, Any]) -> None:
    sample = ("Mach Virtual Memory Statistics: (page size of 16384 bytes)\nPages free: 1000.\n"
              "Pages active: 5.\nPages inactive: 3000.\nPages speculative: 96.\n")
    assert preflight["macos_free_bytes"](sample) == 4096 * 16384


# ---- know-your-accelerator: the memory cell on a Mac, where 2.12.0's device-allocator calls stop ------------------

NOT_A_DEVICE_ALLOCATOR = "Allocator for mps is not a DeviceAllocator."


def test_the_memory_cell_asks_torch_mps_on_a_mac(monkeypatch: pytest.MonkeyPatch) -> None:
    """2.12.0's MPS allocator is a c10::Allocator, so every torch.accelerator memory call stops (pytorch issue
    186430). The cell runs here as on a Mac: those calls raise, torch.mps counts the bytes of each new tensor.
    With torch.accelerator.memory_allocated() in the cell, as before, it raises."""
    counted = {"bytes": 5 * 2**20}
    real_empty = torch.empty

    def stops(*_args: object) -> None:
        raise RuntimeError(NOT_A_DEVICE_ALLOCATOR)

    def empty_on_mps(*size: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        assert device.type == "mps", device
        block = real_empty(*size, dtype=dtype)
        counted["bytes"] += block.nbytes
        return block

    for name in ("memory_allocated", "memory_reserved", "memory_stats", "empty_cache"):
        monkeypatch.setattr(torch.accelerator, name, stops)
    monkeypatch.setattr(torch, "empty", empty_on_mps)
    monkeypatch.setattr(torch.mps, "current_allocated_memory", lambda: counted["bytes"])
    emptied: list[bool] = []
    monkeypatch.setattr(torch.mps, "empty_cache", lambda: emptied.append(True))
    said: list[str] = []
    namespace: dict[str, Any] = {"torch": torch, "device": torch.device("mps"), "on_accelerator": True,
                                 "skip": said.append}
    exec(cell_with(KYA, "def allocated("), namespace)
    assert not said and emptied == [True], (said, emptied)
