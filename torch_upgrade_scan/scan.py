"""The engine's entry points: the files under the paths named (skipping virtual environments and caches), each
one scanned (in worker processes for large trees), and their scans collected into one sorted Report; also one
Python source text or one notebook's JSON."""

import dataclasses
import fnmatch
import itertools
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

from torch_upgrade_scan.catalog import NEWEST, RULES, release_key
from torch_upgrade_scan.filescan import FileScan
from torch_upgrade_scan.findings import Finding, Report
from torch_upgrade_scan.notebook import scan_notebook_into
from torch_upgrade_scan.reading import MAX_BYTES, kind_of_name, reason, scan_file

SKIPPED_FOLDERS = {
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "site-packages",
    "__pycache__",
    ".ipynb_checkpoints",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".cache",
    ".eggs",
    "_build",
    ".idea",
}


def scan_source(source: str, path: str = "<source>", target: str = NEWEST) -> Report:
    """Scan one Python source text (as if it ran under torchrun if it says so) for an upgrade to `target`."""
    scan = FileScan(path, target=target)
    scan.keep_noqa_lines(source)
    scan.python([(0, None, 0, source, [])])
    return finish(collect([scan]), target=target)


def scan_notebook_json(text: str, path: str = "<notebook>", target: str = NEWEST) -> Report:
    """Scan a notebook's code cells (the JSON text of an .ipynb file) for an upgrade to `target`."""
    scan = FileScan(path, target=target)
    scan_notebook_into(scan, text, MAX_BYTES)
    return finish(collect([scan]), target=target)


# ---- many files ------------------------------------------------------------------


def excluded(path: Path, root: Path, patterns) -> bool:
    """Whether a glob matches the path's name, its path relative to the scanned
    folder `root`, the path as given, or its absolute path."""
    if not patterns:
        return False
    forms = {path.name, path.as_posix(), Path(os.path.abspath(path)).as_posix()}
    if path != root:
        forms.add(path.relative_to(root).as_posix())
    return any(fnmatch.fnmatch(form, p) for form in forms for p in patterns)


def files_under(paths, report: Report, exclude=()) -> Iterator[str]:
    """The files to scan under the paths named, as they are found; skipped folders are recorded.
    `exclude` globs are matched relative to each folder named (see excluded), and
    before a folder is probed. Folders that cannot be read are one error each;
    a file reached twice (through a symbolic link) is scanned once."""
    seen: set = set()

    def first_time(full: str | Path) -> bool:
        try:  # one stat (a realpath costs one per folder of the path)
            info = os.stat(full)
            key: object = (info.st_dev, info.st_ino)
        except OSError:  # a loop or a dangling link: its scan says why
            key = os.path.abspath(full)
        if key in seen:
            return False
        seen.add(key)
        return True

    def unreadable(error: OSError) -> None:
        report.errors.append(f"{error.filename}: cannot read folder ({reason(error)})")

    for path in map(Path, paths):
        if os.path.isdir(path):
            for folder, subfolders, files in os.walk(path, onerror=unreadable):
                keep = []
                for name in sorted(subfolders):
                    full = Path(folder) / name
                    if excluded(full, path, exclude):
                        continue
                    if name in SKIPPED_FOLDERS or os.path.exists(full / "pyvenv.cfg"):
                        report.skipped_folders.append(full.as_posix())
                    else:
                        keep.append(name)
                subfolders[:] = keep
                here = str(Path(folder))  # as pathlib writes it ("sub", not "./sub"); one Path per folder
                for name in sorted(files):
                    if not kind_of_name(name):
                        continue
                    full = name if here == "." else f"{here}/{name}"
                    if not (exclude and excluded(Path(full), path, exclude)) and first_time(full):
                        yield full
        elif os.path.lexists(path):
            if not excluded(path, path.parent, exclude) and first_time(path):
                yield str(path)
        else:
            report.errors.append(f"{path}: no such file or folder")


