"""The instructor notes (instructors/index.md) match what a learner sees: each lesson's "Expect" part says what its
page shows and what the CPU wheel prints, the typed cells they name are the notebook's `typed-live` cells, and the
page's expected lines and cited cell numbers are in the lesson's executed output (the book's cache, which `make test`
fills before its run-readers step)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tools.checks.lesson_size import TYPED_TAG, section_minutes
from tools.course import ROOT, cell_source, cell_tags, read_notebook
from tools.execute.book_cache import BOOK_CACHE

NOTES = ROOT / "instructors" / "index.md"
LESSON = re.compile(r"\{doc\}`\.\./(notebooks/[^`]+)`")
PART = re.compile(r"^- \*\*(?P<name>[^*]+)\*\*: (?P<text>.*?)(?=^- \*\*|\Z)", re.MULTILINE | re.DOTALL)
CPU_WHEEL = "**CPU wheel**:"  # the Expect part's second half: what the CPU-only wheel prints
SPAN = re.compile(r"`([^`]+)`")
TYPED = re.compile(r"\btype `([^`]+)`")
CELL_NUMBERS = re.compile(r"\bcells? (\d+(?:(?:, | and )\d+)*)")


def sections(text: str) -> dict[str, dict[str, str]]:
    """Each lesson's notes: its entry, and its parts (Live-code / show, Expect, ...) by name, flattened to one line."""
    found = {}
    for block in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        lesson = LESSON.search(block)
        assert lesson, f"a section without its lesson's {{doc}} link: {block.splitlines()[0]}"
        found[lesson[1]] = {m["name"]: " ".join(m["text"].split()) for m in PART.finditer(block)}
    return found


NOTED = sections(NOTES.read_text(encoding="utf-8"))


def test_the_notes_are_read() -> None:
    assert len(NOTED) >= 25 and all("Expect" in parts for parts in NOTED.values()), sorted(NOTED)


@pytest.mark.parametrize("entry", sorted(NOTED))
def test_every_expect_says_what_the_cpu_wheel_prints(entry: str) -> None:
    """The book runs on PyPI's default (CUDA) wheel, a CPU-only laptop on the CPU wheel: the notes give both."""
    expect = NOTED[entry]["Expect"]
    assert expect.count(CPU_WHEEL) == 1 and expect.split(CPU_WHEEL)[1].strip(), f"{entry}: no '{CPU_WHEEL}' part"


def typed_cells(notebook: dict[str, Any]) -> list[str]:
    return [cell_source(cell).splitlines()[0] for cell in notebook["cells"]
            if cell.get("cell_type") == "code" and TYPED_TAG in cell_tags(cell) and cell_source(cell).strip()]


def named_typed_cells(live: str) -> list[str]:
    """The start of each typed cell the Live-code part names (`type `...``), up to an ellipsis."""
    return [span.split("...")[0].rstrip() for span in TYPED.findall(live)]


@pytest.mark.parametrize("entry", sorted(NOTED))
def test_a_typed_cell_the_notes_name_is_typed_live_in_the_notebook(entry: str) -> None:
    """A note that says "type `X`" names a cell tagged typed-live whose first line starts with X; one that names no
    typed cell may not call any cell typed ("the typed cell" of a lesson without one failed here)."""
    notebook = read_notebook(ROOT / f"{entry}.ipynb")
    typed = typed_cells(notebook)
    named = named_typed_cells(NOTED[entry]["Live-code / show"])
    for start in named:
        assert any(line.startswith(start) for line in typed), f"{entry}: no typed-live cell starts with {start!r}"
    if not typed:
        text = " ".join(NOTED[entry].values())
        assert not named and "typed cell" not in text, f"{entry} has no typed-live cell, yet its notes cite one"


def test_a_wrong_typed_cell_or_a_missing_cpu_wheel_part_is_found() -> None:
    assert named_typed_cells("type `_, vectors = torch.linalg.eigh(...)`, then show") == [
        "_, vectors = torch.linalg.eigh("]
    assert sections("## A\n\n{doc}`../notebooks/a/a`.\n\n- **Expect**: `x`.\n- **Questions**: none.\n") == {
        "notebooks/a/a": {"Expect": "`x`.", "Questions": "none."}}


# ---- against the executed output ------------------------------------------------------------------------------------

