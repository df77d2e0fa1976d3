"""Shared fixtures: a minimal notebook that follows every convention, for tests to break; and the unit step's rule
that it imports no torch."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path
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


# A module whose tests are all integration tests says so on one line. The unit step (`make unit`: -m "not integration")
# does not import it, so that step imports no torch, and fails if anything it ran did.
WHOLE_MODULE_INTEGRATION = re.compile(r"^pytestmark = pytest\.mark\.integration\b", re.MULTILINE)
UNIT_STEP = "not integration"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if (config.getoption("markexpr") == UNIT_STEP and collection_path.suffix == ".py"
            and WHOLE_MODULE_INTEGRATION.search(collection_path.read_text(encoding="utf-8"))):
        return True
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    if session.config.getoption("markexpr") == UNIT_STEP and "torch" in sys.modules:
        print("the unit step imported torch: import it inside an integration test, or mark the module's tests "
              "`pytestmark = pytest.mark.integration`", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
