"""Run records: where each notebook has run, on which torch and device, and how it went.

Every execution of a notebook by the course's own tools (tools/execute/engine.py under `make test`, the
torch version matrix, a recording run on an accelerator; nbval with tests/nbreport.py) writes one
JSON record per notebook. The schema, version 1:

    {
      "schema": 1,
      "notebook": "notebooks/graphs/cond-in-graphs.ipynb",   # relative to the repository
      "source_sha256": "…",            # hash of the cells' types and sources (not outputs)
      "outcome": "pass" | "fail",
      "failed_cell": null | {"index": 7, "error": "AssertionError: …"},   # code-cell index
      "seconds": 12.4,                 # execution time of all its cells
      "peak_memory_bytes": 812000000,  # the kernel's peak resident memory; null where unknown
      "skipped_cells": 2,              # cells that printed a "Skipped on …" line
      "warnings": [{"cell": 3, "category": "UserWarning", "message": "first line"}],
      "environment": {
        "platform": "cpu" | "cuda" | "rocm" | "mps" | "xpu",
        "device": "AMD EPYC …, 2 threads",
        "torch": "2.12.0+cu130", "torch_build": "CUDA 13.0" | "HIP 7.0" | "XPU" | "CPU",
        "runtime": "CPU" | "CUDA 13.0" | …, "driver": null | "580.82",
        "python": "3.11.7", "os": "Linux-6.1-x86_64", "numpy": "2.4.6"
      },
      "date": "2026-11-30T12:00:00+00:00",
      "command": "make test",
      "executed_notebook": null | "results/recorded/<run>/<chapter>/<name>.ipynb"
    }

Records written by tools/execute/engine.py add (optional; the checks above ignore them):

      "wall_seconds": 20.1,            # the whole run: kernel start, cells, exercise attempts
      "cpu_seconds": 14.2,             # CPU time of the kernel and the processes it waited for
      "exercises": [{"label": "…", "ok": true, "wrong_answers": 3, "seconds": 1.2, "problems": []}],
      "steps": "_build/runs/make-test-steps.json"   # under `make test`: its step times

Records of repeated runs (`make flaky`, `make records`: tools/execute/matrix.py's mark_flaky) add:

      "verdict_runs": 29,              # the runs of this notebook on this release the verdict rests on
      "flaky": false                   # true when it both passed and failed in them

Records live in two places: `_build/runs/` for the runs of this checkout (never committed) and
`results/runs/` for the committed ones, refreshed by `make records`. The status page and the
line on every notebook page are computed from `results/runs/`: a record whose source hash
differs from the notebook's current sources is stale and is never shown as a pass.

    python -m tools.records.runs report DIR      the timing report of the records under DIR
    python -m tools.records.runs check [DIR]     validate records (default: results/runs)
    python -m tools.records.runs status          print the status table of results/runs
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import platform
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tools.course import PLATFORMS, ROOT, CourseError, cell_source, notebook_paths, read_notebook, relative_path
from tools.lesson import budget_seconds

SCHEMA = 1
def runs_folder(root: Path) -> Path:
    """Where a book's committed run records live."""
    return root / "results" / "runs"


RUNS = runs_folder(ROOT)
BUILD_RUNS = ROOT / "_build" / "runs"
MEMORY_BUDGET = 1.5 * 2**30
OUTCOMES = ("pass", "fail")
ENVIRONMENT_KEYS = ("platform", "device", "torch", "torch_build", "runtime", "driver", "python", "os")
# A warning as Python prints it: "path:line: Category: message".
WARNING_LINE = re.compile(r"^(?P<where>\S.*?):(?P<line>\d+): (?P<category>[A-Za-z_]*Warning): (?P<message>.*)$")
GATED_WARNINGS = ("DeprecationWarning", "FutureWarning")
# A cell that exists to show a deprecation says so with this tag; the gate lets its warning through.
DEMONSTRATES_WARNING = "demonstrates-warning"
# Run in each kernel before a notebook's first cell. Python hides a DeprecationWarning that a
# library attributes to its own code, such as torch.jit.script's in 2.12, so a deprecated torch
# call in a cell would pass the gate unseen. This shows torch's deprecations when the first caller
# outside torch is the notebook's code, and keeps hiding those that torch raises while importing
# its own modules (2.13.0's torch.jit.script_method inside torch.compile, say).
SHOW_TORCH_DEPRECATIONS = r"""
import os as _os, sys as _sys, warnings as _warnings


def _course_showwarning(message, category, filename, lineno, file=None, line=None,
                        _show=_warnings.showwarning):
    in_torch = "torch" in _os.path.normpath(filename).split(_os.sep)
    if issubclass(category, DeprecationWarning) and in_torch:
        frame = _sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename, frame.f_lineno) != (filename, lineno):
            frame = frame.f_back
        while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "torch":
            frame = frame.f_back
        if frame is None or frame.f_globals.get("__name__") != "__main__":
            return
    _show(message, category, filename, lineno, file, line)


_warnings.showwarning = _course_showwarning
_warnings.filterwarnings("always", category=DeprecationWarning, module=r"torch(\.|$)")
"""


