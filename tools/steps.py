"""Run the steps of `make test`, side by side where the 2-core machine gains, and say how long each took.

    python -m tools.steps [--summary FILE] [STEP ...]     (default: every step of PLAN)

Each step is a make target, so that it also runs alone (`make unit`). Stages run in order; the steps of one stage
run side by side, the first printing as it goes, the others printing when they end. After the last step, or the
first that fails, a summary closes the output: one line per step with its seconds, the total, and the machine's
load average, so that a regression is plain to see. The same summary goes to FILE as JSON, and every run record
written by the notebooks step names that file (its "steps" field).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tools.course import ROOT

# `make test`, in stages, chosen on a 2-core machine: the type check (one mypy process) beside the notebooks, which
# leave part of the CPU idle while kernels start and wait; the unit tests beside the browser check, which mostly
# waits for pages (34 s of CPU in a 258 s run). The book needs the notebooks' run; the browser check needs the book.
# The unit tests after the type check also find its mypy cache warm (tests/test_typecheck.py shares it).
# The editions' catalog check (a gettext extraction, seconds) runs beside the lint.
PLAN: tuple[tuple[str, ...], ...] = (("lint", "editions"), ("notebooks", "typecheck"), ("book",), ("browser", "unit"))
# The make target of each step, where it differs from the step's name.
TARGETS = {"book": "book-from-run"}
SUMMARY = ROOT / "_build" / "runs" / "make-test-steps.json"
NOTEBOOKS_SUMMARY = "make-test-notebooks.json"  # beside SUMMARY, written by the notebooks step (tests/nbreport.py)
STEPS_ENV = "COURSE_STEPS_FILE"


@dataclasses.dataclass
class Step:
    name: str
    stage: int
    seconds: float = 0.0
    outcome: str = "not run"  # "pass", "fail" or "not run"
    beside: list[str] = dataclasses.field(default_factory=list)


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def run_stage(steps: list[Step], summary: Path) -> None:
    """Run one stage's steps side by side; the first prints as it goes, the others when they end.

    The notebooks step learns where the summary goes (its records name it); no other step does, so that the
    notebook runs of the unit tests write nothing beside it."""
    started = time.perf_counter()
    running: list[tuple[Step, subprocess.Popen[bytes], Any]] = []
    for index, step in enumerate(steps):
        step.beside = [other.name for other in steps if other is not step]
        command = ["make", "--no-print-directory", TARGETS.get(step.name, step.name)]
        log = None if index == 0 else tempfile.TemporaryFile()
        print(f"==> {step.name}" + (f" (beside {', '.join(step.beside)})" if step.beside else ""), flush=True)
        env = {**os.environ, STEPS_ENV: str(summary)} if step.name == "notebooks" else None
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT if log else None)
        running.append((step, process, log))
    pending = list(running)
    while pending:
        for entry in list(pending):
            step, process, _ = entry
            if process.poll() is not None:
                step.seconds = time.perf_counter() - started
                step.outcome = "pass" if process.returncode == 0 else "fail"
                pending.remove(entry)
        time.sleep(0.2)
    for step, _, log in running:
        if log is not None:
            log.seek(0)
            print(f"==> {step.name} (ran beside {', '.join(step.beside)}), its output:", flush=True)
            sys.stdout.buffer.write(log.read())
            sys.stdout.flush()
            log.close()


def summary_lines(steps: list[Step], total: float, load: dict[str, list[float]],
                  notebooks: dict[str, Any] | None) -> list[str]:
    lines = ["make test, step by step (seconds of wall time; steps of one stage ran side by side):"]
    for step in steps:
        seconds = f"{step.seconds:7.1f} s" if step.outcome != "not run" else "      - "
        note = f"  beside {', '.join(step.beside)}" if step.beside else ""
        if step.name == "notebooks" and notebooks:
            note += (f"  {notebooks['notebooks']} notebooks, {notebooks['jobs']} at a time, peak memory "
                     f"{notebooks['peak_memory_bytes'] / 2**30:.1f} GiB")
        lines.append(f"  {step.name:10} {seconds}  {step.outcome:7}{note}")
    lines.append(f"  {'total':10} {total:7.1f} s  on {os.cpu_count()} CPUs; load average "
                 f"{load.get('start')} at the start, {load.get('end')} at the end")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.steps", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("steps", nargs="*", help="run only these steps (default: all)")
    parser.add_argument("--summary", type=Path, default=SUMMARY, help=f"write the summary here ({SUMMARY})")
    args = parser.parse_args(argv)
    known = [name for stage in PLAN for name in stage]
    unknown = [name for name in args.steps if name not in known]
    if unknown:
        print(f"error: unknown step(s) {', '.join(unknown)}; the steps are {', '.join(known)}", file=sys.stderr)
        return 2
    chosen = set(args.steps or known)
    stages = [[Step(name, number) for name in stage if name in chosen] for number, stage in enumerate(PLAN, 1)]
    steps = [step for stage in stages for step in stage]
    summary = args.summary.resolve()
    summary.parent.mkdir(parents=True, exist_ok=True)
    notebooks_file = summary.parent / NOTEBOOKS_SUMMARY
    notebooks_file.unlink(missing_ok=True)
    load = {"start": _load()}
    started = time.perf_counter()
    for stage in stages:
        if stage:
            run_stage(stage, summary)
        if any(step.outcome == "fail" for step in stage):
            break
    total = time.perf_counter() - started
    load["end"] = _load()
    notebooks = json.loads(notebooks_file.read_text()) if notebooks_file.is_file() else None
    lines = summary_lines(steps, total, load, notebooks)
    print("\n" + "\n".join(lines))
    summary.write_text(json.dumps({
        "schema": 1, "command": "make test", "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "steps": [dataclasses.asdict(step) | {"seconds": round(step.seconds, 1)} for step in steps],
        "total_seconds": round(total, 1), "cpus": os.cpu_count(), "load_average": load, "notebooks": notebooks,
    }, indent=2) + "\n", encoding="utf-8")
    failed = [step.name for step in steps if step.outcome == "fail"]
    if failed:
        print(f"make test: FAILED at {', '.join(failed)} (summary: {summary})")
        return 1
    print(f"make test: every check passed (summary: {summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
