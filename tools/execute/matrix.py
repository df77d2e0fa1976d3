"""Execute every notebook on each torch release of the version matrix.

torch-matrix.txt lists the releases; the first is the release the course teaches, which runs in
the book's own `.venv` (constraints.txt pins it). Every other release gets a virtual environment
of its own under $COURSE_VENVS (default ~/.cache/pytorch-2.12-course/venvs), made once and
reused until a requirements file changes. Each run executes every lesson once with the one command
`make test` runs (tools/execute/command.py: nbval with the course's plugin, every cell, the deprecation
gate, and each exercise's check against the stub, the wrong answers and the solution, two notebooks
at a time), and writes its run records under _build/runs/torch-<release>/run-<k>/.

    python -m tools.execute.matrix run [--releases R ...] [--repeat N] [--skip-fresh]
    python -m tools.execute.matrix status-records  run every release 3 times, then refresh results/runs/
    python -m tools.execute.matrix record-runs     record a run on this machine's accelerator
    python -m tools.execute.matrix venv R          make (or reuse) the environment of release R; print its python
    python -m tools.execute.matrix nbval R [--python PY] [--only NOTEBOOK ...]
                                                   the one command on release R, one notebook at a time, no records

`--skip-fresh` leaves out a release whose records from this checkout already cover every
notebook's current sources (`make test` has just run the taught release). A notebook that both
passes and fails on one release across repeats is flaky: its records say so, and so does the
status page.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tools.course import (
    CONSTRAINTS,
    ROOT,
    CourseError,
    notebook_paths,
    read_notebook,
    relative_path,
    taught_release,
    write_notebook,
)
from tools.execute.command import notebooks_command
from tools.lesson import starts_processes
from tools.records import runs

MATRIX_FILE = ROOT / "torch-matrix.txt"
REQUIREMENTS = (ROOT / "requirements.txt", ROOT / "requirements-test.txt")
VENVS = Path(os.environ.get("COURSE_VENVS", Path.home() / ".cache" / "pytorch-2.12-course" / "venvs"))
RECORDED = ROOT / "results" / "recorded"
RELEASE = re.compile(r"\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?")


def releases(path: Path = MATRIX_FILE) -> list[str]:
    """The releases of the version matrix, the taught one first."""
    found = [line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    found = [line for line in found if line]
    bad = [line for line in found if not RELEASE.fullmatch(line)]
    if bad or not found:
        raise CourseError(f"{path}: each line must be a torch release such as 2.12.0; got {bad or 'nothing'}")
    return found


def _fingerprint(release: str, root: Path = ROOT) -> str:
    """What a release's environment was installed from: the release, the requirements, and the checkout, since
    requirements.txt installs the scanner from it in editable mode (`-e .`): an environment made from another clone,
    since deleted, would fail to import the scanner."""
    digest = hashlib.sha256(f"{release}\n{root.resolve()}".encode())
    for path in REQUIREMENTS:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def venv_python(release: str) -> Path:
    """The python of a release's environment: the book's .venv for the taught one, else its own."""
    if release == taught_release():
        python = ROOT / ".venv" / "bin" / "python"
        if not python.exists():
            raise CourseError(f"{python} is missing: `make test` or `make book` creates it")
        return python
    folder = VENVS / f"torch-{release}"
    stamp = folder / ".course-deps"
    if stamp.is_file() and stamp.read_text() == _fingerprint(release):
        return folder / "bin" / "python"
    python = folder / "bin" / "python"
    print(f"matrix: installing the requirements with torch {release} into {folder}", flush=True)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    # A machine-wide pip constraint may cap torch below the newest release (this project's dev
    # machines cap it at 2.14.1); an empty constraints file replaces it for this install only.
    env = {**os.environ, "PIP_CONSTRAINT": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    requirements = [arg for path in REQUIREMENTS for arg in ("-r", str(path))]
    # cwd: requirements.txt installs the upgrade scanner from the repository root (`-e .`).
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *requirements, f"torch=={release}"],
                   check=True, env=env, cwd=ROOT)
    stamp.write_text(_fingerprint(release))
    return python


def _run_folder(release: str, attempt: int) -> Path:
    return runs.build_run_folder(ROOT, release, attempt)


def fresh(release: str) -> bool:
    """Whether this checkout already has passing records of every notebook's current sources."""
    folder = _run_folder(release, 1)
    if not folder.is_dir():
        return False
    found = {r["notebook"]: r for _, r in runs.load_records(folder)}
    for path in notebook_paths():
        record = found.get(relative_path(path))
        if (record is None or record["outcome"] != "pass"
                or record["source_sha256"] != runs.source_hash(read_notebook(path))
                or runs.release(record["environment"]["torch"]) != release):
            return False
    return True