def source_hash(notebook: dict[str, Any]) -> str:
    """A hash of what the notebook says and runs: its cells' types and sources, not outputs."""
    cells = [[cell.get("cell_type"), cell_source(cell)] for cell in notebook["cells"]]
    return hashlib.sha256(json.dumps(cells, ensure_ascii=False).encode("utf-8")).hexdigest()


def record_name(notebook: str) -> str:
    """The file name of a notebook's record: notebooks/graphs/x.ipynb -> graphs__x.json."""
    relative = notebook.removeprefix("notebooks/").removesuffix(".ipynb")
    return relative.replace("/", "__") + ".json"


def release(torch_version: str) -> str:
    """The release of a torch version string: 2.12.0+cu130 -> 2.12.0."""
    return torch_version.split("+")[0]


def environment() -> dict[str, Any]:
    """The machine and torch of this process, described as the run records want it."""
    import torch

    from tools.records.results import provenance

    device = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")
    prov = provenance(device, "")
    if torch.version.hip:
        build = f"HIP {torch.version.hip}"
    elif torch.version.cuda:
        build = f"CUDA {torch.version.cuda}"
    elif getattr(torch.version, "xpu", None):
        build = "XPU"
    else:
        build = "CPU"
    return {
        "platform": prov["platform"],
        "device": prov["device"],
        "torch": prov["torch"],
        "torch_build": build,
        "runtime": prov["runtime"],
        "driver": prov["driver"],
        "python": prov["python"],
        "os": platform.platform(terse=True),
        "numpy": _numpy_version(),
    }


def _numpy_version() -> str | None:
    try:
        import numpy
    except ImportError:
        return None
    return numpy.__version__


def warnings_in(text: str) -> list[tuple[str, str]]:
    """Each (category, message) of the warnings Python printed into a cell's stderr."""
    found = []
    for line in text.splitlines():
        match = WARNING_LINE.match(line)
        if match:
            found.append((match["category"], match["message"].strip()))
    return found


def stream_text(outputs: Iterable[Any], name: str) -> str:
    """The text a cell printed to one stream ("stdout" or "stderr")."""
    return "".join(out.get("text", "") for out in outputs
                   if out.get("output_type") == "stream" and out.get("name") == name)


def printed_skip(outputs: Iterable[Any]) -> bool:
    """Whether a cell printed a "Skipped on ..." line (the setup cell's skip() helper)."""
    return any(line.startswith("Skipped on ") for line in stream_text(outputs, "stdout").splitlines())


def error_text(outputs: Iterable[Any], fallback: str = "failed") -> str:
    """The first line of a cell's error output ("Name: message"), else the fallback's last line."""
    for out in outputs:
        if out.get("output_type") == "error":
            return f"{out.get('ename')}: {out.get('evalue')}".splitlines()[0][:300]
    lines = fallback.strip().splitlines()
    return lines[-1][:300] if lines else "failed"


def gate_message(notebook: str, cell: int, printed: list[tuple[str, str]], tags: Iterable[str]) -> str | None:
    """The deprecation gate: why a cell that printed a deprecation fails, or None when it passes."""
    gated = [f"{category}: {message}" for category, message in printed if category in GATED_WARNINGS]
    if not gated or DEMONSTRATES_WARNING in tags:
        return None
    return (f"{notebook}, code cell {cell}: the deprecation gate stops a cell that raises "
            f"{' / '.join(gated)}. Update the call, or, if the cell exists to show this warning, "
            f"tag it '{DEMONSTRATES_WARNING}' and say so in its prose.")


def new_record(notebook: str, source: dict[str, Any], *, failed_cell: dict[str, Any] | None, seconds: float,
               peak_memory_bytes: int, skipped_cells: int, warnings: list[dict[str, Any]],
               env: dict[str, Any], command: str, executed_notebook: str | None = None) -> dict[str, Any]:
    """A run record of one execution of a notebook (the schema above); `source` is the notebook's JSON."""
    return {
        "schema": SCHEMA,
        "notebook": notebook,
        "source_sha256": source_hash(source),
        "outcome": "fail" if failed_cell else "pass",
        "failed_cell": failed_cell,
        "seconds": round(seconds, 2),
        "peak_memory_bytes": peak_memory_bytes or None,
        "skipped_cells": skipped_cells,
        "warnings": warnings,
        "environment": env,
        "date": now(),
        "command": command,
        "executed_notebook": executed_notebook,
    }


def now() -> str:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


