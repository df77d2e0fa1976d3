"""The distributed lessons' launch helper (tools/snippets/torchrun.py): how a failed job explains itself, and
the worker's ending that keeps gloo's threads from aborting the process at exit (tests/repro/gloo_exit_abort.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tools.course import ROOT

SNIPPET = ROOT / "tools" / "snippets" / "torchrun.py"

# torchrun's summary of a job whose rank 0 aborted, as 2.13.0 printed it (rank 1 then got SIGTERM).
SUMMARY = """\
=======================================================
mean_op.py FAILED
-------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-06_15:17:19
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : -15 (pid: 10099)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 10099
-------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-06_15:17:19
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -6 (pid: 10098)  (SIGABRT)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 10098
======================================================="""


@pytest.fixture
def helper() -> Iterator[dict[str, Any]]:
    """The snippet's names, as the stamped cell defines them in a notebook."""
    names: dict[str, Any] = {}
    exec(compile(SNIPPET.read_text(encoding="utf-8"), str(SNIPPET), "exec"), names)
    yield names
    names["workdir"].cleanup()


def test_job_failure_shows_the_failing_ranks_own_lines_first(helper: dict[str, Any]) -> None:
    prefix = helper["STDERR_PREFIX"]
    output = "\n".join([
        "rank 0 and rank 1 print this on stdout",
        f"{prefix.format(rank=1)}a warning of rank 1",
        f"{prefix.format(rank=0)}terminate called without an active exception",
        f"{prefix.format(rank=0)}Fatal Python error: Aborted",
        SUMMARY,
    ])
    report = helper["job_failure"](subprocess.CompletedProcess([], 1, output))
    first, second = report.index("rank 0 exited with -6"), report.index("rank 1 exited with -15")
    assert first < second < report.index("torchrun's summary:"), report
    assert "  Fatal Python error: Aborted" in report[first:second], report
    assert "a warning of rank 1" in report[second:], report
    assert report.endswith(SUMMARY), report


def test_job_failure_without_a_summary_shows_the_end(helper: dict[str, Any]) -> None:
    output = "\n".join(f"line {n}" for n in range(40))
    report = helper["job_failure"](subprocess.CompletedProcess([], 1, output))
    assert "line 39" in report and "line 20" not in report, report


def run_job(helper: dict[str, Any], name: str, body: str) -> subprocess.CompletedProcess:
    (helper["work"] / name).write_text(body)
    job: subprocess.CompletedProcess = helper["torchrun"](name, timeout=120)
    return job


@pytest.mark.integration
def test_an_aborting_rank_is_named_with_its_python_stack(helper: dict[str, Any]) -> None:
    """A real job under torchrun: rank 0 aborts; the report names it and shows faulthandler's stack."""
    job = run_job(helper, "aborts.py", "import os, sys, time\nfrom join import rank\n"
                  "print('about to abort', file=sys.stderr, flush=True)\n"
                  "os.abort() if rank == 0 else time.sleep(60)\n")
    assert job.returncode != 0
    report = helper["job_failure"](job)
    rank0 = report.split("rank 1 exited")[0]
    assert report.startswith("rank 0 exited with -6"), report
    assert "about to abort" in rank0 and "Fatal Python error: Aborted" in rank0, report


@pytest.mark.integration
def test_finish_writes_the_results_and_exits_zero(helper: dict[str, Any]) -> None:
    """finish() leaves through os._exit(0): every rank's JSON is written, and the job succeeds."""
    job = run_job(helper, "ends.py", "from join import finish, rank\nfinish('ends', {'rank': rank})\n"
                  "raise SystemExit('finish() returned')\n")
    assert job.returncode == 0, helper["job_failure"](job)
    assert [result["rank"] for result in helper["rank_results"]("ends")] == [0, 1]



# ---- Windows: the paths the weekly Windows job takes, simulated here ---------------------------------------------

def never_kill(pid: int, sig: int) -> None:
    raise AssertionError(f"os.kill({pid}, {sig}) on Windows calls TerminateProcess: it ends the worker")


def test_workers_on_windows_without_psutil_are_listed_not_killed(helper: dict[str, Any],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: os.kill(pid, 0), which on Windows terminates the process it asks about."""
    import importlib.util
    import os
    import sys

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "kill", never_kill)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "psutil" else real_find_spec(name, *a))
    tasklist = {4242: '"python.exe","4242","Console","1","50,000 K"\n', 4343: "INFO: No tasks are running.\n"}

    def run(query: list[str], **_: Any) -> subprocess.CompletedProcess:
        assert query[:3] == ["tasklist", "/FI", f"PID eq {query[2].split()[-1]}"], query
        return subprocess.CompletedProcess(query, 0, tasklist[int(query[2].split()[-1])], "")

    monkeypatch.setattr(subprocess, "run", run)
    helper["worker_pids"][:] = [4242, 4343]
    assert helper["workers_still_running"]() == [4242]


def test_workers_are_asked_through_psutil_where_it_is_installed(helper: dict[str, Any],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import psutil

    monkeypatch.setattr(os, "kill", never_kill)
    monkeypatch.setattr(psutil, "pid_exists", lambda pid: pid == 7)
    helper["worker_pids"][:] = [7, 8]
    assert helper["workers_still_running"]() == [7]


def test_torchruns_log_folders_land_in_work_on_windows_too(helper: dict[str, Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's tempfile reads TEMP and TMP on Windows, not TMPDIR: the job gets all three (before: TMPDIR only)."""
    seen: dict[str, Any] = {}

    class Job:
        returncode = 0

        def __init__(self, command: list[str], **options: Any) -> None:
            seen.update(options["env"])

        def communicate(self, timeout: float) -> tuple[str, None]:
            return "", None

    monkeypatch.setattr(subprocess, "Popen", Job)
    helper["torchrun"]("job.py")
    work = str(helper["work"])
    assert (seen["TMPDIR"], seen["TEMP"], seen["TMP"]) == (work, work, work)
