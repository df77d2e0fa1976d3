# The upgrade scanner (source: tools/snippets/upgrade_scan.py; `python -m tools.upgrade_scan` runs the same code).
# It reads Python files and notebooks, and reports code that PyTorch 2.12 affects, with the fix.
import argparse
import ast
import dataclasses
import json
import os
import re
import shlex
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path

SKIPPED_FOLDERS = {
    ".git",
    ".venv",
    "venv",
    "_build",
    "__pycache__",
    "node_modules",
    "site-packages",
    ".ipynb_checkpoints",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
}
DEFAULT_PORT = 29500
DEFER_KNOB = "max_autotune_defer_layout_freezing"
DEFER_ENV = "TORCHINDUCTOR_MAX_AUTOTUNE_DEFER_LAYOUT_FREEZING"
TORCHSCRIPT = {"script", "trace", "trace_module", "script_method", "save", "load"}
ENVIRONMENT_CALLS = {
    "os.putenv",
    "os.getenv",
    "os.environ.get",
    "os.environ.setdefault",
    "os.environ.pop",
}
SUBPROCESS = {
    f"subprocess.{name}"
    for name in ("run", "call", "check_call", "check_output", "Popen")
}
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
SHELL_CELL_MAGICS = {"bash", "sh", "script", "system"}
TIMED_LINE = re.compile(
    r"%(?:time|prun|timeit(?:\s+-[nr]\s*\d+|\s+-[a-z])*)\s+(.*)"
)  # `%time stmt`: stmt is Python

# rule id -> (what changed in 2.12, the fix)
RULES = {
    "torchscript": (
        "TorchScript is deprecated (DeprecationWarning since 2.10, still so in 2.12); it gets no new features",
        "export with torch.export.export(model, args) and save with torch.export.save; use torch.compile for "
        "speed; ExecuTorch for mobile and embedded",
    ),
    "dist-nn-functional": (
        "torch.distributed.nn.functional raises RuntimeError under torch.compile in 2.12 (with fullgraph=False "
        "it graph-breaks and runs eagerly)",
        "use the same op from torch.distributed._functional_collectives",
    ),
    "port-29500": (
        "torchrun no longer defaults to port 29500: without --master-port or --standalone a single-node run "
        "picks a free port",
        "pass --master-port explicitly, or read MASTER_PORT from the environment instead of hard-coding 29500",
    ),
    "green-context-positional": (
        "GreenContext.create takes keyword arguments only in 2.12 (2.11: create(num_sms, device_id=0))",
        "call GreenContext.create(num_sms=..., device_id=...)",
    ),
    "stream-capturing": (
        "torch.cuda.is_current_stream_capturing is CUDA-only; 2.12 adds the device-agnostic "
        "torch.Stream.is_capturing()",
        "use torch.accelerator.current_stream().is_capturing()",
    ),
    "metadata-json": (
        "FunctionEvent.metadata_json is deprecated in 2.12 (warns on access)",
        "read the structured FunctionEvent.event_metadata instead",
    ),
    "magma": (
        "MAGMA is deprecated; in 2.12 eigh, lu_solve, cholesky_solve and cholesky_inverse no longer use it, "
        "so preferring 'magma' does not change them",
        "drop the call (PyTorch then chooses for each op), or ask for 'cusolver'",
    ),
    "defer-layout-freezing": (
        "the release notes' max_autotune_defer_layout_freezing knob is not in the 2.12.0 wheel: setting the "
        "config raises AttributeError and the environment variable is ignored",
        "remove it; 2.12 still defers layout freezing by default",
    ),
}