def collect(scans) -> Report:
    report = Report()
    for scan in scans:
        report.files += 1
        report.findings += scan.findings
        for error in scan.errors:
            (report.internal if error.startswith("internal") else report.errors).append(
                error
            )
        report.notes += scan.notes
        report.launched |= scan.launched
        report.helpers.update(scan.helpers)
        report.via_helpers += scan.via_helpers
        if scan.runtime:
            report.runtimes[os.path.dirname(os.path.abspath(scan.path))] = scan.runtime
        report.on_runtime += scan.on_runtime
        if not scan.facts["spawns"]:
            launcher = scan.facts["launcher"] or bool(scan.launched)
            report.pending += [(f, launcher) for f in scan.pending]
    return report


def finish(report: Report, select=(), ignore=(), target: str = NEWEST) -> Report:
    """Keep a port finding only with evidence that its file runs under torchrun
    (it reads LOCAL_RANK and the like, or a torchrun line anywhere launches it);
    keep a process group whose backend comes from a function of another file where that function returns a
    multi-device string; keep a requirements.txt's torch line where a runtime.txt of its folder pins Python 3.10;
    keep the changes of the releases up to `target`, each with its severity there; then filter by rule or severity
    and sort."""
    for finding, launcher in report.pending:
        if launcher or Path(finding.path).name in report.launched:
            report.findings.append(finding)
    report.pending = []
    for finding, helper in report.via_helpers:
        if helper in report.helpers:
            detail = f"backend={report.helpers[helper]!r} (returned by {helper})"
            report.findings.append(dataclasses.replace(finding, detail=detail))
    report.via_helpers = []
    for finding in report.on_runtime:
        pin = report.runtimes.get(os.path.dirname(os.path.abspath(finding.path)))
        if pin:
            detail = f"{finding.detail} with Python {pin} in runtime.txt"
            report.findings.append(dataclasses.replace(finding, detail=detail))
    report.on_runtime = []
    report.findings = [
        dataclasses.replace(f, severity=f.severity or RULES[f.rule].severity_at(target))
        if RULES[f.rule].breaks_from else f
        for f in report.findings
        if release_key(f.since) <= release_key(target)
    ]

    def wanted(f: Finding) -> bool:
        severity = f.severity or RULES[f.rule].severity
        keys = {f.rule, severity}
        return (not select or keys & set(select)) and not keys & set(ignore)

    unique = {(f.path, f.cell, f.line, f.rule, f.detail): f for f in report.findings}
    report.findings = sorted(
        (f for f in unique.values() if wanted(f)),
        key=lambda f: (f.path, f.cell or 0, f.line, f.column, f.rule),
    )
    return report


# Files per task of the parallel scan: small enough that the processes end together, large enough that handing
# out tasks costs little (most files are read, pre-checked and dropped in well under a millisecond).
BATCH = 24


def scan_batch(paths: list, max_bytes: int, target: str) -> tuple[int, list]:
    """Scan some files: how many, and the (position, scan) of those that found or noted anything, or were read
    (the others add only to the count, so that they are not sent back from a worker)."""
    scans = [(index, scan_file(path, max_bytes, target=target)) for index, path in enumerate(paths)]
    return len(paths), [(index, scan) for index, scan in scans if scan.read or not scan.empty()]


def scan_batches(files: Iterator[str], jobs: int, max_bytes: int, target: str) -> tuple[int, list]:
    """Scan the files in batches: `jobs - 1` worker processes take them from the first, as the listing goes on;
    then this process takes them from the last (one that no worker has started yet), until they meet. Fewer
    than two batches' worth are scanned here alone."""
    batches = [list(itertools.islice(files, BATCH)), list(itertools.islice(files, BATCH))]
    if jobs < 2 or len(batches[1]) < BATCH or scan_file.__module__ == "__main__":
        count, found = scan_batch([*batches[0], *batches[1], *files], max_bytes, target)
        return count, [scan for _, scan in found]
    # (imported here, where a pool starts: with multiprocessing, 12 ms of a start that takes 75 ms in all here)
    from concurrent.futures import ProcessPoolExecutor

    done: dict = {}
    with ProcessPoolExecutor(jobs - 1) as pool:
        futures = [pool.submit(scan_batch, batch, max_bytes, target) for batch in batches]
        while batch := list(itertools.islice(files, BATCH)):
            batches.append(batch)
            futures.append(pool.submit(scan_batch, batch, max_bytes, target))
        for index in reversed(range(len(batches))):
            if not futures[index].cancel():
                break  # a worker has it, and every batch before it
            done[index] = scan_batch(batches[index], max_bytes, target)
        results = [done[i] if i in done else futures[i].result() for i in range(len(batches))]
    count = sum(len(batch) for batch in batches)
    return count, [scan for _, found in results for _, scan in found]  # in the files' order


