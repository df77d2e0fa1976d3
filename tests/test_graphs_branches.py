"""The graphs chapter's device decisions, on machines we do not have.

- cond-in-graphs asks the NVIDIA driver, not the build, whether CUDA graph conditional nodes exist: its gate runs
  here after the setup cell with torch's answers and the driver library replaced, to simulate builds and drivers.
- accelerator-graph's exercise check must reject the same wrong answers where a real graph is captured as where
  the CPU stand-in is used: the check runs here with `graph_api` and `capture` as on a GPU.
- launch-overhead names Inductor's kernels on every backend: its pattern is tried on code in the form each
  backend generates, the MPS form read from the installed torch's Metal code generator.
"""

from __future__ import annotations

import ctypes
import inspect
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.simulated import accelerator_allocates
from tools.author.stamp import snippet_source
from tools.course import ROOT, cell_source, cell_tags, read_notebook
from tools.lesson import STUB

pytestmark = pytest.mark.integration  # kernels, book builds, mypy or torch (make integration)

GRAPHS = ROOT / "notebooks" / "graphs"
COND = GRAPHS / "cond-in-graphs.ipynb"
ACCELERATOR_GRAPH = GRAPHS / "accelerator-graph.ipynb"
LAUNCH_OVERHEAD = GRAPHS / "launch-overhead.ipynb"
WRONG_ANSWERS = sorted((ROOT / "tests" / "exercises" / "accelerator-graph-replayable").glob("wrong_*.py"))


def code_cell(path: Path, marker: str) -> str:
    """The source of the one code cell of `path` that contains `marker`."""
    cells = [cell_source(c) for c in read_notebook(path)["cells"] if c["cell_type"] == "code"]
    found = [source for source in cells if marker in source]
    assert len(found) == 1, f"{path.name}: expected one code cell containing {marker!r}, found {len(found)}"
    return found[0]


# --- cond-in-graphs: conditional nodes are gated on the driver ----------------------------------------------


class FakeDriver:
    """libcuda as far as the gate uses it: cuDriverGetVersion writes `version` (major * 1000 + minor * 10)."""

    def __init__(self, version: int, status: int = 0) -> None:
        self.version, self.status = version, status

    def cuDriverGetVersion(self, pointer: Any) -> int:
        pointer._obj.value = self.version
        return self.status


def gate(monkeypatch: pytest.MonkeyPatch, device_type: str | None, *, cuda: str | None = "12.6",
         hip: str | None = None, driver: FakeDriver | OSError | None = None) -> dict[str, Any]:
    """Run the setup cell and cond-in-graphs' gate as on a machine with this accelerator, build and driver."""
    present = torch.device(device_type) if device_type else None
    monkeypatch.setattr(torch.accelerator, "current_accelerator",
                        lambda check_available=False: present if check_available else torch.device("cuda"))
    accelerator_allocates(monkeypatch)
    monkeypatch.setattr(torch.version, "cuda", cuda)
    monkeypatch.setattr(torch.version, "hip", hip)
    properties = types.SimpleNamespace(name="simulated GPU", total_memory=80 * 2**30)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _device: properties)
    monkeypatch.setattr(torch.xpu, "get_device_name", lambda _device=None: "simulated Intel GPU")

    def load(name: str) -> FakeDriver:
        assert name in ("libcuda.so.1", "nvcuda.dll"), f"the gate loaded {name}, not the CUDA driver"
        if driver is None:
            raise AssertionError("the gate asked a CUDA driver on a machine that has none to ask")
        if isinstance(driver, OSError):
            raise driver
        return driver

    monkeypatch.setattr(ctypes, "CDLL", load)
    namespace: dict[str, Any] = {"__name__": "cond_in_graphs_under_test"}
    exec(snippet_source("setup"), namespace)
    exec(code_cell(COND, "def conditional_nodes_missing("), namespace)
    exec(code_cell(COND, "missing = conditional_nodes_missing()"), namespace)
    return namespace


