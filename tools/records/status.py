"""What run records add up to: the status table (a notebook on a platform and release) and the timing report.

The status page and the line on every notebook page (_ext/run_status.py) are computed from the committed
records in `results/runs/`: a record whose source hash differs from the notebook's current sources is stale
and is never shown as a pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tools.course import ROOT, notebook_paths, read_notebook, relative_path
from tools.lesson import budget_seconds
from tools.records.runs import SCHEMA, now, release, source_hash

MEMORY_BUDGET = 1.5 * 2**30


@dataclasses.dataclass
class Cell:
    """One cell of the status table: a notebook on a platform and torch release."""

    notebook: str
    platform: str
    release: str
    state: str  # "pass", "fail", "flaky" or "stale"
    runs: int
    failures: int
    date: str
    seconds: float
    peak_memory_bytes: int | None
    device: str
    driver: str | None
    record: str  # the newest record's path, relative to the repository
    executed_notebook: str | None


def cells(records: Iterable[tuple[Path, dict[str, Any]]], root: Path = ROOT) -> list[Cell]:
    """Group records by notebook, platform and torch release: pass, fail, flaky or stale.

    Only records of the notebook's current sources count; where every record is of older
    sources the cell is stale. A notebook that both passed and failed on the same release and
    platform is flaky.
    """
    current = {str(path.relative_to(root)): source_hash(read_notebook(path)) for path in notebook_paths(root)}
    groups: dict[tuple[str, str, str], list[tuple[Path, dict[str, Any]]]] = {}
    for path, record in records:
        if record["notebook"] not in current:
            continue
        key = (record["notebook"], record["environment"]["platform"], release(record["environment"]["torch"]))
        groups.setdefault(key, []).append((path, record))
    found = []
    for (notebook, platform_name, torch_release), grouped in sorted(groups.items()):
        fresh = [(p, r) for p, r in grouped if r["source_sha256"] == current[notebook]]
        counted = fresh or grouped
        newest_path, newest = max(counted, key=lambda item: item[1]["date"])
        failures = sum(r["outcome"] == "fail" for _, r in counted)
        if not fresh:
            state = "stale"
        elif 0 < failures < len(fresh):
            state = "flaky"
        else:
            state = "fail" if failures else "pass"
        found.append(Cell(
            notebook=notebook, platform=platform_name, release=torch_release, state=state,
            runs=len(counted), failures=failures, date=newest["date"][:10], seconds=newest["seconds"],
            peak_memory_bytes=newest["peak_memory_bytes"], device=newest["environment"]["device"],
            driver=newest["environment"]["driver"],
            record=relative_path(newest_path, root), executed_notebook=newest.get("executed_notebook"),
        ))
    return found


def _untranslated(text: str) -> str:
    return text


def verdict_text(cell: Cell, _: Callable[[str], str] = _untranslated) -> str:
    """How many runs a cell's verdict rests on, as the status page says it (`_` translates, in an edition)."""
    if cell.state == "flaky":
        return _("{failures} of {runs} runs failed").format(failures=cell.failures, runs=cell.runs)
    if cell.state == "pass":
        return _("steady over {runs} runs").format(runs=cell.runs) if cell.runs > 1 else _("1 run")
    if cell.state == "fail":
        if cell.runs > 1:
            return _("failed {failures} of {runs} runs").format(failures=cell.failures, runs=cell.runs)
        return _("1 run, failed")
    return ""


def status_json(table: list[Cell]) -> dict[str, Any]:
    """The status table as published in the built site."""
    return {"schema": SCHEMA, "generated": now(), "cells": [dataclasses.asdict(cell) for cell in table]}


def timing_report(records: Iterable[dict[str, Any]], root: Path = ROOT) -> list[str]:
    """Seconds and peak memory per notebook beside its budget, slowest first."""
    lines = []
    for record in sorted(records, key=lambda r: -r["seconds"]):
        budget = budget_seconds(root / record["notebook"])
        memory = record["peak_memory_bytes"]
        flags = []
        if record["outcome"] == "fail":
            flags.append(f"FAILED at code cell {record['failed_cell']['index']}")
        if budget is not None and record["seconds"] > budget:
            flags.append(f"OVER its {budget} s budget")
        if memory and memory > MEMORY_BUDGET:
            flags.append("OVER 1.5 GB")
        shown_memory = f"{memory / 2**20:7.0f} MiB" if memory else "    n/a    "
        budget_text = f"/{budget:>3} s" if budget else "      "
        seconds = f"{record['seconds']:6.1f} s{budget_text}"
        lines.append(f"{seconds}  {shown_memory}  {record['notebook']}  {' '.join(flags)}")
    return lines
