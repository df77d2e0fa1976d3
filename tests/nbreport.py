"""A pytest plugin for the nbval run: seconds and peak memory per notebook, slowest first.

Loaded with `-p tests.nbreport`. It measures rather than fails: budgets (GUIDE.md section 4)
are printed beside each notebook, so a slow shared machine never turns the suite red, and a
notebook that grew past its budget is plain to see.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

seconds: defaultdict[str, float] = defaultdict(float)
peak_bytes: defaultdict[str, int] = defaultdict(int)
MEMORY_BUDGET = 1.5 * 2**30


def _kernel_peak_rss(item: pytest.Item) -> int:
    """The kernel's peak resident memory (VmHWM) in bytes, or 0 where it cannot be read."""
    kernel = getattr(item.parent, "kernel", None)
    pid = getattr(getattr(getattr(kernel, "km", None), "provisioner", None), "pid", None)
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, TypeError):
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    if call.when == "call" and item.nodeid.split("::")[0].endswith(".ipynb"):
        notebook = item.nodeid.split("::")[0]
        seconds[notebook] += outcome.get_result().duration
        peak_bytes[notebook] = max(peak_bytes[notebook], _kernel_peak_rss(item))


def _budget(notebook: str, rootdir: Path) -> int | None:
    try:
        return json.loads((rootdir / notebook).read_text())["metadata"]["course"]["budget_seconds"]
    except (OSError, KeyError, ValueError):
        return None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not seconds:
        return
    rootdir = Path(terminalreporter.config.rootpath)
    terminalreporter.section("notebook budgets: seconds and peak memory, slowest first")
    for notebook, spent in sorted(seconds.items(), key=lambda item: -item[1]):
        budget = _budget(notebook, rootdir)
        memory = peak_bytes[notebook]
        flags = []
        if budget is not None and spent > budget:
            flags.append(f"OVER its {budget} s budget")
        if memory > MEMORY_BUDGET:
            flags.append("OVER 1.5 GB")
        shown_memory = f"{memory / 2**20:7.0f} MiB" if memory else "    n/a    "
        budget_text = f"/{budget:>3} s" if budget else ""
        terminalreporter.write_line(f"{spent:6.1f} s{budget_text}  {shown_memory}  {notebook}  {' '.join(flags)}")
