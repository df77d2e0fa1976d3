"""The status page's grid (_ext/status_grid.py, _ext/run_status.py) as HTML: symbols and their text alternatives,
columns, details, the summary line per platform and the lessons' chapters. No book is built; the browser test
(tests/browser/test_status_grid.py) checks the built page at a laptop's and a phone's width, and with axe.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from bs4 import BeautifulSoup, Tag

from _ext import run_status, status_grid
from tests.conftest import CPU_ENVIRONMENT
from tools.course import ROOT, notebook_paths, read_notebook, write_notebook
from tools.records import runs, status

# The words a screen reader must read for each state's symbol (a flaky cell's carry its counts).
ALTERNATIVES = {"pass": "passed", "fail": "failed", "stale": "stale: older sources", "none": "not yet run"}
FLAKY = re.compile(r"flaky: failed (\d+) of (\d+) runs")
LINKS = status_grid.Links(record=lambda path: f"../{path}", recorded_page=lambda path: None)
LESSONS = [status_grid.Lesson(f"notebooks/demo/{name}.ipynb", f"The {name} lesson", f"../{name}.html")
           for name in ("one", "two")]
GROUPS = [status_grid.Group("A chapter", "../chapter.html", tuple(LESSONS))]


def _cell(state: str, notebook: str = "notebooks/demo/one.ipynb", platform: str = "cpu", release: str = "2.12.0",
          **changes: object) -> status.Cell:
    cell = status.Cell(notebook=notebook, platform=platform, release=release, state=state, runs=3,
                       failures={"pass": 0, "fail": 3, "flaky": 1, "stale": 0}[state], date="2026-12-01",
                       seconds=5.4, peak_memory_bytes=2**30, device="AMD EPYC, 2 threads", driver=None,
                       record="results/runs/cpu-torch-2.12.0/run-1/demo__one.json", executed_notebook=None)
    return dataclasses.replace(cell, **changes)  # type: ignore[arg-type]


def alternative_problems(grid: str) -> list[str]:
    """Every grid cell whose symbol lacks the words of its state, or whose symbol is not hidden from a screen
    reader (which would read "check mark" or "1/3" instead)."""
    problems = []
    for td in BeautifulSoup(grid, "html.parser").select("table.run-grid-table tbody td"):
        state = next((c.removeprefix("run-state-") for c in td.get("class", []) if c.startswith("run-state-")), None)
        symbol, alternative = td.select_one(".run-symbol"), td.select_one(".run-alt")
        where = td.find_previous("th", scope="row")
        row = where.get_text() if isinstance(where, Tag) else "?"
        if state is None or not isinstance(symbol, Tag) or not symbol.get_text().strip():
            problems.append(f"{row}: a cell with no state or no symbol: {td}")
            continue
        if symbol.get("aria-hidden") != "true":
            problems.append(f"{row}: the symbol {symbol.get_text()!r} is read aloud as it is")
        words = alternative.get_text() if isinstance(alternative, Tag) else ""
        if state == "flaky":
            counts = FLAKY.fullmatch(words)
            if not counts or f"{counts[1]}/{counts[2]}" != symbol.get_text():
                problems.append(f"{row}: the flaky symbol {symbol.get_text()!r} is said as {words!r}")
        elif words != ALTERNATIVES[state]:
            problems.append(f"{row}: the {state} symbol {symbol.get_text()!r} is said as {words!r}")
    return problems


def test_every_symbol_has_the_words_of_its_state() -> None:
    cells = [_cell("pass"), _cell("fail", release="2.13.0"), _cell("flaky", release="2.15.0"),
             _cell("stale", notebook="notebooks/demo/two.ipynb")]
    grid = status_grid.grid_html(GROUPS, cells, LINKS)
    soup = BeautifulSoup(grid, "html.parser")
    states = [c for td in soup.select("tbody td") for c in td["class"]]
    assert {"run-state-pass", "run-state-fail", "run-state-flaky", "run-state-stale", "run-state-none"} <= set(states)
    assert alternative_problems(grid) == []
    assert soup.select_one(".run-state-flaky .run-symbol").get_text() == "1/3"  # type: ignore[union-attr]


def test_a_cell_without_its_text_alternative_fails() -> None:
    """The check above on grids broken on purpose: it must name each broken cell."""
    grid = status_grid.grid_html(GROUPS, [_cell("pass"), _cell("flaky", release="2.13.0")], LINKS)
    missing = grid.replace('<span class="run-alt">passed</span>', "", 1)
    assert alternative_problems(missing) == ["The one lesson: the pass symbol '✓' is said as ''"]
    wrong = grid.replace('<span class="run-alt">passed</span>', '<span class="run-alt">failed</span>', 1)
    assert alternative_problems(wrong) == ["The one lesson: the pass symbol '✓' is said as 'failed'"]
    miscounted = grid.replace("flaky: failed 1 of 3 runs", "flaky: failed 2 of 3 runs", 1)
    assert len(alternative_problems(miscounted)) == 1
    none = '<td class="run-state-none"><span class="run-symbol"'
    spoken = grid.replace(f'{none} aria-hidden="true">', f"{none}>", 1)
    assert alternative_problems(spoken) == ["The one lesson: the symbol '–' is read aloud as it is"]


def test_columns_by_platform_then_release_in_numeric_order() -> None:
    cells = [_cell("pass", release="2.12.0"), _cell("pass", release="2.9.0"), _cell("pass", platform="rocm")]
    assert status_grid.columns(cells) == [
        status_grid.Column("cuda", None), status_grid.Column("rocm", "2.12.0"), status_grid.Column("mps", None),
        status_grid.Column("xpu", None), status_grid.Column("cpu", "2.9.0"), status_grid.Column("cpu", "2.12.0"),
    ]  # a string sort would put 2.12.0 before 2.9.0
    head = BeautifulSoup(status_grid.grid_html(GROUPS, cells, LINKS), "html.parser").select("thead tr")
    assert [th.get_text() for th in head[0].select("th")] == ["Lesson", "CUDA", "ROCm", "MPS", "XPU", "CPU"]
    assert [th.get_text() for th in head[1].select("th")] == ["2.12.0", "2.9.0", "2.12.0"]


def test_the_details_of_a_cell() -> None:
    recorded = dataclasses.replace(_cell("pass"), executed_notebook="results/recorded/cuda_x/demo/one.ipynb",
                                   driver="570.86", platform="cuda", device="NVIDIA H100")
    links = dataclasses.replace(LINKS, recorded_page=lambda path: "../" + path.replace(".ipynb", ".html"))
    soup = BeautifulSoup(status_grid.grid_html(GROUPS, [recorded, _cell("stale", release="2.13.0")], links),
                         "html.parser")
    first, stale = soup.select("details.run-cell")
    text = first.select_one(".run-detail").get_text(" ")  # type: ignore[union-attr]
    for shown in ("CUDA, torch 2.12.0", "2026-12-01", "steady over 3 runs", "5 s, 1.0 GB peak memory",
                  "Device: NVIDIA H100", "Driver: 570.86"):
        assert shown in text, f"{shown!r} is not in the details: {text}"
    assert [a["href"] for a in first.select(".run-detail a")] == [
        "../results/runs/cpu-torch-2.12.0/run-1/demo__one.json", "../results/recorded/cuda_x/demo/one.html"]
    assert first.select_one("summary .run-alt").get_text() == "passed"  # type: ignore[union-attr]
    stale_text = stale.get_text(" ")
    assert "sources changed since 2026-12-01" in stale_text and "Driver: none" in stale_text
    assert len(stale.select(".run-detail a")) == 1, "no recorded page: the record's link only"
    assert not soup.select(".run-state-none details"), "a cell with no record has no details to open"


def test_one_summary_line_per_platform() -> None:
    cells = [_cell("pass"), _cell("flaky", release="2.13.0"), _cell("stale", notebook="notebooks/demo/two.ipynb"),
             _cell("fail", platform="rocm")]
    assert status_grid.summary_lines(GROUPS, cells) == [
        "CUDA: 0 of 2 run", "ROCm: 1 of 2 run (1 failed)", "MPS: 0 of 2 run", "XPU: 0 of 2 run",
        "CPU: 1 of 2 run (1 flaky, 1 stale)",  # two.ipynb's only record is stale: it has not run as it is now
    ]
    outside = _cell("pass", notebook="notebooks/demo/gone.ipynb", platform="cuda")
    assert status_grid.summary_lines(GROUPS, [outside])[0] == "CUDA: 0 of 2 run", "a lesson outside the book"


def test_the_course_lessons_grouped_by_chapter() -> None:
    groups = run_status.lesson_groups(ROOT, title=lambda docname: docname, href=lambda docname: f"/{docname}")
    lessons = [lesson.notebook for group in groups for lesson in group.lessons]
    assert sorted(lessons) == sorted(p.relative_to(ROOT).as_posix() for p in notebook_paths())
    assert len(lessons) == len(set(lessons)), "every lesson once"
    by_title = {group.title: [lesson.notebook for lesson in group.lessons] for group in groups}
    assert by_title[None] == ["notebooks/getting-started/know-your-accelerator.ipynb"], "a chapter of its own"
    assert by_title["chapters/platform-rocm"] == ["notebooks/platforms/rocm.ipynb",
                                                  "notebooks/platforms/rocm-kernels.ipynb"]
    assert [group.title for group in groups][:3] == [None, "chapters/batched-eigh", "chapters/graphs"]


def test_a_recording_on_an_accelerator_fills_its_column(tmp_path: Path) -> None:
    """`make record-runs` keeps its records beside the executed notebooks (results/recorded/<run>/records), not in
    results/runs: the grid reads both, so a CUDA recording turns the CUDA column's cell from "not yet run"."""
    notebook = {"cells": [{"cell_type": "code", "source": "print(1)", "metadata": {}, "outputs": []}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "notebooks" / "demo" / "hello.ipynb"
    path.parent.mkdir(parents=True)
    write_notebook(path, notebook)
    cuda = {**CPU_ENVIRONMENT, "platform": "cuda", "device": "NVIDIA H100", "torch": "2.12.0+cu128",
            "torch_build": "CUDA 12.8", "runtime": "CUDA 12.8", "driver": "570.86"}
    recording = tmp_path / "results" / "recorded" / "cuda_nvidia-h100_torch-2.12.0_2026-12-06"
    record = runs.new_record("notebooks/demo/hello.ipynb", read_notebook(path), failed_cell=None, seconds=2.0,
                             peak_memory_bytes=2**28, skipped_cells=0, warnings=[], env=cuda,
                             command="make record-runs",
                             executed_notebook=f"{recording.relative_to(tmp_path).as_posix()}/demo/hello.ipynb")
    runs.write_record(recording / "records", record)
    [cell] = run_status._cells(tmp_path)
    assert (cell.platform, cell.state, cell.driver) == ("cuda", "pass", "570.86")
    assert cell.record.startswith("results/recorded/") and cell.executed_notebook == record["executed_notebook"]


def test_each_verdict_says_how_many_runs_it_rests_on() -> None:
    assert [status.verdict_text(_cell(state)) for state in ("pass", "fail", "flaky", "stale")] == [
        "steady over 3 runs", "failed 3 of 3 runs", "1 of 3 runs failed", ""]
    assert status.verdict_text(_cell("pass", runs=1)) == "1 run"
    assert status.verdict_text(_cell("fail", runs=1, failures=1)) == "1 run, failed"
