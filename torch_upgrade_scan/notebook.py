"""Notebooks: a cell split into Python and shell lines (IPython magics and `!cmd`), the cells' lines mapped to
the .ipynb file's lines, and a notebook's code cells scanned as one module (they share a kernel)."""

import dataclasses
import json
import re
import textwrap
from typing import Any

from torch_upgrade_scan.filescan import FileScan
from torch_upgrade_scan.findings import Finding
from torch_upgrade_scan.prefilter import needed

PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
SHELL_CELL_MAGICS = {"bash", "sh", "script", "system"}
TIMED = re.compile(r"%(?:time|prun|timeit(?:\s+-[nr]\s*\d+|\s+-[a-z])*)\s+(.*)")


def split_cell(source: str) -> tuple[str, list]:
    """A notebook cell as (Python source with IPython lines blanked, shell lines
    [(line, text)]). `!cmd`, `x = !cmd` and `%env A=B` are shell lines (continued
    with `\\` over several lines); `%time stmt` keeps its statement; other magics
    are blanked (a `pass` keeps an indented block valid); `%%bash` cells are
    shell; `%%time`-like cells and `%%writefile *.py` keep their Python body."""
    lines = source.split("\n")
    shell: list = []
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic, *rest = first[2:].split() or [""]
        target = rest[-1] if rest else ""
        python_body = magic in PYTHON_CELL_MAGICS or (
            magic == "writefile" and target.endswith(".py")
        )
        if magic in SHELL_CELL_MAGICS or (
            magic == "writefile" and target.endswith(".sh")
        ):
            shell = list(enumerate(lines[1:], start=2))
        if not python_body:
            return "", shell
        lines = ["", *lines[1:]]
    code: list = []
    continued = False
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if continued:  # the rest of a shell line continued with a backslash
            shell.append((number, stripped))
            code.append("")
            continued = stripped.rstrip().endswith("\\")
            continue
        assigned = re.match(r"[\w.]+\s*=\s*!(.*)", stripped)
        timed = TIMED.match(stripped)
        if timed:
            code.append(f"{indent}{timed.group(1)}")
            continue
        if stripped.startswith("!") or assigned:
            text = assigned.group(1) if assigned else stripped.lstrip("!")
            shell.append((number, text))
            continued = text.rstrip().endswith("\\")
        elif stripped.startswith("%env "):
            setting = stripped[len("%env ") :].strip()
            shell.append(
                (
                    number,
                    setting if "=" in setting else "=".join(setting.split(None, 1)),
                )
            )
        elif stripped.startswith("%"):
            continued = stripped.rstrip().endswith("\\")
        elif not (stripped.endswith("?") and not stripped.startswith("#")):
            code.append(line)
            continue
        code.append(f"{indent}pass" if indent else "")
    return "\n".join(code), shell


def dedent_cell(source: str) -> tuple[str, int]:
    """A cell as IPython reads it before anything else (its `leading_indent` cleanup, IPython 9: the cell's
    common leading whitespace removed, lines of whitespace only emptied), and the columns removed."""
    dedented = textwrap.dedent(source)
    for before, after in zip(source.split("\n"), dedented.split("\n"), strict=True):
        if after:
            return dedented, len(before) - len(after)
    return dedented, 0


def mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def cell_text(cell: dict) -> str:
    """A cell's source, whatever nbformat shape it has (a string, a list of
    strings, null or missing)."""
    source = cell.get("source")
    if isinstance(source, str):
        return source
    if isinstance(source, list):
        return "".join(part for part in source if isinstance(part, str))
    return ""


def json_lines(text: str, cells: list) -> dict:
    """(cell, line in cell) -> line in the .ipynb file, for the cells whose
    source is a list written one string per line (as Jupyter writes it); each
    line is checked against the parsed source, so a mapping is never a guess.
    (cell, 0) -> the line of the cell's "source" key, where it has one."""
    lines = text.split("\n")
    keys = [
        i
        for i, line in enumerate(lines)
        if re.match(r'\s*"source"\s*:\s*[\["]', line)
    ]
    if not keys:
        return {}
    indent = min(len(lines[i]) - len(lines[i].lstrip()) for i in keys)
    starts = [i for i in keys if len(lines[i]) - len(lines[i].lstrip()) == indent]
    if len(starts) != len(cells):
        return {}
    found = {}
    for number, (start, cell) in enumerate(zip(starts, cells, strict=True), start=1):
        parts = cell.get("source") if isinstance(cell, dict) else None
        found[(number, 0)] = start + 1
        if not isinstance(parts, list):
            continue
        for offset, part in enumerate(parts, start=1):
            raw = (
                lines[start + offset].strip().rstrip(",")
                if start + offset < len(lines)
                else ""
            )
            try:
                same = json.loads(raw) == part
            except json.JSONDecodeError:
                same = False
            if not same:
                break
            found[(number, offset)] = start + offset + 1
    return found


def scan_notebook_into(scan: FileScan, text: str, max_bytes: int) -> None:
    """A notebook's code cells, as one module (they share a kernel). Cells are
    numbered from 1 over all cells; nbformat oddities (a null source, missing
    keys) are read as empty."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError:
        scan.errors.append(f"{scan.path}: not a valid notebook (JSONDecodeError)")
        return
    cells = mapping(notebook).get("cells")
    if not isinstance(cells, list):
        scan.errors.append(f"{scan.path}: not a valid notebook (no list of cells)")
        return
    meta = mapping(mapping(notebook).get("metadata"))
    language = mapping(meta.get("kernelspec")).get("language") or mapping(
        meta.get("language_info")
    ).get("name", "python")
    if str(language).lower() != "python":
        scan.notes.append(f"{scan.path}: a {language} notebook (skipped)")
        return
    sources = [
        (number, cell_text(cell))
        for number, cell in enumerate(cells, start=1)
        if isinstance(cell, dict) and cell.get("cell_type") == "code"
    ]
    if not needed("notebook", "\n".join(text for _, text in sources).encode()):
        return  # what matched was in the outputs or the Markdown: no parse
    units = []
    for number, source in sources:
        scan.keep_noqa_lines(source, number)
        dedented, scan.indents[number] = dedent_cell(source)
        code, shell = split_cell(dedented)
        units.append((number, number, 0, code, shell))
    size = sum(len(unit[3]) for unit in units)
    if size > max_bytes:
        scan.errors.append(
            f"{scan.path}: {size} characters of code, over the {max_bytes}-byte "
            "limit (not scanned: raise --max-bytes or exclude it)"
        )
        return
    scan.python(units)
    if not (scan.findings or scan.pending or scan.via_helpers):
        return  # nothing to place (the mapping reads each line of the file: a quarter of NeMo's notebooks' time)
    on_disk = json_lines(text, cells)

    def placed(finding: Finding) -> Finding:
        cell = finding.cell
        line = on_disk.get((cell, finding.line)) or on_disk.get((cell, 0))
        return dataclasses.replace(finding, file_line=line)

    scan.findings = [placed(f) for f in scan.findings]
    scan.pending = [placed(f) for f in scan.pending]
    scan.via_helpers = [(placed(f), helper) for f, helper in scan.via_helpers]