@dataclasses.dataclass(frozen=True)
class Finding:
    """One place in one file that 2.12 affects. `cell` is the notebook cell index (None for .py files)."""

    path: str
    line: int
    rule: str
    detail: str
    cell: int | None = None

    @property
    def changed(self) -> str:
        return RULES[self.rule][0]

    @property
    def fix(self) -> str:
        return RULES[self.rule][1]

    def where(self) -> str:
        return (
            f"{self.path}:{self.line}"
            if self.cell is None
            else f"{self.path} (cell {self.cell}, line {self.line})"
        )

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "cell": self.cell,
            "line": self.line,
            "rule": self.rule,
            "detail": self.detail,
            "changed": self.changed,
            "fix": self.fix,
        }


@dataclasses.dataclass
class Report:
    findings: list[Finding] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)
    files: int = 0


# ---- Python code, through the AST ----------------------------------------------------------------------------------


def import_aliases(trees: Iterable[ast.AST]) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from every import in the code (`import torch as t` -> t: torch)."""
    aliases: dict[str, str] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for name in node.names:
                    if name.asname:
                        aliases[name.asname] = name.name
                    else:
                        top = name.name.split(".")[0]
                        aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for name in node.names:
                    if name.name != "*":
                        aliases[name.asname or name.name] = f"{node.module}.{name.name}"
    return aliases


def qualified_name(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The dotted name an expression like `t.jit.script` refers to, or None when it is not an imported name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def constant(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def is_default_port(node: ast.AST | None) -> bool:
    return constant(node) in (DEFAULT_PORT, str(DEFAULT_PORT))


class PythonScanner(ast.NodeVisitor):
    """Finds the 2.12 rules in one parsed module; `report(line, rule, detail)` receives each finding."""

    def __init__(self, aliases: dict[str, str], report) -> None:
        self.aliases = aliases
        self.report = report

    def name_rule(self, name: str) -> tuple[str, str] | None:
        module, _, attr = name.rpartition(".")
        if module == "torch.jit" and attr in TORCHSCRIPT:
            return "torchscript", f"{name}"
        if name == "torch.distributed.nn.functional" or name.startswith(
            "torch.distributed.nn.functional."
        ):
            return "dist-nn-functional", name
        if name in (
            "torch.cuda.is_current_stream_capturing",
            "torch.cuda.graphs.is_current_stream_capturing",
        ):
            return "stream-capturing", name
        return None

    def check_name(self, node: ast.AST) -> bool:
        """Report a use of a flagged name; True when it was one (so the parts of the name are not reported again)."""
        name = qualified_name(node, self.aliases)
        found = self.name_rule(name) if name else None
        if found:
            self.report(node.lineno, *found)
        return found is not None

    def visit_Name(self, node: ast.Name) -> None:
        self.check_name(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.check_name(node):
            return
        if node.attr == "metadata_json":
            self.report(node.lineno, "metadata-json", ".metadata_json")
        elif node.attr == DEFER_KNOB:
            self.report(node.lineno, "defer-layout-freezing", f".{DEFER_KNOB}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = qualified_name(node.func, self.aliases) or ""
        if (
            name.endswith("GreenContext.create")
            and name.startswith("torch.cuda")
            and node.args
        ):
            self.report(
                node.lineno,
                "green-context-positional",
                f"{len(node.args)} positional argument(s)",
            )
        if name == "torch.backends.cuda.preferred_linalg_library":
            backend = (
                node.args[0]
                if node.args
                else next((k.value for k in node.keywords if k.arg == "backend"), None)
            )
            if (
                isinstance(constant(backend), str)
                and constant(backend).lower() == "magma"
            ):
                self.report(node.lineno, "magma", 'preferred_linalg_library("magma")')
        for keyword in node.keywords:
            if keyword.arg == "master_port" and is_default_port(keyword.value):
                self.report(keyword.value.lineno, "port-29500", "master_port=29500")
            elif keyword.arg == "init_method" and re.search(
                rf":{DEFAULT_PORT}\b", str(constant(keyword.value))
            ):
                self.report(
                    keyword.value.lineno, "port-29500", "init_method with port 29500"
                )
            elif keyword.arg == DEFER_KNOB:
                self.report(
                    keyword.value.lineno, "defer-layout-freezing", f"{DEFER_KNOB}=..."
                )
            elif (
                keyword.arg == "MASTER_PORT"
                and name.endswith("environ.update")
                and is_default_port(keyword.value)
            ):
                self.report(keyword.value.lineno, "port-29500", "MASTER_PORT=29500")
        if name in ENVIRONMENT_CALLS and node.args:
            sets = node.args[1] if name == "os.putenv" and len(node.args) > 1 else None
            self.environment_use(node.lineno, node.args[0], sets)
        if name in SUBPROCESS and node.args:
            self.command(node.args[0])
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if qualified_name(node.value, self.aliases) == "os.environ" and isinstance(
            node.ctx, ast.Load
        ):
            self.environment_use(node.lineno, node.slice, None)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if (
                isinstance(target, ast.Subscript)
                and qualified_name(target.value, self.aliases) == "os.environ"
            ):
                self.environment_use(node.lineno, target.slice, node.value)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for key in node.keys:
            if key is not None and constant(key) == DEFER_ENV:
                self.environment_use(key.lineno, key, None)
        self.generic_visit(node)

    def environment_use(
        self, line: int, key: ast.AST | None, value: ast.AST | None
    ) -> None:
        """An environment variable read, or set to `value`: flag the absent Inductor knob, and MASTER_PORT overwritten
        with 29500 (under torchrun 2.12 that points the workers at a port nobody listens on)."""
        if constant(key) == DEFER_ENV:
            self.report(line, "defer-layout-freezing", DEFER_ENV)
        elif constant(key) == "MASTER_PORT" and is_default_port(value):
            self.report(line, "port-29500", "MASTER_PORT set to 29500")

    def command(self, node: ast.AST) -> None:
        """A subprocess command given as a string or a list of string constants: scan it as a shell line."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.List | ast.Tuple) and all(
            isinstance(constant(e), str) for e in node.elts
        ):
            text = shlex.join(constant(e) for e in node.elts)
        else:
            return
        for rule, detail in shell_rules(text):
            self.report(node.lineno, rule, detail)