@pytest.mark.parametrize("cuda", ["12.6", "13.0"])
@pytest.mark.parametrize("driver_version", [12040, 12080, 13000])
def test_a_driver_for_cuda_12_4_or_newer_enables_conditional_nodes(
        monkeypatch: pytest.MonkeyPatch, cuda: str, driver_version: int) -> None:
    cell = gate(monkeypatch, "cuda", cuda=cuda, driver=FakeDriver(driver_version))
    assert cell["conditional_nodes"] is True and cell["missing"] is None
    assert cell["cuda_driver_version"]() == (driver_version // 1000, driver_version % 1000 // 10)


@pytest.mark.parametrize("driver_version", [12000, 12020, 12030])
def test_a_cu126_wheel_on_an_older_driver_skips(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], driver_version: int) -> None:
    """The review's case: a CUDA 12.6 build (12.6 >= 12.4) on an R525-R545 driver must skip, not raise."""
    cell = gate(monkeypatch, "cuda", cuda="12.6", driver=FakeDriver(driver_version))
    assert cell["conditional_nodes"] is False
    assert f"supports CUDA 12.{driver_version % 1000 // 10}" in cell["missing"]
    assert "Skipped on cuda:" in capsys.readouterr().out


def test_a_build_older_than_cuda_12_4_skips_whatever_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = gate(monkeypatch, "cuda", cuda="12.1", driver=FakeDriver(13000))
    assert cell["conditional_nodes"] is False and "built with CUDA 12.1" in cell["missing"]


@pytest.mark.parametrize("driver", [OSError("libcuda.so.1: cannot open shared object file"), FakeDriver(0, status=3)])
def test_a_driver_that_does_not_answer_skips(monkeypatch: pytest.MonkeyPatch, driver: FakeDriver | OSError) -> None:
    cell = gate(monkeypatch, "cuda", driver=driver)
    assert cell["conditional_nodes"] is False and "unknown version" in cell["missing"]


@pytest.mark.parametrize(("device_type", "hip", "platform"),
                         [(None, None, "cpu"), ("mps", None, "mps"), ("xpu", None, "xpu"), ("cuda", "7.1", "rocm")])
def test_other_platforms_skip_without_asking_a_driver(
        monkeypatch: pytest.MonkeyPatch, device_type: str | None, hip: str | None, platform: str) -> None:
    cell = gate(monkeypatch, device_type, cuda=None if hip else "12.6", hip=hip)
    assert cell["conditional_nodes"] is False and cell["missing"].endswith(f"this is {platform}")


# --- accelerator-graph: the exercise check decides on what every device shows -------------------------------


class CapturedGraph:
    """What the check can see of a real captured graph: replay() rewrites the static output in place.

    Nothing here counts captures or replays, as nothing counts them on a GPU.
    """

    def __init__(self, fn: Callable[[torch.Tensor], torch.Tensor], static_input: torch.Tensor) -> None:
        fn(static_input)  # warm-up, as capture() does
        self.fn, self.static_input = fn, static_input
        self.static_output = fn(static_input)

    def replay(self) -> None:
        self.static_output.copy_(self.fn(self.static_input))


def exercise(graph_api: str | None, answer: str) -> None:
    """Run accelerator-graph's exercise cells with this answer, as on a device with this capture API.

    graph_api None is the CPU (the stand-in graph); a name is a device that captures, with `capture` simulated.
    """
    namespace: dict[str, Any] = {"__name__": "accelerator_graph_under_test", "torch": torch,
                                 "device": torch.device("cpu"), "on_accelerator": False, "size": 256,
                                 "graph_api": graph_api}

    def capture(fn: Callable[[torch.Tensor], torch.Tensor], static_input: torch.Tensor) -> Any:
        graph = CapturedGraph(fn, static_input)
        return graph, graph.static_output

    namespace["capture"] = capture
    exec(code_cell(ACCELERATOR_GRAPH, "def chain("), namespace)
    exec(code_cell(ACCELERATOR_GRAPH, "def capture_or_stand_in("), namespace)
    exec(answer, namespace)
    exec(code_cell(ACCELERATOR_GRAPH, 'make_replayable(lambda t: chain(t, 32), example)'), namespace)