def checked_python(python: str, release: str) -> str:
    """`python`, once it has shown that it imports torch `release` (a local build such as +cpu is the same release)."""
    try:
        done = subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                              text=True, check=False)
    except OSError as error:
        raise CourseError(f"{python}: {error.strerror}") from None
    found = done.stdout.strip()
    if done.returncode != 0 or runs.release(found) != release:
        problem = f"has torch {found}" if done.returncode == 0 else "cannot import torch"
        raise CourseError(f"{python} {problem}, not {release}")
    return python


def run_release(release: str, attempt: int, command: str, extra: list[str] | None = None,
                targets: Sequence[str] = ()) -> int:
    """Execute the notebooks of `targets` (default: all) once on one release; the pytest exit code."""
    python = venv_python(release)
    folder = _run_folder(release, attempt)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"matrix: torch {release}, run {attempt}", flush=True)
    args = notebooks_command(str(python), "--run-records", str(folder), "--run-command", command, *(extra or []),
                             targets=targets)
    return subprocess.run(args, cwd=ROOT, check=False).returncode


def multi_process_notebooks(root: Path = ROOT) -> list[str]:
    """The notebooks that start processes (course.multi_process, which the executor runs one at a time): the
    flake-prone ones."""
    return [str(path.relative_to(root)) for path in notebook_paths(root) if starts_processes(path)]


def repeats_to_see(failure_rate: float, probability: float) -> int:
    """Runs needed to see at least one failure of a notebook that fails at `failure_rate`, with `probability`."""
    return math.ceil(math.log(1 - probability) / math.log(1 - failure_rate))


def mark_flaky(release: str, attempts: int) -> list[str]:
    """Notebooks that passed and failed across the attempts on one release. Every record of a notebook run more
    than once says how many runs its verdict rests on (`verdict_runs`) and whether it is flaky."""
    outcomes: dict[str, list[str]] = {}
    loaded = []
    for attempt in range(1, attempts + 1):
        for path, record in runs.load_records(_run_folder(release, attempt)):
            outcomes.setdefault(record["notebook"], []).append(record["outcome"])
            loaded.append((path, record))
    flaky = sorted(notebook for notebook, seen in outcomes.items() if len(set(seen)) == 2)
    for path, record in loaded:
        record["verdict_runs"] = len(outcomes[record["notebook"]])
        record["flaky"] = record["notebook"] in flaky
        runs.save_record(path, record)
    return flaky


def run(selected: list[str], repeat: int, skip_fresh: bool, command: str, repeat_multi_process: int = 0) -> int:
    """Every notebook `repeat` times per release; then the notebooks that start processes again, up to
    `repeat_multi_process` runs in all, two at a time beside each other (their failures are rarer, need more runs
    and load to show, and each run's workers start in a fresh folder with cold compile caches)."""
    failures = []
    for release in selected:
        if skip_fresh and fresh(release):
            print(f"matrix: torch {release}: this checkout's records are fresh and pass; not run again")
            continue
        codes = [run_release(release, attempt, command) for attempt in range(1, repeat + 1)]
        extra = multi_process_notebooks() if repeat_multi_process > repeat else []
        attempts = repeat_multi_process if extra else repeat
        # Two at a time, each beside another (--crowded): gloo's exit race showed under that load (tests/repro/).
        codes += [run_release(release, attempt, command, ["--crowded"], targets=extra)
                  for attempt in range(repeat + 1, attempts + 1)]
        flaky = mark_flaky(release, attempts) if attempts > 1 else []
        for notebook in flaky:
            print(f"matrix: FLAKY on torch {release}: {notebook}")
        if any(codes):
            failures.append(release)
    if failures:
        print(f"matrix: notebooks failed on torch {', '.join(failures)} (records under {runs.BUILD_RUNS})")
        return 1
    print(f"matrix: every notebook passed on torch {', '.join(selected)}")
    return 0