def hard_coded_port(trees: Iterable[ast.AST], shell_lines: Iterable[str] = ()) -> bool:
    """Whether the code names port 29500: the number, the string "29500", an address like "host:29500", or a shell
    line (other than a torchrun command) that mentions it."""
    address = re.compile(rf"(?<![\d]){DEFAULT_PORT}(?!\d)")
    for tree in trees:
        for node in ast.walk(tree):
            value = constant(node)
            if value in (DEFAULT_PORT, str(DEFAULT_PORT)) or (
                isinstance(value, str) and f":{DEFAULT_PORT}" in value
            ):
                return True
    return any(address.search(line) for line in shell_lines)


# ---- shell lines (`!torchrun ...`, `%env ...`, %%bash cells, subprocess commands) -----------------------------------


def shell_rules(line: str) -> Iterator[tuple[str, str]]:
    """Rules that a shell command line triggers by itself. A torchrun line that relies on the default port is
    decided later by `torchrun_without_port`, with the rest of the file in view."""
    words = shell_words(line)
    for word in words:
        name, _, value = word.partition("=")
        if name == DEFER_ENV:
            yield "defer-layout-freezing", DEFER_ENV
        elif (
            name == "MASTER_PORT"
            and value == str(DEFAULT_PORT)
            and launches_torchrun(words)
        ):
            yield (
                "port-29500",
                "MASTER_PORT=29500 does not set torchrun's port (torchrun reads --master-port)",
            )


