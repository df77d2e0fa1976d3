# @title Install PyTorch 2.12 if this runtime lacks it (run this cell first)
# Source: tools/snippets/install.py; `make stamp` copies it here. It imports no
# torch, so that it can replace an old one.
import typing

TAUGHT_TORCH = "2.12.0"  # the release the book's outputs come from
WHEELS = "https://download.pytorch.org/whl"


class Plan(typing.NamedTuple):
    build: str  # cpu, cuda, mps, rocm or xpu
    pip_arguments: str
    driver_update: str = ""  # one line where the driver must be updated first


def installed_torch() -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def nvidia_gpu() -> tuple[str, str] | None:
    """(driver version, compute capability) of the first NVIDIA GPU, from nvidia-smi.

    None where there is none; the capability is "" where nvidia-smi cannot say it.
    """
    import shutil
    import subprocess

    if shutil.which("nvidia-smi") is None:
        return None
    for fields in ("driver_version,compute_cap", "driver_version"):
        query = ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"]
        answer = subprocess.run(query, capture_output=True, text=True, check=False)
        first = answer.stdout.strip().splitlines()[:1]
        if answer.returncode == 0 and first and first[0].strip():
            driver, _, capability = first[0].partition(",")
            return driver.strip(), capability.strip()
    return None


def install_plan(torch_version: str | None, gpu: tuple[str, str] | None) -> Plan:
    """The build, pip arguments and driver advice for the taught release here.

    The CUDA builds of 2.12.0 (its RELEASE.md): CUDA 12.6 for compute capabilities
    5.0 to 9.0; CUDA 13.0, which needs an R580+ driver, for 7.5 to 12.0. PyPI's Linux
    wheel is the CUDA 13.0 build; its Windows wheel is CPU-only.
    """
    import platform
    import shutil

    pin = f"torch=={TAUGHT_TORCH}"
    local = (torch_version or "").partition("+")[2]
    amd = shutil.which("rocm-smi") or shutil.which("amd-smi")
    intel = shutil.which("xpu-smi") or shutil.which("sycl-ls")
    if local.startswith("rocm") or amd:
        return Plan("rocm", f"{pin} --index-url {WHEELS}/rocm7.2")
    if local == "xpu" or intel:
        return Plan("xpu", f"{pin} --index-url {WHEELS}/xpu")
    if platform.system() == "Darwin":
        return Plan("mps", pin)  # PyPI's macOS wheel: the CPU and Apple's GPU in one
    if gpu is None:
        return Plan("cpu", f"{pin} --index-url {WHEELS}/cpu")
    driver, capability = gpu
    major = int(driver.split(".")[0])
    sm = tuple(int(part) for part in capability.split(".")) if capability else (0,)
    cu130 = pin if platform.system() == "Linux" else f"{pin} --index-url {WHEELS}/cu130"
    if (0,) < sm < (7, 5) or (major < 580 and sm < (10, 0)):
        return Plan("cuda", f"{pin} --index-url {WHEELS}/cu126")
    if major < 580:  # Blackwell: only the CUDA 13.0 build has its kernels
        update = f"Update the NVIDIA driver (here {driver}) to 580 or newer: compute "
        return Plan("cuda", cu130, update + f"capability {capability} needs CUDA 13")
    return Plan("cuda", cu130)


def pip_advice(plan: Plan) -> str:
    """The command to run for a plan, after the driver update it needs."""
    command = f"`pip install {plan.pip_arguments}`"
    if plan.driver_update:
        return f"{plan.driver_update}; then run {command}"
    return f"Run {command}"


def machine_plan() -> Plan:
    """The plan for this machine: its torch and its NVIDIA GPU."""
    return install_plan(installed_torch(), nvidia_gpu())


def minor_release(version: str) -> tuple[int, int]:
    major, minor = version.split("+")[0].split(".")[:2]
    return int(major), int(minor)


def install_taught_torch() -> None:
    """Nothing if it is here; on Colab, install it and restart; elsewhere, say how."""
    import subprocess
    import sys as this_python  # not `sys`: a lesson imports that name itself

    found = installed_torch()
    on_colab = "google.colab" in this_python.modules
    plan = machine_plan()
    if found and minor_release(found) == minor_release(TAUGHT_TORCH):
        print(f"torch {found} is installed: nothing to do.")
    elif found and minor_release(found) > minor_release(TAUGHT_TORCH) and not on_colab:
        print(f"torch {found} is newer than the book's {TAUGHT_TORCH}: outputs differ.")
    elif on_colab and plan.build in ("cpu", "cuda") and not plan.driver_update:
        build, arguments = plan.build, plan.pip_arguments
        print(f"Installing {arguments} for this {build} runtime; it then restarts.")
        pip = [this_python.executable, "-m", "pip", "install", "-q"]
        pip += plan.pip_arguments.split()
        subprocess.run(pip, check=True)
        print("Installed. The runtime restarts: run the notebook again from the top.")
        import IPython

        app = IPython.Application.instance()
        app.kernel.do_shutdown(True)  # type: ignore[attr-defined]  # IPKernelApp has it
    else:
        raise RuntimeError(
            f"This course runs on PyTorch {TAUGHT_TORCH}; this runtime has "
            f"{found or 'no torch'}. {pip_advice(plan)}, then restart."
        )


install_taught_torch()