def module_names(path: str) -> list[str]:
    """The dotted names a Python file may be imported by: each tail of its path (`src/pkg/dist.py`: src.pkg.dist,
    pkg.dist, dist), less those that start with torch."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    tails = (parts[start:] for start in range(len(parts)))
    return [".".join(tail) for tail in tails if tail and tail[0] != "torch" and all(p.isidentifier() for p in tail)]


def imports_of(modules: list[str]) -> list[re.Pattern[bytes]]:
    """Patterns for an import of one of these modules: `import a.b`; `from a.b import`, `from a import (x, b`.
    Each starts with a literal word, which the regex engine seeks fast."""
    names = "|".join(map(re.escape, modules))
    parts = [module.rpartition(".") for module in modules]
    members = "|".join(
        rf"{re.escape(package)}[ \t]+import[ \t]+(?:\([^)]*|[^\n]*)\b{re.escape(leaf)}\b"
        for package, _, leaf in parts
        if package
    )
    members = f"|{members}" if members else ""
    sources = [rf"import[ \t]+(?:{names})\b", rf"from[ \t]+(?:(?:{names})[ \t]+import\b{members})"]
    return [re.compile(source.encode()) for source in sources]


def through_reexports(scans: list, max_bytes: int, target: str) -> list:
    """Where a scanned module re-exports torch's names (`from torch.distributed import *` in
    `pkg/distributed.py`, or a package's `__init__.py` that imports them), the Python files that may import it
    (`import pkg.distributed`, `from pkg.distributed import`, `from pkg import distributed`) scanned again, their
    names resolved through it. Only a file that was read can find more so (the others hold nothing a rule
    needs, whatever their names resolve to), and one that does not hold the last part of such a module's name
    (`distributed`) imports none of them."""
    exports = {name: scan.exports for scan in scans if scan.exports for name in module_names(scan.path)}
    if not exports:
        return [scan for scan in scans if not scan.empty()]
    mentions = imports_of(sorted(exports))
    leaves = {name.rpartition(".")[2].encode() for name in exports}
    by_path = {scan.path: scan for scan in scans}
    for path in [scan.path for scan in scans if scan.read and scan.path.endswith(".py")]:
        try:
            with open(path, "rb") as stream:
                data = stream.read(max_bytes + 1)
        except OSError:
            continue  # its scan has said why
        if any(leaf in data for leaf in leaves) and any(mention.search(data) for mention in mentions):
            by_path[path] = scan_file(path, max_bytes, exports, target)
    return [scan for scan in by_path.values() if not scan.empty()]


def scan_paths(
    paths, jobs: int = 1, exclude=(), select=(), ignore=(), max_bytes: int = MAX_BYTES, target: str = NEWEST
) -> Report:
    """Scan files and folders; `jobs` processes (this one among them) for large trees; report the changes of
    the releases up to `target`."""
    start = time.perf_counter()
    listing = Report()
    count, scans = scan_batches(files_under(paths, listing, exclude), jobs, max_bytes, target)
    report = collect(through_reexports(scans, max_bytes, target))
    report.files = count
    report.errors = listing.errors + report.errors
    report.skipped_folders = listing.skipped_folders
    finish(report, select, ignore, target)
    report.seconds = time.perf_counter() - start
    return report


# ---- output ----------------------------------------------------------------------
