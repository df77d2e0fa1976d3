"""Type-check the notebooks' code against the annotations of one installed torch.

Every code cell of every notebook, accelerator branches included (branches CI never executes),
is concatenated by nbQA and checked by mypy with the settings in mypy.ini: a misspelled or
removed attribute, function, module or keyword of that torch is an error. The snippets under
tools/snippets/ are checked too, each after the setup cell whose names it uses.

    python -m tools.checks.typecheck --python .venv/bin/python
    python -m tools.checks.typecheck --python ~/venvs/torch-2.15.0/bin/python notebooks/platforms

mypy and nbQA run from this interpreter (the test environment); --python names the environment
whose torch is checked (mypy's --python-executable), so no tool is installed there. Exit 0: no
error; 1: errors (listed as path:cell_N:line); 2: bad input or a broken environment.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tools.course import ROOT, SNIPPETS

CONFIG = ROOT / "mypy.ini"
DEFAULT_PATHS = (ROOT / "notebooks", SNIPPETS)
DEFAULT_CACHE = ROOT / "_build" / ".mypy_cache"
# The snippet every other snippet follows in a notebook: the names it defines are in scope.
SETUP_SNIPPET = "setup"
# An error line of mypy after nbQA mapped it to a cell: path:cell_N:line: error: text  [code]
REPORT_LINE = re.compile(r"^(?P<path>[^:\n]+?):(?P<where>(?:cell_\d+:)?\d+)(?::\d+)?: (?P<kind>error|note): ")


# Reports left out, with the reason. mypy types a mixed literal such as {"name": "eigh",
# "seconds": 0.5} as dict[str, object], and torch 2.12 annotates some factories as returning
# `object` (GreenContext.create in torch/cuda/green_contexts.py). Any attribute of an `object`
# is an error to mypy whatever its spelling, so such a report never says that a name is missing
# from torch; listing them would only teach readers to annotate every dict.
LEFT_OUT = re.compile(r': error: "object" has no attribute "[^"]+"  \[attr-defined\]$')


class TypecheckError(Exception):
    """Bad input or a broken environment, worded for the person who has to fix it."""


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def target_torch(python: str) -> str:
    """The torch version of the interpreter `python`, or a TypecheckError saying what is wrong."""
    path = Path(python).expanduser()
    if not path.exists():
        raise TypecheckError(f"--python {python}: no such file (give the python of a venv, e.g. .venv/bin/python)")
    if path.is_dir() or not os.access(path, os.X_OK):
        raise TypecheckError(f"--python {python}: not an executable interpreter (e.g. .venv/bin/python)")
    probe = "import torch; print(torch.__version__)"
    try:
        done = subprocess.run([str(path), "-c", probe], capture_output=True, text=True, timeout=300, check=False)
    except OSError as error:
        raise TypecheckError(f"--python {python}: cannot run it ({error})") from error
    except subprocess.TimeoutExpired as error:
        raise TypecheckError(f"--python {python}: `import torch` took over 300 s") from error
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise TypecheckError(f"--python {python}: cannot import torch there ({last})")
    return done.stdout.strip().splitlines()[-1]


def check_tools() -> None:
    """mypy and nbQA must be importable here (they come with requirements-test.txt)."""
    missing = [name for name in ("mypy", "nbqa") if importlib.util.find_spec(name) is None]
    if missing:
        raise TypecheckError(
            f"{' and '.join(missing)} not installed in {sys.executable}: "
            "run `pip install -r requirements-test.txt` there (or `make unit` once)"
        )
    if not CONFIG.is_file():
        raise TypecheckError(f"{CONFIG}: the mypy settings file is missing")


def collect(paths: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """Notebooks and snippets named by `paths` (files or folders), or a TypecheckError."""
    notebooks: list[Path] = []
    snippets: list[Path] = []
    for given in paths:
        path = given if given.is_absolute() else Path.cwd() / given
        if not path.exists():
            raise TypecheckError(f"{given}: no such file or folder")
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
            if path.resolve() == SNIPPETS.resolve():
                snippets += sorted(path.glob("*.py"))
            elif not found:
                raise TypecheckError(f"{given}: no notebook in this folder")
            notebooks += found
        elif path.suffix == ".ipynb":
            notebooks.append(path)
        elif path.suffix == ".py" and path.resolve().parent == SNIPPETS.resolve():
            snippets.append(path)
        else:
            raise TypecheckError(f"{given}: not a notebook, a folder or a file of tools/snippets/")
    return list(dict.fromkeys(notebooks)), list(dict.fromkeys(snippets))


# A snippet that uses the names of another stamped cell says so on a line of its own.
RUNS_AFTER = re.compile(r"^# Runs after the stamped cell `(\w+)`", re.MULTILINE)


def _snippet_notebook(snippet: Path) -> dict:
    """The setup snippet, then the snippets that `snippet` runs after, then `snippet` (alone if it is the setup)."""
    text = snippet.read_text(encoding="utf-8")
    sources = [(SNIPPETS / f"{name}.py").read_text(encoding="utf-8") for name in RUNS_AFTER.findall(text)]
    sources.append(text)
    if snippet.stem != SETUP_SNIPPET:
        sources.insert(0, (SNIPPETS / f"{SETUP_SNIPPET}.py").read_text(encoding="utf-8"))
    cells = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s} for s in sources
    ]
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": kernel}, "cells": cells}


def _stage(notebooks: list[Path], snippets: list[Path], work: Path) -> dict[str, str]:
    """Copy the inputs into `work`; map each staged name back to the name a reader knows."""
    names: dict[str, str] = {}
    for index, notebook in enumerate(notebooks):
        staged = Path(f"nb{index}") / notebook.name
        (work / staged).parent.mkdir(parents=True)
        shutil.copyfile(notebook, work / staged)
        names[str(staged)] = _display(notebook)
    for index, snippet in enumerate(snippets):
        staged = Path(f"snippet{index}") / f"{snippet.stem}.ipynb"
        (work / staged).parent.mkdir(parents=True)
        (work / staged).write_text(json.dumps(_snippet_notebook(snippet)), encoding="utf-8")
        names[str(staged)] = _display(snippet)
    return names


def _rename(line: str, names: dict[str, str]) -> str:
    """A mypy line about a staged file, rewritten to name the real notebook or snippet."""
    match = REPORT_LINE.match(line)
    if not match or match["path"] not in names:
        return line
    real, where = names[match["path"]], match["where"]
    if real.endswith(".py"):  # a snippet: the last cell is the snippet itself (cell_1 is the setup)
        cell, _, number = where.partition(":")
        snippet = ROOT / real
        before = RUNS_AFTER.findall(snippet.read_text(encoding="utf-8")) if snippet.is_file() else []
        order = [SETUP_SNIPPET, *before] if not real.endswith(f"{SETUP_SNIPPET}.py") else []
        index = int(cell.removeprefix("cell_")) - 1 if cell.startswith("cell_") else len(order)
        if index < len(order):
            real = _display(SNIPPETS / f"{order[index]}.py")
        where = number
    return f"{real}:{where}{line[match.end('where') :]}"


def cache_folder(python: str, version: str, root: Path) -> Path:
    """One mypy cache per target interpreter: another torch's annotations would invalidate it."""
    # The venv's own path: its bin/python links to the same base interpreter as every other venv.
    key = hashlib.sha256(os.path.abspath(Path(python).expanduser()).encode()).hexdigest()[:10]
    return root / f"torch-{version}-{key}"


