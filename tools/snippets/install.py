# @title Install PyTorch 2.12 if this runtime lacks it (run this cell first)
# Source: tools/snippets/install.py; `make stamp` copies it here. It imports no
# torch, so that it can replace an old one.
TAUGHT_TORCH = "2.12.0"  # the release the book's outputs come from
WHEELS = "https://download.pytorch.org/whl"


def installed_torch() -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def nvidia_driver() -> str | None:
    """The NVIDIA driver's version from nvidia-smi, or None where there is none."""
    import shutil
    import subprocess

    if shutil.which("nvidia-smi") is None:
        return None
    query = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
    answer = subprocess.run(query, capture_output=True, text=True, check=False)
    lines = answer.stdout.split()
    return lines[0] if answer.returncode == 0 and lines else None


def install_plan(torch_version: str | None, driver: str | None) -> tuple[str, str]:
    """(build, pip arguments) for the taught release on this machine's hardware."""
    import platform
    import shutil

    pin = f"torch=={TAUGHT_TORCH}"
    local = (torch_version or "").partition("+")[2]
    amd = shutil.which("rocm-smi") or shutil.which("amd-smi")
    intel = shutil.which("xpu-smi") or shutil.which("sycl-ls")
    if local.startswith("rocm") or amd:
        return "rocm", f"{pin} --index-url {WHEELS}/rocm7.2"
    if local == "xpu" or intel:
        return "xpu", f"{pin} --index-url {WHEELS}/xpu"
    if platform.system() == "Darwin":
        return "mps", pin  # PyPI's macOS wheel: the CPU and Apple's GPU in one
    if driver is None:
        return "cpu", f"{pin} --index-url {WHEELS}/cpu"
    # PyPI's Linux wheel is the CUDA 13 build, which needs an R580+ driver.
    if int(driver.split(".")[0]) >= 580:
        return "cuda", pin
    return "cuda", f"{pin} --index-url {WHEELS}/cu126"


def minor_release(version: str) -> tuple[int, int]:
    major, minor = version.split("+")[0].split(".")[:2]
    return int(major), int(minor)


def install_taught_torch() -> None:
    """Nothing if it is here; on Colab, install it and restart; elsewhere, say how."""
    import subprocess
    import sys as this_python  # not `sys`: a lesson imports that name itself

    found = installed_torch()
    on_colab = "google.colab" in this_python.modules
    build, pip_arguments = install_plan(found, nvidia_driver())
    if found and minor_release(found) == minor_release(TAUGHT_TORCH):
        print(f"torch {found} is installed: nothing to do.")
    elif found and minor_release(found) > minor_release(TAUGHT_TORCH) and not on_colab:
        print(f"torch {found} is newer than the book's {TAUGHT_TORCH}: outputs differ.")
    elif on_colab and build in ("cpu", "cuda"):
        print(f"Installing {pip_arguments} for this {build} runtime; it then restarts.")
        pip = [this_python.executable, "-m", "pip", "install", "-q"]
        pip += pip_arguments.split()
        subprocess.run(pip, check=True)
        print("Installed. The runtime restarts: run the notebook again from the top.")
        import IPython

        app = IPython.Application.instance()
        app.kernel.do_shutdown(True)  # type: ignore[attr-defined]  # IPKernelApp has it
    else:
        raise RuntimeError(
            f"This course runs on PyTorch {TAUGHT_TORCH}; this runtime has "
            f"{found or 'no torch'}. Run `pip install {pip_arguments}`, then restart."
        )


install_taught_torch()
