"""Reference results: measurements recorded on real hardware, each file with its provenance.

A result file is JSON:

    {
      "schema": 1,
      "benchmark": "eigh-batched",
      "provenance": {"device": ..., "platform": ..., "torch": ..., "runtime": ..., "driver": ...,
                     "python": ..., "date": "YYYY-MM-DD", "command": ...},
      "rows": [{"impl": ..., "seconds": ..., <the benchmark's own keys>}, ...]
    }

Notebooks read these files with plain `json` (they must also run where the repository is absent,
as on Colab); tools write them with `write_result` and tests check them with `problems`.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import torch

SCHEMA = 1
PROVENANCE_KEYS = ("device", "platform", "torch", "runtime", "driver", "python", "date", "command")


def _nvidia_driver() -> str | None:
    """The NVIDIA driver version from nvidia-smi, or None where there is none."""
    if shutil.which("nvidia-smi") is None:
        return None
    answer = subprocess.run(
        ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
        capture_output=True, text=True, timeout=30, check=False,
    )
    return answer.stdout.strip().splitlines()[0] if answer.returncode == 0 and answer.stdout.strip() else None


def provenance(device: torch.device, command: str) -> dict[str, Any]:
    """Where, when and how a measurement was made."""
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        runtime = f"HIP {torch.version.hip}" if torch.version.hip else f"CUDA {torch.version.cuda}"
        driver = _nvidia_driver()
        kind = "rocm" if torch.version.hip else "cuda"
    elif device.type == "xpu":
        name, runtime, driver, kind = torch.xpu.get_device_name(device), "XPU", None, "xpu"
    elif device.type == "mps":
        name, runtime, driver, kind = "Apple GPU (MPS)", f"macOS {platform.mac_ver()[0]}", None, "mps"
    else:
        name = f"{_cpu_model()}, {torch.get_num_threads()} threads"
        runtime, driver, kind = "CPU", None, "cpu"
    return {
        "device": name,
        "platform": kind,
        "torch": torch.__version__,
        "runtime": runtime,
        "driver": driver,
        "python": platform.python_version(),
        "numpy": _version_of("numpy"),
        "date": datetime.date.today().isoformat(),
        "command": command,
        # Other work on the machine skews timings; the 1-minute load average says how busy it was.
        "load_average": round(os.getloadavg()[0], 2),
    }


def _cpu_model() -> str:
    """The CPU's model name where Linux tells it, else the architecture."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return f"{platform.machine()} CPU"


def _version_of(module: str) -> str | None:
    found = sys.modules.get(module)
    return getattr(found, "__version__", None) if found else None


def problems(data: Any) -> list[str]:
    """What is wrong with a result file's content; an empty list when it is well formed."""
    if not isinstance(data, dict):
        return ["the file does not hold a JSON object"]
    found = []
    if data.get("schema") != SCHEMA:
        found.append(f"schema is {data.get('schema')!r}, expected {SCHEMA}")
    if not isinstance(data.get("benchmark"), str) or not data["benchmark"]:
        found.append("benchmark must name the benchmark")
    prov = data.get("provenance")
    if not isinstance(prov, dict):
        return [*found, "provenance is missing"]
    found += [f"provenance lacks {key!r}" for key in PROVENANCE_KEYS if key not in prov]
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(prov.get("date", ""))):
        found.append("provenance date must be YYYY-MM-DD")
    rows = data.get("rows")
    if not isinstance(rows, list) or not rows:
        return [*found, "rows must be a non-empty list"]
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or "impl" not in row:
            found.append(f"row {index} has no 'impl'")
        elif not isinstance(row.get("seconds"), (int, float)) or not row["seconds"] > 0:
            found.append(f"row {index} needs a positive number of 'seconds'")
    return found


def result_name(benchmark: str, prov: dict[str, Any]) -> str:
    """A file name that says what, where and with which torch: eigh-batched_cpu_torch-2.12.0_2026-11-29.json."""
    torch_version = str(prov["torch"]).split("+")[0]
    device = re.sub(r"[^a-z0-9]+", "-", str(prov["device"]).lower()).strip("-")[:40]
    return f"{benchmark}_{prov['platform']}_{device}_torch-{torch_version}_{prov['date']}.json"


def write_result(folder: Path, benchmark: str, rows: list[dict[str, Any]], prov: dict[str, Any]) -> Path:
    """Check and write one result file; returns its path."""
    data = {"schema": SCHEMA, "benchmark": benchmark, "provenance": prov, "rows": rows}
    errors = problems(data)
    if errors:
        raise ValueError("refusing to write a malformed result: " + "; ".join(errors))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / result_name(benchmark, prov)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path