def shell_words(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:  # an unbalanced quote: fall back to whitespace
        return line.split()


def launches_torchrun(words: list[str]) -> bool:
    return (
        any(Path(w).name == "torchrun" for w in words)
        or "torch.distributed.run" in words
    )


def torchrun_without_port(line: str) -> bool:
    """A single-node torchrun command with no --master-port, --standalone or --rdzv-endpoint: 2.12 picks a port."""
    words = shell_words(line)
    if not launches_torchrun(words) or any(
        w.startswith("PET_MASTER_PORT=") for w in words
    ):
        return False
    options: dict[str, str] = {}
    for index, word in enumerate(words):
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            following = words[index + 1] if index + 1 < len(words) else ""
            options[name.replace("_", "-")] = value if equals else following
    if {"--master-port", "--standalone", "--rdzv-endpoint"} & options.keys():
        return False
    return options.get("--nnodes", "1").split(":")[-1] == "1"


# ---- files and notebooks --------------------------------------------------------------------------------------------


def split_cell(source: str) -> tuple[str, list[tuple[int, str]]]:
    """A notebook code cell as (Python source with IPython lines blanked, [(line, shell command)]).

    `!cmd`, `x = !cmd` and `%env A=B` are shell lines; `%time stmt` keeps its Python statement; other `%magic` lines
    are blanked (a `pass` keeps an indented block valid); a `%%bash` cell is all shell;
    a `%%time`-like cell magic or `%%writefile *.py` keeps its Python body. Line numbers are kept."""
    lines = source.split("\n")
    shell: list[tuple[int, str]] = []
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic, *rest = first[2:].split()
        python_body = magic in PYTHON_CELL_MAGICS or (
            magic == "writefile" and rest and rest[-1].endswith(".py")
        )
        if magic in SHELL_CELL_MAGICS or (
            magic == "writefile" and rest and rest[-1].endswith(".sh")
        ):
            shell = [(number, line) for number, line in enumerate(lines[1:], start=2)]
        if not python_body:
            return "", shell
        lines = ["", *lines[1:]]
    code = []
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        assigned = re.match(r"[\w.]+\s*=\s*!(.*)", stripped)
        timed = TIMED_LINE.match(stripped)
        if timed:
            code.append(f"{indent}{timed.group(1)}")
            continue
        if stripped.startswith("!"):
            shell.append((number, stripped.lstrip("!")))
        elif assigned:
            shell.append((number, assigned.group(1)))
        elif stripped.startswith("%env "):
            setting = stripped[len("%env ") :].strip()
            shell.append(
                (
                    number,
                    setting if "=" in setting else "=".join(setting.split(None, 1)),
                )
            )
        elif not stripped.startswith("%") and not (
            stripped.endswith("?") and not stripped.startswith("#")
        ):
            code.append(line)
            continue
        code.append(f"{indent}pass" if indent else "")
    return "\n".join(code), shell


def scan_units(
    path: str,
    units: list[tuple[int | None, str, list[tuple[int, str]]]],
    report: Report,
) -> None:
    """Scan the Python parts of a file together (they share imports, as a notebook's cells share a kernel)."""
    parsed: list[tuple[int | None, ast.AST]] = []
    for cell, code, _ in units:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore", SyntaxWarning
                )  # e.g. an invalid escape in the scanned code
                parsed.append((cell, ast.parse(code)))
        except (
            SyntaxError,
            ValueError,
        ) as error:  # ValueError: null bytes in the source
            line = (
                f"line {error.lineno}: {error.msg}"
                if isinstance(error, SyntaxError)
                else str(error)
            )
            where = line if cell is None else f"cell {cell}, {line}"
            skipped = (
                "skipped the file"
                if cell is None
                else "skipped the cell, scanned the others"
            )
            report.errors.append(f"{path}: cannot parse ({where}); {skipped}")
    aliases = import_aliases(tree for _, tree in parsed)
    for cell, tree in parsed:
        PythonScanner(
            aliases,
            lambda line, rule, detail, cell=cell: report.findings.append(
                Finding(path, line, rule, detail, cell)
            ),
        ).visit(tree)
    shell = [(cell, line, text) for cell, _, lines in units for line, text in lines]
    for cell, line, text in shell:
        report.findings += [
            Finding(path, line, rule, detail, cell)
            for rule, detail in shell_rules(text)
        ]
    others = (text for _, _, text in shell if not launches_torchrun(shell_words(text)))
    if hard_coded_port((tree for _, tree in parsed), others):
        for cell, line, text in shell:
            if torchrun_without_port(text):
                report.findings.append(
                    Finding(
                        path,
                        line,
                        "port-29500",
                        "torchrun without --master-port while this file hard-codes 29500",
                        cell,
                    )
                )
    unique = {
        (f.cell, f.line, f.rule): f for f in reversed(report.findings)
    }  # one finding per line and rule
    report.findings = sorted(
        unique.values(), key=lambda f: (f.cell or 0, f.line, f.rule)
    )


