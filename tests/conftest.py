"""Shared fixtures: a minimal notebook that follows every convention, for tests to break."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tools.author.stamp import snippet_source

HEADER = """# A lesson

**What you will learn**

- one thing

**Prerequisites**: none. **Time**: 5 minutes of teaching, 5 of exercise.

**Runs on**: CUDA, ROCm, MPS, XPU and CPU alike.
"""


def _code(source: str, **metadata: Any) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": [], "source": source}


def _markdown(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


# A run record's environment on a CPU machine, as tools/records/runs.py's schema wants it.
CPU_ENVIRONMENT: dict[str, Any] = {"platform": "cpu", "device": "a CPU, 2 threads", "torch": "2.12.0+cpu",
                                   "torch_build": "CPU", "runtime": "CPU", "driver": None, "python": "3.11.7",
                                   "os": "Linux", "numpy": "2.4.6"}


GOOD_NOTEBOOK: dict[str, Any] = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "course": {"platforms": ["cpu"], "minutes": {"teaching": 5, "exercises": 5},
                   "multi_process": False, "budget_seconds": 30,
                   "exercises": [{"label": "add", "minutes": 5, "level": "easy"}]},
    },
    "cells": [
        _markdown(HEADER),
        _code(snippet_source("install"), tags=["stamp:install", "remove-cell"], cellView="form",
              jupyter={"source_hidden": True}),
        _code(snippet_source("setup"), tags=["stamp:setup", "hide-input"]),
        _code("assert 1 + 1 == 2"),
        _markdown("```{exercise} Add\n:label: add\nCompute `total = 2 + 2`.\n```"),
        _code("# @title Solution (double-click to show the code)\ntotal = 2 + 2",
              tags=["solution", "hide-input"], jupyter={"source_hidden": True}, cellView="form",
              mystnb={"code_prompt_show": "Show solution", "code_prompt_hide": "Hide solution"}),
        _code("assert total == 4"),
    ],
}


@pytest.fixture
def good_notebook() -> dict[str, Any]:
    return copy.deepcopy(GOOD_NOTEBOOK)
