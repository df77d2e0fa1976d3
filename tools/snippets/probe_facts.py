# The facts the NVIDIA and FMA rows are decided on: the CUDA versions of this build and
# of the driver (nvidia-smi), whether this torch captures CUDA graphs' IF nodes, whether
# cuda-bindings has the tools-id call, whether green contexts are C++ here, and whether
# Inductor's addcdiv lowering (torch/_inductor/lowering.py) also uses FMA on ROCm.
# Source: tools/snippets/probe_facts.py; `make stamp` copies it here.
import re
import shutil
import subprocess
from pathlib import Path


def driver_cuda() -> tuple[int, ...]:
    if not shutil.which("nvidia-smi"):
        return (0,)
    run = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30)
    found = re.search(r"CUDA Version:\s*([\d.]+)", run.stdout)
    return tuple(int(p) for p in found.group(1).split(".")) if found else (0,)


def bindings_tools_id() -> bool:
    """Whether cuda-bindings has cudaGraphNodeGetToolsId, CUDA 13.1's call, which graph
    annotations need: torch 2.12.0's CUDA wheel accepts cuda-bindings 13.0.3 and up."""
    try:
        from cuda.bindings import runtime
    except ImportError:
        return False
    return hasattr(runtime, "cudaGraphNodeGetToolsId")


def addcdiv_fma_on_rocm() -> bool:
    source = (Path(torch.__file__).parent / "_inductor" / "lowering.py").read_text()
    start = source.find("def addcdiv(self, tensor1")
    end = source.find("def inner_fn", start)
    return start >= 0 and "version.hip" not in source[start:end]


build_cuda = tuple(int(p) for p in (torch.version.cuda or "0").split(".")[:2])
driver = driver_cuda() if platform_name == "cuda" else (0,)
driver_text = ".".join(map(str, driver)) if driver > (0,) else "none"
cond_if = hasattr(torch.cuda.CUDAGraph, "begin_capture_to_if_node")
tools_id = bindings_tools_id()
green_in_cpp = hasattr(torch._C, "_CUDAGreenContext")
rocm_fma = addcdiv_fma_on_rocm()
