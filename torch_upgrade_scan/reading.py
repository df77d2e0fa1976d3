"""Reading one file: its kind (from its name), its bytes within the size limit, its text decoded as Python or
UTF-8, and the scan its kind calls for (Python, notebook, shell-like or Markdown text); never raising."""

import gc
import io
import json
import os
import re
import shlex
import stat
import tokenize
from pathlib import Path

from torch_upgrade_scan.blocks import markdown_blocks, rst_blocks
from torch_upgrade_scan.catalog import NEWEST
from torch_upgrade_scan.filescan import FileScan
from torch_upgrade_scan.notebook import scan_notebook_into, split_cell
from torch_upgrade_scan.partial import kept_statements
from torch_upgrade_scan.pieces import parse_quietly
from torch_upgrade_scan.prefilter import may_reexport, needed, python_reading, runtime_pair, setup_script
from torch_upgrade_scan.rules import packaging

# Files larger than this are not parsed (an error names each one that mentions
# torch): time grows linearly with size (README, "Speed and size": a 1 MB module
# dense with findings takes 1.7 s of CPU here), and large files are mostly generated.
MAX_BYTES = 1_000_000
# A notebook's outputs (images) can be large and cost little to read: its file
# may be this many times larger; the limit applies to its code cells' text.
NOTEBOOK_FACTOR = 50


def kind_of(path: Path) -> str | None:
    return kind_of_name(path.name)


def kind_of_name(name: str) -> str | None:
    """What a file of this name is read as (None: it is not read)."""
    name, dot = name.lower(), name.rfind(".")
    suffix = name[dot:] if 0 < dot < len(name) - 1 else ""  # as pathlib's suffix
    if suffix == ".py":
        return "python"
    if suffix == ".ipynb":
        return "notebook"
    if suffix in (".sh", ".bash", ".zsh") or name in ("makefile", "justfile"):
        return "shell"
    if suffix in (".yml", ".yaml"):
        return "yaml"
    if name.startswith(("dockerfile", "containerfile")) or suffix == ".dockerfile":
        return "docker"
    if suffix in (".md", ".markdown", ".qmd"):
        return "markdown"
    if suffix == ".rst":
        return "rst"
    if (suffix in (".txt", ".in") and "requirements" in name) or name in (
        "pyproject.toml",
        "setup.cfg",
        "environment.yml",
        "constraints.txt",
        "runtime.txt",
    ):
        return "requirements"
    return None


def read_python(data: bytes) -> str:
    """Decode Python source as Python does: a BOM or a PEP 263 coding line."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding).lstrip("\ufeff")


def reason(error: OSError) -> str:
    """An OSError's reason in words ("Permission denied"), else its class name."""
    return error.strerror or type(error).__name__


def strip_prompt(text: str, kind: str) -> str:
    if kind == "docker":
        text = re.sub(r"^\s*(RUN|CMD|ENTRYPOINT)\s+", "", text)
        env = re.match(r"^\s*(?:ENV|ARG)\s+(\S+?)(?:=|\s+)(.*)", text)
        if env:
            return f"{env.group(1)}={env.group(2)}"
        if text.startswith("["):
            try:
                return shlex.join(json.loads(text))
            except (ValueError, TypeError):
                pass
    if kind == "yaml":
        text = re.sub(r"^\s*(?:-\s+)?(?:[\w.-]+:\s+)?", "", text).strip("\"'|> ")
    return re.sub(r"^\s*(?:\$|#)\s+", "", text) if kind == "prompt" else text


PYTHON_BLOCKS = ("python", "py", "python3", "ipython", "pycon", "code-cell")
TEXT_BLOCKS = ("text", "json", "toml", "ini", "output", "cpp", "c++", "c", "cuda", "none", "rst", "console-output")
DOCTEST_PROMPT = re.compile(r"^(>>>|\.\.\.) ?")
# a line of an rST literal block that reads as a command
SHELL_LINE = re.compile(r"^\s*(?:\$\s|(?:torchrun|python3?|pip3?|uv|export|docker|srun|accelerate)\s)")


def scan_text(scan: FileScan, text: str, kind: str) -> None:
    lines = text.split("\n")
    scan.offsets[0] = (None, 0)
    scan.keep_noqa_lines(text)
    scan.text_lines([(0, n, t) for n, t in enumerate(lines, start=1)])
    if kind in ("shell", "yaml", "docker"):
        scan.shell(
            [(0, n, strip_prompt(t, kind)) for n, t in enumerate(lines, start=1)]
        )
    elif kind in ("markdown", "rst"):
        blocks = markdown_blocks(lines) if kind == "markdown" else rst_blocks(lines)
        scan_blocks(scan, blocks)
    elif kind == "requirements":
        numbered, name = list(enumerate(lines, start=1)), Path(scan.path).name
        for line, column, detail in packaging.findings(name, numbered):
            scan.add(0, line, column, "python-310", detail)
        scan.runtime = packaging.runtime_python(name, numbered)
        for line, column, detail in packaging.runtime_requirements(name, numbered):
            # a finding only where a runtime.txt of the folder pins Python 3.10 (scan.finish pairs them)
            scan.add(0, line, column, "python-310", detail, into=scan.on_runtime)