def problems(record: Any) -> list[str]:
    """What is wrong with a record; an empty list when it follows the schema."""
    if not isinstance(record, dict):
        return ["a record is a JSON object"]
    found = []
    if record.get("schema") != SCHEMA:
        found.append(f"schema is {record.get('schema')!r}, expected {SCHEMA}")
    notebook = record.get("notebook")
    if not isinstance(notebook, str) or not re.fullmatch(r"notebooks/[\w./-]+\.ipynb", notebook):
        found.append("notebook must be a path like notebooks/<chapter>/<name>.ipynb")
    if not re.fullmatch(r"[0-9a-f]{64}", str(record.get("source_sha256", ""))):
        found.append("source_sha256 must be a sha256 hex digest")
    if record.get("outcome") not in OUTCOMES:
        found.append(f"outcome must be one of {OUTCOMES}")
    failed = record.get("failed_cell")
    if record.get("outcome") == "fail" and not (isinstance(failed, dict) and isinstance(failed.get("index"), int)):
        found.append("a failed run names its failed_cell (index and error)")
    if record.get("outcome") == "pass" and failed is not None:
        found.append("a passing run has failed_cell null")
    seconds = record.get("seconds")
    if not isinstance(seconds, (int, float)) or seconds < 0:
        found.append("seconds must be a number >= 0")
    memory = record.get("peak_memory_bytes")
    if memory is not None and (not isinstance(memory, int) or memory <= 0):
        found.append("peak_memory_bytes must be a positive integer or null")
    if not isinstance(record.get("skipped_cells"), int) or record["skipped_cells"] < 0:
        found.append("skipped_cells must be an integer >= 0")
    warnings = record.get("warnings")
    if not isinstance(warnings, list) or not all(
        isinstance(w, dict) and {"cell", "category", "message"} <= w.keys() for w in warnings
    ):
        found.append("warnings must be a list of {cell, category, message}")
    env = record.get("environment")
    if not isinstance(env, dict):
        return [*found, "environment is missing"]
    found += [f"environment lacks {key!r}" for key in ENVIRONMENT_KEYS if key not in env]
    if env.get("platform") not in PLATFORMS:
        found.append(f"environment.platform must be one of {PLATFORMS}")
    if env.get("platform") != "cpu" and env.get("torch_build") == "CPU":
        found.append("a CPU build of torch cannot have run on an accelerator")
    try:
        datetime.datetime.fromisoformat(str(record.get("date")))
    except ValueError:
        found.append("date must be an ISO 8601 timestamp")
    if not isinstance(record.get("command"), str) or not record["command"]:
        found.append("command must say what ran it")
    return found


def write_record(folder: Path, record: dict[str, Any]) -> Path:
    """Check and write one record; returns its path."""
    errors = problems(record)
    if errors:
        raise CourseError(f"refusing to write a malformed run record for {record.get('notebook')}: {'; '.join(errors)}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / record_name(record["notebook"])
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load_records(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every record under a folder, with its path; a malformed file is a CourseError naming it."""
    loaded = []
    for path in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CourseError(f"{path}: not valid JSON ({error})") from error
        errors = problems(record)
        if errors:
            raise CourseError(f"{path}: {'; '.join(errors)}")
        loaded.append((path, record))
    return loaded


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
    record: str  # the newest record's path, relative to the repository
    executed_notebook: str | None


def status(records: Iterable[tuple[Path, dict[str, Any]]], root: Path = ROOT) -> list[Cell]:
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
    cells = []
    for (notebook, platform_name, torch_release), found in sorted(groups.items()):
        fresh = [(p, r) for p, r in found if r["source_sha256"] == current[notebook]]
        counted = fresh or found
        newest_path, newest = max(counted, key=lambda item: item[1]["date"])
        failures = sum(r["outcome"] == "fail" for _, r in counted)
        if not fresh:
            state = "stale"
        elif 0 < failures < len(fresh):
            state = "flaky"
        else:
            state = "fail" if failures else "pass"
        cells.append(Cell(
            notebook=notebook, platform=platform_name, release=torch_release, state=state,
            runs=len(counted), failures=failures, date=newest["date"][:10], seconds=newest["seconds"],
            peak_memory_bytes=newest["peak_memory_bytes"], device=newest["environment"]["device"],
            record=relative_path(newest_path, root), executed_notebook=newest.get("executed_notebook"),
        ))
    return cells


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


def status_json(cells: list[Cell]) -> dict[str, Any]:
    """The status table as published in the built site."""
    return {"schema": SCHEMA, "generated": now(), "cells": [dataclasses.asdict(cell) for cell in cells]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="the timing report of the records under a folder")
    report.add_argument("folder", type=Path)
    check = commands.add_parser("check", help="validate the records under a folder")
    check.add_argument("folder", type=Path, nargs="?", default=RUNS)
    commands.add_parser("status", help="print where each notebook has run (results/runs)")
    args = parser.parse_args(argv)
    try:
        if args.command == "report":
            if not args.folder.is_dir():
                raise CourseError(f"{args.folder}: no such folder of run records")
            records = [record for _, record in load_records(args.folder)]
            print("\n".join(timing_report(records)) or f"no run records under {args.folder}")
        elif args.command == "check":
            loaded = load_records(args.folder)
            print(f"{len(loaded)} run record(s) under {args.folder} follow schema {SCHEMA}")
        else:
            for cell in status(load_records(RUNS)):
                print(f"{cell.state:6} {cell.platform:5} torch {cell.release:8} {cell.date} "
                      f"{cell.runs} run(s) {cell.notebook}")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
