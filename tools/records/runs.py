"""The run record: its fields (tools/schemas/run-record.schema.json), making one, writing and reading it.

Every execution of a notebook by the course's own tools (nbval with tools/execute/pytest_plugin.py: `make test`,
the torch version matrix, a recording run on an accelerator) writes one JSON record per notebook. The schema,
version 1, says what each field holds; in short:

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

Records written by tools/execute/pytest_plugin.py add `wall_seconds`, `cpu_seconds`, `exercises` and, under
`make test`, `steps`; records of repeated runs (`make flaky`, `make status-records`: tools/execute/matrix.py's
mark_flaky) add `verdict_runs` and `flaky`. Every record is checked against the schema before it is
written and when it is read; a bad one is a CourseError of one line naming the file and the field.

Records live in two places: `_build/runs/` for the runs of this checkout (never committed) and
`results/runs/` for the committed ones, refreshed by `make status-records`; tools/records/status.py
adds them up for the status page.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import platform
from pathlib import Path
from typing import Any

import jsonschema

from tools.course import ROOT, CourseError, cell_source

SCHEMA = 1
RECORD_SCHEMA = json.loads((Path(__file__).parents[1] / "schemas" / "run-record.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(RECORD_SCHEMA)


def runs_folder(root: Path) -> Path:
    """Where a book's committed run records live."""
    return root / "results" / "runs"


RUNS = runs_folder(ROOT)
BUILD_RUNS = ROOT / "_build" / "runs"


def build_run_folder(root: Path, release: str, attempt: int = 1) -> Path:
    """Where a checkout's run `attempt` on a torch release writes its records (never committed): the first run on
    the taught release is the one the book shows (`make book`, `make test`)."""
    return root / BUILD_RUNS.relative_to(ROOT) / f"torch-{release}" / f"run-{attempt}"


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
    """This moment in UTC, to the second, as a record's date."""
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


def _field(path: Any) -> str:
    """Where in a record a problem lies: environment.platform, warnings[2].cell; `record` for the whole."""
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")
    return text or "record"


def _problem(error: jsonschema.ValidationError) -> str:
    """One schema error as a line that names the field."""
    if error.schema_path and error.schema_path[0] == "allOf":
        return str(RECORD_SCHEMA["allOf"][error.schema_path[1]]["description"])
    where = list(error.absolute_path)
    if error.validator == "required":
        missing = next(name for name in error.validator_value if name not in error.instance)
        described = error.schema["properties"][missing].get("description")
        return f"{_field([*where, missing])}: missing" + (f" ({described})" if described else "")
    if error.validator == "oneOf":
        return f"{_field(where)}: {error.schema['description']}"
    return f"{_field(where)}: {error.message}"


def problems(record: Any) -> list[str]:
    """What is wrong with a record, one line each naming the field; an empty list when it follows the schema."""
    if not isinstance(record, dict):
        return ["a record is a JSON object"]
    found: list[str] = []
    for error in sorted(VALIDATOR.iter_errors(record), key=lambda e: (_field(e.absolute_path), e.message)):
        line = _problem(error)
        if line not in found:
            found.append(line)
    return found


def save_record(path: Path, record: dict[str, Any]) -> Path:
    """Check one record against the schema and write it to `path`; a CourseError naming the file if it breaks it."""
    errors = problems(record)
    if errors:
        raise CourseError(f"{path}: refusing to write a malformed run record: {'; '.join(errors)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def write_record(folder: Path, record: dict[str, Any]) -> Path:
    """Check and write one record into a folder of records, under its notebook's name; returns its path."""
    notebook = record.get("notebook")
    if not isinstance(notebook, str):
        raise CourseError(f"{folder}: refusing to write a run record without a notebook: {'; '.join(problems(record))}")
    return save_record(folder / record_name(notebook), record)


def checked(path: Path, record: Any) -> dict[str, Any]:
    """The record read from `path` if it follows the schema; else a CourseError of one line naming file and field."""
    errors = problems(record)
    if errors:
        raise CourseError(f"{path}: {'; '.join(errors)}")
    return dict(record)


def read_record(path: Path) -> dict[str, Any]:
    """One record, checked against the schema; a CourseError of one line naming the file and the field."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CourseError(f"{path}: not valid JSON ({error})") from error
    return checked(path, record)


def load_records(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Every record under a folder, with its path, each checked as read_record checks it."""
    return [(path, read_record(path)) for path in sorted(folder.rglob("*.json"))] if folder.is_dir() else []
