"""Page and Binder agree (_ext/run_status.py): the line under every notebook page's title names the torch build that
printed the page's outputs, from the record of the run the book shows, and says how Binder's CPU build stands to it;
the README says the same. No book is built (tests/test_run_status.py builds one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _ext import run_status
from tests.conftest import CPU_ENVIRONMENT
from tools.course import ROOT, read_notebook, taught_release, write_notebook
from tools.records import runs, status

NOTEBOOK = "notebooks/demo/hello.ipynb"
CUDA_BUILD_ON_CPU = {**CPU_ENVIRONMENT, "torch": "2.12.0+cu130", "torch_build": "CUDA 13.0",
                     "device": "AMD EPYC, 2 threads"}


def _book(tmp_path: Path) -> Path:
    path = tmp_path / NOTEBOOK
    path.parent.mkdir(parents=True)
    write_notebook(path, {"cells": [{"cell_type": "code", "source": "print(1)", "metadata": {}, "outputs": [],
                                     "execution_count": None}],
                          "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    return tmp_path


def _book_run(book: Path, env: dict[str, Any], failed: bool = False) -> None:
    record = runs.new_record(NOTEBOOK, read_notebook(book / NOTEBOOK), seconds=1.0, peak_memory_bytes=2**28,
                             failed_cell={"index": 0, "error": "AssertionError: no"} if failed else None,
                             skipped_cells=0, warnings=[], env=env, command="make book")
    runs.write_record(runs.build_run_folder(book, taught_release()), record)


def test_a_page_printed_by_the_cuda_build_says_so_and_what_binder_differs_in(tmp_path: Path) -> None:
    book = _book(tmp_path)
    _book_run(book, CUDA_BUILD_ON_CPU)
    line = run_status.printed_by(run_status.book_run_record(book, NOTEBOOK))
    assert line == ("Outputs printed by torch 2.12.0+cu130 (the CUDA 13.0 build) on AMD EPYC, 2 threads. Binder "
                    "installs the CPU build, torch 2.12.0+cpu, whose outputs were not compared with these (its "
                    "version lines end in +cpu).")


def test_a_page_printed_by_the_cpu_build_is_what_binder_shows(tmp_path: Path) -> None:
    book = _book(tmp_path)
    _book_run(book, CPU_ENVIRONMENT)
    line = run_status.printed_by(run_status.book_run_record(book, NOTEBOOK))
    assert line == "Outputs printed by torch 2.12.0+cpu, the CPU build that Binder installs."


def test_a_page_without_a_run_of_its_sources_claims_no_build(tmp_path: Path) -> None:
    """No record, a failed run (the executor caches passing runs only) and a run of older sources: none printed the
    page, so the line names no build."""
    book = _book(tmp_path)
    assert run_status.book_run_record(book, NOTEBOOK) is None
    _book_run(book, CUDA_BUILD_ON_CPU, failed=True)
    assert run_status.book_run_record(book, NOTEBOOK) is None
    _book_run(book, CUDA_BUILD_ON_CPU)
    assert run_status.book_run_record(book, NOTEBOOK) is not None
    notebook = read_notebook(book / NOTEBOOK)
    notebook["cells"][0]["source"] = "print(2)"
    write_notebook(book / NOTEBOOK, notebook)
    assert run_status.book_run_record(book, NOTEBOOK) is None
    assert run_status.printed_by(None) == "This build of the book has no record of the run that printed these outputs."


def test_the_readme_says_what_the_pages_say() -> None:
    """The README names the build the committed run of the taught release used, as the pages do, and says that the
    CPU build's outputs were not compared with the pages' where that build is not the CPU one."""
    folder = runs.RUNS / f"cpu-torch-{taught_release()}"
    builds = {(record["environment"]["torch"], record["environment"]["torch_build"])
              for _, record in runs.load_records(folder)}
    assert len(builds) == 1, f"{folder}: the committed run of the taught release used builds {builds}"
    [(torch, build)] = builds
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"torch {torch}" in readme, f"README.md does not name the build the pages come from ({torch})"
    if build != "CPU":
        assert "were not compared" in readme and "outputs are the page's" not in readme


def _cell(platform: str, release: str, state: str) -> status.Cell:
    return status.Cell(NOTEBOOK, platform, release, state, runs=1, failures=0, date="2026-12-06", seconds=1.0,
                       peak_memory_bytes=None, device="a device", driver=None, record="results/runs/x.json",
                       executed_notebook=None)


def test_a_platform_with_only_stale_records_has_run_and_is_not_listed_as_not_yet_run() -> None:
    """The line said "CPU with torch 2.12.0 (stale) ... Not yet run on ... and CPU": stale is an older version run."""
    ran, missing = run_status.where_it_ran(NOTEBOOK, [_cell("cpu", "2.12.0", "stale"), _cell("cuda", "2.12.0", "pass")])
    assert "CPU with torch 2.12.0 (stale)" in ran and "CUDA with torch 2.12.0" in ran, ran
    assert missing == "ROCm, MPS and XPU", missing
