"""Colab's runtime metadata: a GPU runtime for lessons that need an NVIDIA GPU (course.platforms), none for the
others, and the notebooks whose metadata disagrees; the minutes a lesson's install cell takes on a Colab CPU runtime,
from the measurement in colab-install.json beside this module."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

from tools.course import ROOT, CourseError, notebook_paths, read_notebook

COLAB_GPU = "T4"  # the GPU of Colab's free tier
INSTALL_RECORD = Path(__file__).resolve().parent / "colab-install.json"  # how it was measured: its "how"
RESTART_MINUTES = 1  # the runtime's restart after the install and the rerun of the cells above: an allowance, untimed


def install_seconds(path: Path = INSTALL_RECORD) -> float:
    """The install cell's seconds on a simulated fresh Colab CPU runtime: the install measured, plus the CPU wheel's
    download at the registry's measured throughput."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        fields = [float(record[key]) for key in
                  ("install_seconds", "cpu_wheel_bytes", "throughput_bytes", "throughput_seconds")]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CourseError(f"{path}: not a Colab install measurement ({error})") from None
    install, wheel, moved, seconds = fields
    if min(fields) <= 0:
        raise CourseError(f"{path}: every measured number must be positive")
    return install + wheel * seconds / moved


def setup_minutes(path: Path = INSTALL_RECORD) -> int:
    """Minutes per lesson on Colab: the measured install, rounded up, and the restart's allowance."""
    return math.ceil(install_seconds(path) / 60) + RESTART_MINUTES


def needs_nvidia_gpu(notebook: dict[str, Any]) -> bool:
    """A lesson needs an NVIDIA GPU when it targets CUDA and not the CPU (course.platforms)."""
    platforms = notebook.get("metadata", {}).get("course", {}).get("platforms", [])
    return "cuda" in platforms and "cpu" not in platforms


def colab_runtime(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook with Colab's runtime metadata set: a GPU runtime (`accelerator: GPU`, `colab.gpuType`) for
    lessons that need an NVIDIA GPU, none for the others (Colab then opens a CPU runtime)."""
    result = copy.deepcopy(notebook)
    metadata = result.setdefault("metadata", {})
    colab = metadata.get("colab", {})
    if needs_nvidia_gpu(notebook):
        metadata["accelerator"] = "GPU"
        metadata["colab"] = {**colab, "gpuType": COLAB_GPU}
    else:
        metadata.pop("accelerator", None)
        colab.pop("gpuType", None)
        if colab:
            metadata["colab"] = colab
        else:
            metadata.pop("colab", None)
    return result


def colab_problems(root: Path = ROOT) -> list[str]:
    problems = []
    for path in notebook_paths(root):
        notebook = read_notebook(path)
        if colab_runtime(notebook) != notebook:
            want = "a GPU runtime" if needs_nvidia_gpu(notebook) else "no GPU runtime"
            problems.append(f"{path.relative_to(root)}: Colab would not open {want} "
                            "(run `python -m tools.workshop colab`)")
    return problems

