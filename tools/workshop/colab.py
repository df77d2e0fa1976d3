"""Colab's runtime metadata: a GPU runtime for lessons that need an NVIDIA GPU (course.platforms), none for the
others, and the notebooks whose metadata disagrees."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tools.course import ROOT, notebook_paths, read_notebook

COLAB_GPU = "T4"  # the GPU of Colab's free tier


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

