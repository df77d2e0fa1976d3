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


MEASURED = ("install_seconds", "cpu_wheel_bytes", "throughput_bytes", "throughput_seconds")


def install_record(path: Path = INSTALL_RECORD) -> dict[str, Any]:
    """The measurement, checked: its numbers positive, and its date, machine, Python and how it was measured."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        numbers = [float(record[key]) for key in MEASURED]
        texts = [record[key] for key in ("measured", "machine", "python", "how")]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CourseError(f"{path}: not a Colab install measurement ({error})") from None
    if min(numbers) <= 0 or not all(isinstance(text, str) and text for text in texts):
        raise CourseError(f"{path}: needs positive {', '.join(MEASURED)} and the measured, machine, python and how "
                          "texts")
    return dict(record)


def install_seconds(path: Path = INSTALL_RECORD) -> float:
    """The install cell's seconds on a simulated fresh Colab CPU runtime: the install measured, plus the CPU wheel's
    download at the registry's measured throughput."""
    record = install_record(path)
    install, wheel, moved, seconds = (float(record[key]) for key in MEASURED)
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



def install_summary(path: Path = INSTALL_RECORD) -> str:
    """The Colab page's paragraph on the install time: how it was measured, what it came to, what the schedules
    count."""
    record = install_record(path)
    rate = float(record["throughput_bytes"]) / float(record["throughput_seconds"])
    download, install = float(record["cpu_wheel_bytes"]) / rate, float(record["install_seconds"])
    return (f"Measured on {record['measured']}, on {record['machine']}, with Python {record['python']}, on a "
            f"simulated fresh Colab CPU runtime: {record['how']} The install took {install:.0f} "
            f"s, and the CPU wheel's {float(record['cpu_wheel_bytes']) / 1e6:.0f} MB at the registry's "
            f"{rate / 1e6:.0f} MB/s add {download:.0f} s: {install_seconds(path):.0f} s in all. The schedules count "
            f"{setup_minutes(path)} minutes a lesson for it (the \"setup\" minutes): that time rounded up to the "
            f"minute, and {RESTART_MINUTES} for the restart and the cells run again after it, an allowance that "
            "nothing timed. Colab's network and disk may be slower or faster: untested on Colab.")