def refresh_committed(selected: list[str]) -> None:
    """Replace the committed records of each platform and release with this checkout's."""
    for release in selected:
        source = runs.BUILD_RUNS / f"torch-{release}"
        loaded = runs.load_records(source)
        if not loaded:
            raise CourseError(f"no records under {source}: run the matrix first")
        platforms = {record["environment"]["platform"] for _, record in loaded}
        for platform_name in platforms:
            target = runs.RUNS / f"{platform_name}-torch-{release}"
            shutil.rmtree(target, ignore_errors=True)
            for path, record in loaded:
                if record["environment"]["platform"] == platform_name:
                    destination = target / path.relative_to(source)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, destination)
            print(f"records: {target}")


def record_accelerator_run(allow_cpu: bool, out: Path) -> int:
    """Execute every notebook here and keep the executed notebooks with their records."""
    environment = runs.environment()
    if environment["platform"] == "cpu" and not allow_cpu:
        print("error: no accelerator here; a CPU run is not an accelerator record "
              "(--allow-cpu makes one for tests)", file=sys.stderr)
        return 2
    device = re.sub(r"[^a-z0-9]+", "-", environment["device"].lower()).strip("-")[:40]
    name = f"{environment['platform']}_{device}_torch-{runs.release(environment['torch'])}_{datetime.date.today()}"
    folder = out / name
    shutil.rmtree(folder, ignore_errors=True)
    # One notebook at a time: the recorded timings are the accelerator's alone.
    args = notebooks_command(sys.executable, "--run-records", str(folder / "records"), "--run-command",
                             "make record-runs", "--save-executed", str(folder), jobs=1)
    code = subprocess.run(args, cwd=ROOT, check=False).returncode
    for _, record in runs.load_records(folder / "records"):
        if record.get("executed_notebook"):
            mark_recorded(ROOT / record["executed_notebook"], record)
    entries = list_recorded_in_toc()
    print(f"recorded: {folder} (pytest exit {code}); _toc.yml lists {len(entries)} recorded notebook(s); "
          "commit both, then `make book` shows them")
    return code


def provenance_text(record: dict[str, Any]) -> str:
    """The line at the top of a recorded notebook: where, on what and when it ran."""
    env = record["environment"]
    where = "a CPU (no accelerator)" if env["platform"] == "cpu" else f"{env['device']} ({env['platform'].upper()})"
    driver = f", driver {env['driver']}" if env.get("driver") else ""
    outcome = "passed" if record["outcome"] == "pass" else f"failed at code cell {record['failed_cell']['index']}"
    return (f"**Recorded run.** These outputs were recorded on {where}, torch {env['torch']} "
            f"({env['torch_build']} build{driver}), Python {env['python']}, on {record['date'][:10]} "
            f"by `{record['command']}`; the run {outcome} in {record['seconds']:.0f} s. "
            "The book shows them as recorded and does not execute this page again.")