def solution() -> str:
    cells = read_notebook(ACCELERATOR_GRAPH)["cells"]
    found = [cell_source(c) for c in cells if "solution" in cell_tags(c) and "def make_replayable(" in cell_source(c)]
    assert len(found) == 1
    return found[0]


GRAPH_APIS = [None, "torch.cuda.CUDAGraph", "torch.accelerator.Graph"]


@pytest.mark.parametrize("graph_api", GRAPH_APIS)
def test_the_solution_passes_the_check_on_every_device(graph_api: str | None) -> None:
    exercise(graph_api, solution())


@pytest.mark.parametrize("graph_api", GRAPH_APIS)
@pytest.mark.parametrize("wrong", [STUB, *WRONG_ANSWERS], ids=lambda w: w.stem if isinstance(w, Path) else "stub")
def test_every_wrong_answer_fails_the_check_on_every_device(graph_api: str | None, wrong: str | Path) -> None:
    answer = wrong.read_text(encoding="utf-8") if isinstance(wrong, Path) else wrong
    with pytest.raises(AssertionError):
        exercise(graph_api, answer)


def test_the_review_s_wrong_answers_are_among_those_proven() -> None:
    """The two that passed on a GPU before the check counted graphs and compared storages."""
    assert {"wrong_eager_fallback", "wrong_captures_every_call"} <= {path.stem for path in WRONG_ANSWERS}


# --- launch-overhead: kernel names on every backend -------------------------------------------------------


def kernel_names() -> Callable[[str], set[str]]:
    namespace: dict[str, Any] = {"__name__": "kernel_names_under_test"}
    exec(code_cell(LAUNCH_OVERHEAD, "def kernel_names("), namespace)
    return namespace["kernel_names"]


def test_the_mps_form_is_what_the_installed_torch_writes() -> None:
    """Inductor's Python wrapper names each Metal kernel generated_kernel_<n> (torch/_inductor/codegen/mps.py)."""
    from torch._inductor.codegen import mps

    source = inspect.getsource(mps.MetalScheduling.define_kernel)
    assert 'fn_name = f"generated_kernel_' in source
    assert "async_compile.metal({fn_name!r}, '''" in source


@pytest.mark.parametrize(("backend", "code", "expected"), [
    ("cpu", "cpp_fused_add_mul_0 = async_compile.cpp_pybinding(['float*'], r'''...''')\n"
            "cpp_fused_add_mul_0(buf0, arg0_1)", {"cpp_fused_add_mul_0"}),
    ("cuda/rocm/xpu", "triton_poi_fused_add_mul_0 = async_compile.triton('triton_poi_fused_add_mul_0', '''\n"
                      "def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n'''\n"
                      "triton_poi_fused_add_mul_0.run(arg0_1, buf0, 1024, stream=stream0)",
     {"triton_poi_fused_add_mul_0"}),
    ("mps", "generated_kernel_3 = async_compile.metal('generated_kernel_3', '''\n"
            "kernel void generated_kernel_3(device float* out_ptr0, constant float* in_ptr0, uint xindex) {}\n"
            "''', ['c10/metal/utils.h'])\ngenerated_kernel_3(buf0, arg0_1, threads=[1024])",
     {"generated_kernel_3"}),
    ("two kernels", "cpp_fused_add_0(buf0)\ncpp_fused_mul_1(buf1)", {"cpp_fused_add_0", "cpp_fused_mul_1"}),
])
def test_kernel_names_on_every_backend(backend: str, code: str, expected: set[str]) -> None:
    assert kernel_names()(code) == expected, backend


def test_a_kernel_count_is_not_padded_by_other_names() -> None:
    code = "from torch._inductor.codegen.mps import generated_kernel\nbuf0 = empty_strided_cpu((1024,), (1,))"
    assert kernel_names()(code) == set()