def executed(entry: str) -> dict[str, Any]:
    """The lesson as the book's cache holds it, executed (or a failure that says how to fill the cache)."""
    import nbformat
    from jupyter_cache import get_cache

    path = ROOT / f"{entry}.ipynb"
    cache = get_cache(str(BOOK_CACHE))
    try:
        record = cache.match_cache_notebook(nbformat.read(str(path), as_version=4))
    except KeyError:
        pytest.fail(f"{entry}: not in {BOOK_CACHE}: run `make notebooks` (make test runs it before this test)")
    notebook: dict[str, Any] = cache.get_cache_bundle(record.pk).nb
    return notebook


def output_text(notebook: dict[str, Any]) -> str:
    """Every output of the executed notebook as text: streams, plain and HTML results, errors."""
    parts = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            if "text" in output:
                parts.append("".join(output["text"]))
            for kind in ("text/plain", "text/html", "text/markdown"):
                data = output.get("data", {}).get(kind)
                parts.append("".join(data) if isinstance(data, list) else data or "")
            parts.append("\n".join(output.get("traceback", [])) + f"{output.get('ename', '')}: "
                         f"{output.get('evalue', '')}")
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(parts))


def missing_from_output(page: str, notebook: dict[str, Any]) -> list[str]:
    """The page part's code spans found neither in the executed outputs nor in the lesson's cells (an API or a value
    the lesson names), and each cited cell number that no output names as `cell N`."""
    outputs = output_text(notebook)
    sources = "\n".join(cell_source(cell) for cell in notebook["cells"])
    missing = [span for span in SPAN.findall(page) if span not in outputs and span not in sources]
    for numbers in CELL_NUMBERS.findall(page):
        missing += [f"cell {n}" for n in re.findall(r"\d+", numbers) if f"cell {n}:" not in outputs]
    return missing


def test_a_line_or_a_cell_the_output_does_not_show_is_found() -> None:
    notebook = {"cells": [{"cell_type": "code", "source": "print(x)", "metadata": {},
                           "outputs": [{"output_type": "stream", "name": "stdout",
                                        "text": "built for: cuda\nlaunch.ipynb:cell 2:3:1 torchrun\n"}]}]}
    assert missing_from_output("prints `built for: cuda`; findings in cell 2", notebook) == []
    assert missing_from_output("prints `built for: None`; findings in cells 1 and 2", notebook) == [
        "built for: None", "cell 1"]


@pytest.mark.integration
@pytest.mark.reads_run  # the book's cache, which the notebooks step fills (make run-readers, after it)
@pytest.mark.parametrize("entry", sorted(NOTED))
def test_the_pages_expected_lines_are_in_the_executed_output(entry: str) -> None:
    page = NOTED[entry]["Expect"].split(CPU_WHEEL)[0]
    assert missing_from_output(page, executed(entry)) == [], f"{entry}: the notes' Expect says what the page lacks"


QUOTED = re.compile(r"\"([^\"]+)\" \((\d+) min")


def test_every_cut_when_late_item_says_its_minutes() -> None:
    """Each lesson's "Cut when late" part gives each cut its minutes (they had none), at least one per quoted section,
    and a quoted teaching section's minutes are the timing rule's for it (`section_minutes`), the talk-only cuts
    aside (their cells still run)."""
    for entry, parts in NOTED.items():
        cut = parts["Cut when late"]
        stated = re.findall(r"\b(\d+) min|its (\d+) minutes", cut)
        assert len(stated) >= max(1, cut.count('"') // 2), f"{entry}: a cut without its minutes: {cut}"
        if cut.startswith("the talk of"):
            continue
        for heading, minutes in QUOTED.findall(cut):
            rule = section_minutes(ROOT / f"{entry}.ipynb", heading) if heading_in(entry, heading) else 0
            assert rule == 0 or rule == int(minutes), f"{entry}: {heading!r} is {rule} min by the rule, not {minutes}"


def heading_in(entry: str, heading: str) -> bool:
    """Whether one of the lesson's Markdown cells starts with the heading (what section_minutes reads)."""
    return any(re.match(rf"#+ {re.escape(heading)}\s*$", cell_source(cell).splitlines()[0])
               for cell in read_notebook(ROOT / f"{entry}.ipynb")["cells"]
               if cell["cell_type"] == "markdown" and cell_source(cell))