def mark_recorded(path: Path, record: dict[str, Any]) -> None:
    """Put the provenance on top of an executed notebook and turn its execution off in the book."""
    notebook = read_notebook(path)
    notebook["metadata"].setdefault("mystnb", {})["execution_mode"] = "off"
    notebook["metadata"]["course_recorded_run"] = {
        "platform": record["environment"]["platform"], "device": record["environment"]["device"],
        "torch": record["environment"]["torch"], "date": record["date"], "notebook": record["notebook"],
        "source_sha256": record["source_sha256"], "outcome": record["outcome"],
    }
    title_cell = next(cell for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    title, _, rest = "".join(title_cell["source"]).partition("\n")
    title_cell["source"] = f"{title}\n\n{provenance_text(record)}\n{rest}"
    write_notebook(path, notebook)


def list_recorded_in_toc(root: Path = ROOT) -> list[str]:
    """List every recorded notebook as a section of the status page in _toc.yml; the entries."""
    toc = root / "_toc.yml"
    lines = toc.read_text(encoding="utf-8").splitlines()
    anchor = next((i for i, line in enumerate(lines) if line.strip() == "- file: chapters/where-it-has-run"), None)
    if anchor is None:
        raise CourseError(f"{toc} has no entry `- file: chapters/where-it-has-run` to list recorded runs under")
    indent = len(lines[anchor]) - len(lines[anchor].lstrip()) + 2
    end = anchor + 1
    while end < len(lines) and lines[end].strip() and len(lines[end]) - len(lines[end].lstrip()) >= indent:
        end += 1
    recorded = root / "results" / "recorded"
    entries = sorted(p.relative_to(root).with_suffix("").as_posix() for p in recorded.rglob("*.ipynb")
                     if ".ipynb_checkpoints" not in p.parts) if recorded.is_dir() else []
    block = [" " * indent + "sections:", *(" " * indent + f"  - file: {entry}" for entry in entries)] if entries else []
    lines[anchor + 1:end] = block
    toc.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run the notebooks on each release")
    run_parser.add_argument("--releases", nargs="+", help="default: every release in torch-matrix.txt")
    run_parser.add_argument("--repeat", type=int, default=1, help="runs per release; >= 3 finds flaky notebooks")
    run_parser.add_argument("--repeat-multi-process", type=int, default=0, metavar="N",
                            help="then run the notebooks that start processes again, N runs in all")
    run_parser.add_argument("--skip-fresh", action="store_true", help="skip releases this checkout just ran")
    run_parser.add_argument("--command-name", default="make matrix", help="stored in the records")
    status_records = commands.add_parser("status-records",
                                         help="run every release --repeat times, refresh results/runs")
    status_records.add_argument("--repeat", type=int, default=3)
    record_runs = commands.add_parser("record-runs", help="record executed notebooks on this accelerator")
    record_runs.add_argument("--allow-cpu", action="store_true", help="record on a CPU (test fixtures only)")
    record_runs.add_argument("--out", type=Path, default=RECORDED)
    nbval_parser = commands.add_parser("nbval", help="nbval over every lesson of _toc.yml on one release")
    nbval_parser.add_argument("release")
    nbval_parser.add_argument("--python", help="an interpreter that has RELEASE and the requirements installed, "
                              "instead of the release's environment (the weekly macOS and Windows jobs)")
    nbval_parser.add_argument("--only", nargs="+", default=[], metavar="NOTEBOOK", help="these lessons only")
    venv_parser = commands.add_parser("venv", help="make or reuse a release's environment")
    venv_parser.add_argument("release")
    args = parser.parse_args(argv)
    try:
        matrix = releases()
        if matrix[0] != taught_release():
            raise CourseError(f"{MATRIX_FILE} starts with {matrix[0]} but {CONSTRAINTS} pins {taught_release()}")
        if args.command == "run":
            selected = args.releases or matrix
            unknown = [r for r in selected if r not in matrix]
            if unknown:
                raise CourseError(f"{unknown} not in {MATRIX_FILE} ({', '.join(matrix)})")
            if args.repeat < 1 or args.repeat_multi_process < 0:
                raise CourseError("--repeat must be 1 or more, and --repeat-multi-process 0 or more")
            return run(selected, args.repeat, args.skip_fresh, args.command_name, args.repeat_multi_process)
        if args.command == "status-records":
            if args.repeat < 1:
                raise CourseError("--repeat must be 1 or more")
            code = run(matrix, args.repeat, False, "make status-records")
            refresh_committed(matrix)
            return code
        if args.command == "record-runs":
            return record_accelerator_run(args.allow_cpu, args.out)
        if args.command == "nbval":
            if args.release not in matrix:
                raise CourseError(f"{args.release!r} is not in {MATRIX_FILE} ({', '.join(matrix)})")
            python = checked_python(args.python, args.release) if args.python else str(venv_python(args.release))
            # One notebook at a time: the weekly laptop jobs (macOS, Windows) run it in one process.
            command = notebooks_command(python, "--run-command", f"make nbval RELEASE={args.release}", jobs=1,
                                        targets=args.only)
            return subprocess.run(command, cwd=ROOT, check=False).returncode
        if not RELEASE.fullmatch(args.release):
            raise CourseError(f"{args.release!r} is not a torch release such as 2.13.0")
        print(venv_python(args.release))
        return 0
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(f"error: {' '.join(map(str, error.cmd[:4]))} ... failed with exit {error.returncode}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