def run(python: str, paths: Sequence[Path], cache_root: Path) -> tuple[int, list[str], str]:
    """Check `paths` against the torch of `python`: (error count, report lines, summary)."""
    check_tools()
    notebooks, snippets = collect(paths)
    if not notebooks and not snippets:
        raise TypecheckError("nothing to check")
    version = target_torch(python)
    cache = cache_folder(python, version, cache_root)
    cache.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="typecheck-") as folder:
        work = Path(folder)
        names = _stage(notebooks, snippets, work)
        command = [
            sys.executable, "-m", "nbqa", "mypy", ".",
            "--config-file", str(CONFIG),
            "--python-executable", str(Path(python).expanduser().absolute()),
            "--cache-dir", str(cache),
            "--no-pretty", "--no-color-output", "--show-error-codes", "--no-error-summary",
        ]  # fmt: skip
        env = {**os.environ, "MYPY_FORCE_COLOR": "0", "NO_COLOR": "1"}
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    lines = [_rename(line, names) for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    reported = sum(1 for line in lines if (m := REPORT_LINE.match(line)) and m["kind"] == "error")
    left_out = sum(1 for line in lines if LEFT_OUT.search(line))
    lines = [line for line in lines if not LEFT_OUT.search(line)]
    errors = reported - left_out
    if done.returncode not in (0, 1) or (done.returncode == 1 and not reported):
        raise TypecheckError(
            f"mypy (through nbQA) failed with exit {done.returncode}:\n" + "\n".join(lines or ["no output"])
        )
    checked = f"{len(notebooks)} notebook(s) and {len(snippets)} snippet(s)"
    against = f"torch {version} ({python})"
    if errors:
        files = {line.split(":", 1)[0] for line in lines if REPORT_LINE.match(line)}
        summary = f"typecheck: {errors} error(s) in {len(files)} of {checked} against {against}"
    else:
        summary = f"typecheck: {checked} clean against {against}"
    if left_out:
        summary += f' ({left_out} report(s) of an attribute of a value typed "object" left out)'
    return errors, lines, f"{summary}; {seconds:.1f} s"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.checks.typecheck",
        description="Type-check notebooks and snippets against the torch installed for --python.",
    )
    parser.add_argument("--python", required=True, help="the interpreter whose torch is checked, e.g. .venv/bin/python")
    parser.add_argument(
        "--cache-dir", type=Path, default=DEFAULT_CACHE,
        help=f"where mypy caches, one subfolder per interpreter (default: {_display(DEFAULT_CACHE)})",
    )  # fmt: skip
    parser.add_argument(
        "paths", nargs="*", type=Path, default=list(DEFAULT_PATHS),
        help="notebooks, folders of notebooks, or files of tools/snippets/ (default: notebooks/ and tools/snippets/)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        errors, lines, summary = run(args.python, args.paths, args.cache_dir)
    except TypecheckError as error:
        print(f"typecheck: {error}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    print(summary)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
