"""`make test` is a Make graph that shows its order (`make -n test`), and tools/step_times.py times its steps."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tools import step_times
from tools.course import ROOT


def _plan(target: str) -> list[str]:
    done = subprocess.run(["make", "-n", "--no-print-directory", target], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def _steps(plan: list[str]) -> list[str]:
    return [line.split(" run _build/runs/steps ")[1].split()[0] for line in plan if " run _build/runs/steps " in line]


def test_make_n_test_prints_the_plan_cheap_checks_first() -> None:
    steps = _steps(_plan("test"))
    static = {"content", "lint", "zizmor", "editions"}
    assert static <= set(steps[:len(static)]), f"the static checks come first: {steps}"
    assert steps[0] == "content", f"the content suite opens the static step: {steps}"
    for before, after in [("notebooks", "book"), ("book", "editions-build"), ("book", "browser")]:
        assert steps.index(before) < steps.index(after), f"{after} reads what {before} made: {steps}"
    assert {"typecheck", "unit", "integration"} <= set(steps)


def test_each_content_check_runs_once() -> None:
    """The content suite is the static step; the unit and integration steps leave it out, and no command-line
    twin of a content check (a `--check` of conventions, stamps, sizes, quizzes or workshop pages) runs beside it."""
    plan = _plan("test")
    (content,) = [line for line in plan if " run _build/runs/steps content " in line]
    assert "-m pytest tests/content -x" in content
    for step in ("unit", "integration"):
        (line,) = [line for line in plan if f" run _build/runs/steps {step} " in line]
        assert "--ignore=tests/content" in line, f"{step} would run the content checks a second time: {line}"
    twins = ("tools.checks.conventions", "tools.author.stamp", "tools.checks.lesson_size", "tools.author.quiz",
             "tools.workshop pages")
    assert [line for line in plan if any(twin in line for twin in twins)] == []


def test_make_book_executes_through_nbval_once_then_renders() -> None:
    """`make test` runs the one command once (nbval with the course's plugin, two notebooks at a time, every lesson
    of _toc.yml), then the book renders that run; no other step executes a notebook."""
    from tools.execute import command

    plan = "\n".join(_plan("test"))
    one = " ".join([*command.PLUGIN, *command.parallel(command.JOBS)])
    assert plan.count(one) == 1, f"the notebooks step runs `{one}` once in make test"
    assert "--book-cache _build/.jupyter_cache" in plan and "tools.execute.command lessons" in plan
    assert plan.index(one) < plan.index("jupyter-book build")
    for other in ("--execute", "tools.execute.exercises", "tools.execute.student_copies", "tools.execute.matrix run"):
        assert other not in plan, f"make test executes notebooks only through the one command, not {other}"


def test_the_authors_loops_are_options_of_the_one_command() -> None:
    from tools.execute import command

    one = " ".join(command.PLUGIN)
    assert f"{one} " in "\n".join(_plan("exercises")) and "--exercises-only" in "\n".join(_plan("exercises"))
    done = subprocess.run(["make", "-n", "--no-print-directory", "exercises", "EXERCISE=cuda-pick-wheel",
                           "NOTEBOOKS=notebooks/platforms/cuda.ipynb"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True).stdout
    assert "--exercise cuda-pick-wheel notebooks/platforms/cuda.ipynb" in done
    one_notebook = ["make", "-n", "--no-print-directory", "notebooks", "NOTEBOOKS=notebooks/platforms/cuda.ipynb"]
    done = subprocess.run(one_notebook, cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout
    assert f"{one} " in done and done.rstrip().endswith("notebooks/platforms/cuda.ipynb"), done


def test_a_step_is_timed_and_its_failure_kept(tmp_path: Path) -> None:
    assert step_times.run(tmp_path, "ok", [sys.executable, "-c", "pass"]) == 0
    assert step_times.run(tmp_path, "broken", [sys.executable, "-c", "raise SystemExit(3)"]) == 3
    assert step_times.run(tmp_path, "missing", ["no-such-command-here"]) == 127
    found = {step["name"]: step for step in step_times.steps(tmp_path)}
    assert found["ok"]["outcome"] == "pass" and found["broken"]["outcome"] == "fail"
    assert step_times.summary(tmp_path, tmp_path / "summary.json") == 1
    written = json.loads((tmp_path / "summary.json").read_text())
    assert [step["name"] for step in written["steps"]] == ["ok", "broken", "missing"]


def test_the_summary_names_steps_side_by_side() -> None:
    found = [{"name": "notebooks", "started": 0.0, "seconds": 100.0, "outcome": "pass", "load_average": [1.0]},
             {"name": "typecheck", "started": 1.0, "seconds": 50.0, "outcome": "pass", "load_average": [1.0]},
             {"name": "book", "started": 101.0, "seconds": 20.0, "outcome": "fail", "load_average": [2.0]}]
    lines = step_times.summary_lines(found, {"notebooks": 29, "jobs": 2, "peak_memory_bytes": 2**30})
    assert "beside typecheck" in lines[1] and "29 notebooks, 2 at a time" in lines[1]
    assert lines[3].split()[:4] == ["book", "20.0", "s", "fail"] and "beside" not in lines[3]
    assert lines[4].startswith("  total") and "121.0 s" in lines[4]


def test_a_step_counts_the_cpu_time_of_its_processes(tmp_path: Path) -> None:
    """A step that spins in a child process for a second costs about a second of CPU; one that sleeps, nothing."""
    spin = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end: pass"
    assert step_times.run(tmp_path, "spins", [sys.executable, "-c", spin]) == 0
    assert step_times.run(tmp_path, "sleeps", [sys.executable, "-c", "import time; time.sleep(1.0)"]) == 0
    found = {step["name"]: step for step in step_times.steps(tmp_path)}
    assert found["spins"]["cpu_seconds"] >= 0.9, found["spins"]
    assert found["sleeps"]["cpu_seconds"] < 0.5 and found["sleeps"]["seconds"] >= 1.0, found["sleeps"]
    lines = step_times.summary_lines(list(found.values()), None)
    assert "s CPU" in lines[1] and "at least" in lines[-1], lines
    busy = step_times.machine_busy(list(found.values()))
    if busy is not None:  # Linux: the machine's counter saw the spinning second too
        assert busy >= 0.9 and f"busy for {busy:.1f} s" in lines[-1], (busy, lines[-1])


def test_the_machine_busy_total_spans_the_steps_and_needs_every_step() -> None:
    steps = [{"name": "a", "machine_busy_seconds": [100.0, 150.0]},
             {"name": "b", "machine_busy_seconds": [120.0, 400.0]}]
    assert step_times.machine_busy(steps) == 300.0
    assert step_times.machine_busy([*steps, {"name": "c", "machine_busy_seconds": None}]) is None
    assert step_times.machine_busy([*steps, {"name": "old"}]) is None


def test_a_failure_outside_the_timed_steps_fails_the_summary(tmp_path: Path) -> None:
    assert step_times.run(tmp_path, "ok", [sys.executable, "-c", "pass"]) == 0
    (tmp_path / "make.failed").write_text("2\n")
    assert step_times.summary(tmp_path, None) == 1


def test_each_recording_has_one_name() -> None:
    """record-runs: the notebooks run here, kept with their records; status-records: the status page's records;
    record-eigh: the eigh benchmark's result. The older names (record, records) are gone."""
    assert "tools.execute.matrix record-runs" in "\n".join(_plan("record-runs"))
    assert "tools.execute.matrix status-records" in "\n".join(_plan("status-records"))
    assert "tools.records.record_eigh" in "\n".join(_plan("record-eigh"))
    assert "tools.records status" in "\n".join(_plan("status"))
    for gone in ("record", "records"):
        done = subprocess.run(["make", "-n", gone], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode != 0, f"make {gone} should no longer exist"