def scan_source(source: str, path: str = "<source>") -> Report:
    """Scan one Python source text."""
    report = Report(files=1)
    scan_units(path, [(None, source, [])], report)
    return report


def scan_notebook_json(text: str, path: str = "<notebook>") -> Report:
    """Scan a notebook's code cells (the JSON text of an .ipynb file)."""
    report = Report(files=1)
    try:
        cells = json.loads(text)["cells"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        report.errors.append(
            f"{path}: not a valid notebook ({error.__class__.__name__}: {error})"
        )
        return report
    units = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            code, shell = split_cell(
                source if isinstance(source, str) else "".join(source)
            )
            units.append((index, code, shell))
    scan_units(path, units, report)
    return report


def files_under(paths: Iterable[Path], report: Report) -> Iterator[Path]:
    """The files named, and the .py and .ipynb files under the folders named (hidden and skipped folders pruned)."""
    for path in paths:
        if path.is_file():
            yield path
        elif path.is_dir():
            for folder, subfolders, files in os.walk(path):
                subfolders[:] = sorted(
                    d
                    for d in subfolders
                    if d not in SKIPPED_FOLDERS and not d.startswith(".")
                )
                yield from (
                    Path(folder) / name
                    for name in sorted(files)
                    if name.endswith((".py", ".ipynb"))
                )
        else:
            report.errors.append(f"{path}: no such file or folder")


def scan_paths(paths: Iterable[str | Path]) -> Report:
    """Scan files and folders (recursively: .py and .ipynb, skipping virtual environments and build output)."""
    report = Report()
    for path in files_under([Path(p) for p in paths], report):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            report.errors.append(f"{path}: cannot read ({error.__class__.__name__})")
            continue
        if path.suffix == ".ipynb":
            found = scan_notebook_json(text, str(path))
        elif path.suffix == ".py":
            found = scan_source(text, str(path))
        else:
            report.errors.append(f"{path}: not a .py file or an .ipynb notebook")
            continue
        report.files += 1
        report.findings += found.findings
        report.errors += found.errors
    return report


def format_report(report: Report) -> str:
    lines = [
        f"{f.where()}: [{f.rule}] {f.detail}: {f.changed}. Fix: {f.fix}."
        for f in report.findings
    ]
    lines += [f"error: {error}" for error in report.errors]
    lines.append(
        f"{len(report.findings)} finding(s) in {report.files} file(s)"
        + (f", {len(report.errors)} error(s)" if report.errors else "")
    )
    return "\n".join(lines)


def exit_code(report: Report) -> int:
    """0: nothing found; 1: findings; 2: a path was missing or a file could not be parsed."""
    return 2 if report.errors else 1 if report.findings else 0


def upgrade_scan_main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.upgrade_scan",
        description="Find code that PyTorch 2.12 affects, with the fix for each.",
    )
    parser.add_argument(
        "paths", nargs="+", help=".py files, .ipynb notebooks or folders to scan"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the findings as JSON"
    )
    args = parser.parse_args(argv)
    report = scan_paths(args.paths)
    if args.json:
        print(
            json.dumps(
                {
                    "findings": [f.to_dict() for f in report.findings],
                    "errors": report.errors,
                    "files": report.files,
                },
                indent=1,
            )
        )
    else:
        print(format_report(report))
    return exit_code(report)
