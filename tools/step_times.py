"""Time each step of `make test` and close its output with a summary of their seconds.

    python -m tools.step_times run FOLDER STEP -- COMMAND ...   run COMMAND; write FOLDER/STEP.json (seconds, CPU
                                                                 seconds, outcome)
    python -m tools.step_times summary FOLDER [--write FILE]     one line per step, the total and the load average

The Makefile says the order (`make -n test` prints it); this module only times what make runs and sums it up, so a
regression is plain to see. Wall time depends on what else the machine does; CPU seconds (user and system time of
the step's processes, kernels and browsers included once they have exited) barely do, so a run on a busy machine
still shows which step costs what. They count the processes that exited and were waited for: kernels, workers and
pytest, not the renderers that chromedriver ends (the browser step's figure leaves out Chromium's own time). On
Linux the total also says how long the machine's CPUs were busy from the first step's start to the last one's end
(/proc/stat): every process, Chromium's and anything else running included, so on a quiet machine it is what the
run cost and sets the least wall time it could take. `--write` keeps the summary as JSON (the run records of the
notebooks step name it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

NOTEBOOKS = "notebooks.summary.json"  # in FOLDER, written by the notebooks step (tools/execute/pytest_plugin.py)


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def _children_cpu_seconds() -> float:
    """User and system seconds of this process's children that have exited and been waited for, and theirs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _machine_busy_seconds() -> float | None:
    """Seconds the machine's CPUs have been busy since it started, all processes (Linux's /proc/stat), else None."""
    try:
        fields = Path("/proc/stat").read_text(encoding="ascii").splitlines()[0].split()
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    # cpu user nice system idle iowait irq softirq steal ...: idle and iowait are not busy
    busy = sum(int(value) for index, value in enumerate(fields[1:9]) if index not in (3, 4))
    return round(busy / ticks, 2)


def run(folder: Path, step: str, command: list[str]) -> int:
    """Run one step's command and record its wall time, CPU time and outcome."""
    folder.mkdir(parents=True, exist_ok=True)
    started, began, cpu = time.perf_counter(), time.time(), _children_cpu_seconds()
    busy = _machine_busy_seconds()
    try:
        code = subprocess.run(command, check=False).returncode
    except FileNotFoundError:
        print(f"step_times: {step}: no such command: {command[0]}", file=sys.stderr)
        code = 127
    (folder / f"{step}.json").write_text(json.dumps({
        "name": step, "started": round(began, 3), "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(_children_cpu_seconds() - cpu, 1),
        "machine_busy_seconds": None if busy is None else [busy, _machine_busy_seconds()],
        "outcome": "pass" if code == 0 else "fail", "load_average": _load()}) + "\n", encoding="utf-8")
    return code


def steps(folder: Path) -> list[dict[str, Any]]:
    """The recorded steps, in the order they started."""
    found = [json.loads(path.read_text(encoding="utf-8")) for path in folder.glob("*.json") if path.name != NOTEBOOKS]
    found = [step for step in found if isinstance(step, dict) and "started" in step]
    return sorted(found, key=lambda step: step["started"])


def summary_lines(found: list[dict[str, Any]], notebooks: dict[str, Any] | None) -> list[str]:
    lines = ["make test, step by step (seconds of wall time and of CPU time; steps that overlapped ran side by side):"]
    for step in found:
        ends = step["started"] + step["seconds"]
        beside = [other["name"] for other in found if other is not step
                  and other["started"] < ends and step["started"] < other["started"] + other["seconds"]]
        note = f"  beside {', '.join(beside)}" if beside else ""
        if step["name"] == "notebooks" and notebooks:
            note += (f"  {notebooks['notebooks']} notebooks, {notebooks['jobs']} at a time, peak memory "
                     f"{notebooks['peak_memory_bytes'] / 2**30:.1f} GiB")
        cpu = f"{step['cpu_seconds']:7.1f} s CPU" if "cpu_seconds" in step else " " * 13
        lines.append(f"  {step['name']:16} {step['seconds']:7.1f} s {cpu}  {step['outcome']:7}{note}")
    if found:
        total = max(s["started"] + s["seconds"] for s in found) - min(s["started"] for s in found)
        cpu_total = sum(step.get("cpu_seconds", 0.0) for step in found)
        cpus = os.cpu_count() or 1
        busy = machine_busy(found)
        spent = max(cpu_total, busy or 0.0)
        whole = "" if busy is None else f"; the machine's CPUs busy for {busy:.1f} s, every process included"
        lines.append(f"  {'total':16} {total:7.1f} s {cpu_total:7.1f} s CPU  on {cpus} CPUs{whole} (at least "
                     f"{spent / cpus:.0f} s of wall time on a quiet machine); load average at the end "
                     f"{found[-1]['load_average']}")
    return lines


def machine_busy(found: list[dict[str, Any]]) -> float | None:
    """The seconds the machine's CPUs were busy from the first step's start to the last one's end, if every step
    read /proc/stat."""
    counters = [step.get("machine_busy_seconds") for step in found]
    if not counters or any(not pair or None in pair for pair in counters):
        return None
    return round(max(pair[1] for pair in counters) - min(pair[0] for pair in counters), 1)


def summary(folder: Path, write: Path | None) -> int:
    found = steps(folder)
    notebooks_file = folder / NOTEBOOKS
    notebooks = json.loads(notebooks_file.read_text(encoding="utf-8")) if notebooks_file.is_file() else None
    print("\n" + "\n".join(summary_lines(found, notebooks)))
    if write is not None:
        write.parent.mkdir(parents=True, exist_ok=True)
        write.write_text(json.dumps({"schema": 2, "command": "make test", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                                     "steps": found, "cpus": os.cpu_count(), "notebooks": notebooks},
                                    indent=2) + "\n", encoding="utf-8")
    failed = [step["name"] for step in found if step["outcome"] != "pass"]
    make_failed = folder / "make.failed"
    if make_failed.is_file() and not failed:  # make stopped at a command that is not a timed step
        failed = [f"a command outside the timed steps (make exit {make_failed.read_text().strip()})"]
    print(f"make test: FAILED at {', '.join(failed)}" if failed else "make test: every check passed")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.step_times", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run one step and record its time")
    run_parser.add_argument("folder", type=Path)
    run_parser.add_argument("step")
    run_parser.add_argument("step_command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    summary_parser = commands.add_parser("summary", help="print the steps' times")
    summary_parser.add_argument("folder", type=Path)
    summary_parser.add_argument("--write", type=Path, default=None, help="also write the summary as JSON here")
    args = parser.parse_args(argv)
    if args.command == "run":
        command = args.step_command[1:] if args.step_command[:1] == ["--"] else args.step_command
        if not command:
            parser.error("run needs a command after --")
        return run(args.folder, args.step, command)
    return summary(args.folder, args.write)


if __name__ == "__main__":
    sys.exit(main())