def scan_blocks(scan: FileScan, blocks: list) -> None:
    """A documentation file's code blocks: Python ones as a notebook's cells (a block that does not parse is
    read statement by statement, with a note for what still does not), shell-like ones as shell lines. An rST
    literal block is Python where it parses and shell where a line looks like a command; else it is text."""
    units, shell = [], []
    for offset, indent, language, block in blocks:
        if language == "literal":
            language = literal_language(block)
        if language in PYTHON_BLOCKS:
            source = "\n".join(DOCTEST_PROMPT.sub("", line) for line in block)
            code, cell_shell = split_cell(source)
            units.append((len(units) + 1, None, offset, code, cell_shell))
            scan.indents[len(units)] = indent
        elif language not in TEXT_BLOCKS:
            kind_here = {"yaml": "yaml", "yml": "yaml", "dockerfile": "docker"}.get(language, "prompt")
            shell += [(-offset, offset + i, strip_prompt(line, kind_here)) for i, line in enumerate(block, start=1)]
    scan.lenient = True
    if units:
        scan.python(units)
    scan.shell(shell)


def literal_language(block: list) -> str:
    """What an rST literal block holds: "python" where it parses as Python (doctest prompts removed), "shell"
    where a line starts with a prompt or a command word, else "text"."""
    source = "\n".join(DOCTEST_PROMPT.sub("", line) for line in block)
    try:
        parse_quietly(source)
        return "python"
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    return "shell" if any(SHELL_LINE.match(line) for line in block) else "text"


def scan_file(path: str, max_bytes: int = MAX_BYTES, reexports: dict | None = None, target: str = NEWEST) -> FileScan:
    """Scan one file, never raising: problems become per-file errors. The cyclic garbage collector waits
    meanwhile: syntax trees, scopes and findings hold no cycles (reference counts free them), and its passes
    over a growing heap took 30% of the CPU time of a dense 1 MB module and 39% of a 3 MB one (measured here)."""
    scan = FileScan(path, reexports, target)
    collecting = gc.isenabled()
    gc.disable()
    try:
        scan_file_into(scan, Path(path), max_bytes)
    except Exception as error:  # a bug in the scanner: report it, go on
        scan.errors.append(f"internal error: {path}: {type(error).__name__}: {error}")
    finally:
        if collecting:
            gc.enable()
    return scan


def mentions_torch(path: Path, kind: str | None, chunk: int = 1 << 20) -> bool:
    """Whether a rule could find something in a file too large to scan (so that
    its size is an error), read in 1 MB chunks (bounded memory)."""
    overlap = b""
    with open(path, "rb") as stream:
        while block := stream.read(chunk):
            if needed(kind, overlap + block):
                return True
            overlap = block[-64:]
    return False


def scan_file_into(scan: FileScan, path: Path, max_bytes: int) -> None:
    """Read one file and apply the rules. A file that holds nothing a rule needs
    is skipped before anything can fail (encoding, size, syntax); a file over
    `max_bytes` that holds something is an error, read in bounded memory."""
    kind = kind_of(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            scan.errors.append(f"{path}: not a regular file (skipped)")
            return
        limit = max_bytes * (NOTEBOOK_FACTOR if kind == "notebook" else 1)
        if info.st_size > limit:
            if mentions_torch(path, kind):
                size = f"{info.st_size} bytes, over the {limit}-byte limit"
                scan.errors.append(
                    f"{path}: {size} (not scanned: raise --max-bytes or exclude it)"
                )
            return
        data = path.read_bytes()
    except OSError as error:
        scan.errors.append(f"{path}: cannot read ({reason(error)})")
        return
    reading = python_reading(data) if kind == "python" else "whole" if needed(kind, data) else None
    if reading is None and kind == "requirements" and runtime_pair(path, data):
        reading = "whole"  # a runtime.txt or the requirements.txt beside it: python-310 pairs them (scan.finish)
    if reading != "whole" and kind == "python" and (may_reexport(path, data) or setup_script(path, data)):
        # a re-export: its imports, and the names it defines itself (which a star import does not replace); a
        # setup.py: its setup() call
        reading = "whole"
    if reading is None:
        return  # no rule can match: no decoding, no parse
    scan.read = True
    try:
        text = read_python(data) if kind == "python" else data.decode("utf-8-sig")
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        if kind == "python" or kind == "notebook":
            scan.errors.append(f"{path}: cannot decode ({undecodable(data, error)})")
            return
        text = data.decode("latin-1")
        scan.notes.append(f"{path}: not UTF-8, read as Latin-1")
    if kind == "python":
        scan.keep_noqa_lines(text)
        if reading == "local":  # parse only what the rules read (partial.py)
            scan.python([(0, None, 0, kept_statements(text), [])], whole=text)
        else:
            scan.python([(0, None, 0, text, [])])
    elif kind == "notebook":
        scan_notebook_into(scan, text, max_bytes)
    else:
        scan_text(scan, text, kind or "requirements")


def undecodable(data: bytes, error: Exception) -> str:
    """Why a file's bytes are no text, in words."""
    if b"\0" in data:
        return "a binary file: it holds NUL bytes"
    if isinstance(error, SyntaxError):
        return str(error.msg)
    if isinstance(error, UnicodeDecodeError):
        byte = error.object[error.start]
        return f"not {error.encoding}: byte {byte:#04x} at offset {error.start}"
    return str(error)
