"""Fix mode: rewrite the findings whose fix is mechanical and safe.

Five rules are fixed; every other rule needs judgement (its fix depends on what the code means) and is left
as a finding. Only Python files and shell-like files (shell scripts, Makefiles, CI YAML, Dockerfiles) are
rewritten; notebooks and documentation (Markdown, reStructuredText) are not (a notebook's JSON would have to be
rewritten cell by cell, and its outputs would no longer match its code).
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import re
from pathlib import Path

from torch_upgrade_scan.findings import Finding
from torch_upgrade_scan.parse import module_text
from torch_upgrade_scan.reading import kind_of, read_python, reason, strip_prompt
from torch_upgrade_scan.rules.inductor import KNOB, KNOB_ENV
from torch_upgrade_scan.rules.later import linalg_call, profiler_keyword
from torch_upgrade_scan.rules.shell import torchrun_without_port

# What --fix does, per rule it can fix.
FIXABLE = {
    "green-context-positional": "names the positional arguments of GreenContext.create: "
    "create(16, 0) becomes create(num_sms=16, device_id=0) (2.11's order: num_sms, device_id)",
    "defer-layout-freezing": "deletes a statement that assigns the knob (`config.max_autotune_defer_layout_freezing "
    "= ...`; a `pass` where it was the only statement of its block) or its environment variable "
    "(`os.environ['TORCHINDUCTOR_MAX_AUTOTUNE_DEFER_LAYOUT_FREEZING'] = ...`), and the variable's setting in a "
    "shell, Makefile, YAML or Dockerfile line (the line, where nothing else is left on it; a YAML `env:` mapping "
    "whose only key it is, with it); other uses need judgement",
    "profiler-use-cuda": "rewrites use_cuda=True or False (a literal) in torch.profiler.profile as "
    "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] or [ProfilerActivity.CPU] (read from the module the "
    "call names, or a ProfilerActivity the file imports), and in torch.autograd.profiler.profile as "
    "use_device=\"cuda\" or nothing; where activities= is given too, use_cuda= goes (2.12 did not pass it on). "
    "Each form runs on 2.12",
    "cholesky-qr": "rewrites torch.cholesky(A, upper) and A.cholesky(upper) as torch.linalg.cholesky(A, "
    "upper=True where upper was True), torch.qr(A, some) and A.qr(some) as torch.linalg.qr(A, mode='complete' "
    "where some was False): the same factors, on 2.12 too. A flag that is no True or False literal, out=, or a "
    "method call in a file that does not `import torch` needs judgement",
    "port-29500": "adds --master-port=29500 after torchrun in a shell, Makefile, YAML (`run:`) or Dockerfile "
    "(`RUN`, `CMD`, `ENTRYPOINT` in shell form) line, which keeps 2.11's port, once a line; a Python literal "
    "29500 needs judgement",
}
GREEN_CONTEXT_ORDER = (
    "num_sms",
    "device_id",
)  # GreenContext.create(num_sms, device_id=0) in 2.11
SHELL_KINDS = {"shell", "yaml", "docker"}
# The launcher as a shell word (not `"torchrun",` in a Dockerfile's JSON form, which --fix leaves alone).
LAUNCHER = re.compile(r"\btorchrun(?=\s|$)|-m\s+torch\.distributed\.(?:run|launch)(?=\s|$)")
# The knob's environment variable set in a shell word (`NAME=value`), and as a YAML key (`NAME: value`).
ENV_SETTING = re.compile(rf"(?<![\w-]){KNOB_ENV}=(?:\"[^\"]*\"|'[^']*'|[^\s;&|]*)[ \t]*")
YAML_SETTING = re.compile(rf"^(\s*)[\"']?{KNOB_ENV}[\"']?\s*:")
# A YAML `env:` key alone on its line (the mapping that holds the variable; not a list item's `- env:`).
ENV_MAPPING = re.compile(r"^(\s*)env:\s*(?:#.*)?$")
# What is left of a line that only set the variable: the line goes.
LEFT_EMPTY = re.compile(r"^\s*(?:export|ENV|ARG|-\s+run:)?\s*(?:#.*)?$")
Edit = tuple[int, int, str]  # start offset, end offset, replacement


class Source:
    """A file's text with conversions from ast positions (UTF-8 byte columns) to text offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in text.split("\n"):
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.lines = text.split("\n")

    def offset(self, line: int, byte_column: int) -> int:
        prefix = self.lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8", errors="replace")
        return self.starts[line - 1] + len(prefix)


def green_context_edits(tree: ast.AST, source: Source, finding: Finding) -> list[Edit]:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and node.lineno == finding.line
            and node.col_offset + 1 == finding.column
            and len(node.args) <= len(GREEN_CONTEXT_ORDER)
            and not any(isinstance(a, ast.Starred) for a in node.args)
        ):
            given = {k.arg for k in node.keywords}
            names = GREEN_CONTEXT_ORDER[: len(node.args)]
            if given & set(names) or None in given:  # a clash or **kwargs: not mechanical
                return []
            return [
                (at, at, f"{name}=")
                for name, arg in zip(names, node.args, strict=True)
                for at in [source.offset(arg.lineno, arg.col_offset)]
            ]
    return []


def knob_edits(tree: ast.AST, source: Source, finding: Finding) -> list[Edit]:
    """Delete `X.max_autotune_defer_layout_freezing = value` when it is a whole statement on its own lines."""
    for parent in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if not isinstance(block, list):
                continue
            for statement in block:
                if not isinstance(statement, ast.Assign | ast.AnnAssign):
                    continue
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                hit = [
                    t
                    for t in targets
                    for at in [knob_target(t)]
                    if at is not None and at.lineno == finding.line and at.col_offset + 1 == finding.column
                ]
                if not hit or len(targets) != 1 or statement.end_lineno is None:
                    continue
                first, last = statement.lineno, statement.end_lineno
                before = source.lines[first - 1].encode("utf-8")[: statement.col_offset]
                after = source.lines[last - 1].encode("utf-8")[statement.end_col_offset or 0 :].decode("utf-8")
                rest = after.strip()
                if before.strip() or (rest not in ("", ";") and not rest.startswith("#")):
                    return []  # shares its line with other code
                start, end = source.starts[first - 1], source.starts[last]
                if len(block) == 1:  # the block would be empty
                    return [(start, end, f"{before.decode('utf-8')}pass\n")]
                return [(start, end, "")]
    return []


def knob_target(target: ast.expr) -> ast.expr | None:
    """The node a finding points at when `target` is the knob (`x.knob`) or its variable (`os.environ[NAME]`)."""
    if isinstance(target, ast.Attribute) and target.attr == KNOB:
        return target
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and target.slice.value == KNOB_ENV:
        return target.slice
    return None


def env_edits(source: Source, finding: Finding, kind: str) -> list[Edit]:
    """Delete the knob's environment variable from a shell, YAML or Dockerfile line: the whole line where nothing
    else is left on it (a YAML key only beside a sibling key, so that its mapping is not left empty)."""
    number = finding.line
    line = source.lines[number - 1]
    start, end = source.starts[number - 1], source.starts[number]
    yaml_key = YAML_SETTING.match(line) if kind == "yaml" else None
    if yaml_key:
        indent = len(yaml_key.group(1))
        around = [source.lines[i] for i in (number - 2, number) if 0 <= i < len(source.lines)]
        neighbours = [text for text in around if text.strip() and not text.lstrip().startswith("#")]
        if any(len(text) - len(text.lstrip()) == indent for text in neighbours):
            return [(start, end, "")]
        parent = ENV_MAPPING.match(source.lines[number - 2]) if number > 1 else None
        if parent and len(parent.group(1)) < indent:  # its only key: the `env:` line goes with it
            return [(source.starts[number - 2], end, "")]
        return []
    match = ENV_SETTING.search(line)
    if match is None:
        return []
    rest = line[: match.start()] + line[match.end() :]
    if LEFT_EMPTY.match(rest) and not rest.rstrip().endswith("\\"):
        return [(start, end, "")]
    return [(start + match.start(), start + match.end(), "")]


def port_edits(source: Source, finding: Finding, kind: str = "shell") -> list[Edit]:
    """Insert --master-port=29500 after the launcher on the line where the command starts (a YAML `run:` value
    or a Dockerfile `RUN`/`CMD` line read as the scanner reads it)."""
    line = source.lines[finding.line - 1]
    command, number = line, finding.line
    while command.rstrip().endswith("\\") and number < len(source.lines):  # continued lines
        command = command.rstrip()[:-1] + " " + source.lines[number]
        number += 1
    launcher = LAUNCHER.search(line)
    if launcher is None or not torchrun_without_port(strip_prompt(command, kind)):
        return []
    at = source.starts[finding.line - 1] + launcher.end()
    return [(at, at, " --master-port=29500")]


def call_at(tree: ast.AST, finding: Finding) -> ast.Call | None:
    """The call a finding points at (its first line and column)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno == finding.line and node.col_offset + 1 == finding.column:
            return node
    return None


def imported_as(tree: ast.AST, module: str, name: str = "") -> str | None:
    """The name a top-level import binds to `module` (`import torch`, `import torch as th`) or, with `name`, to
    that member of it (`from torch.profiler import ProfilerActivity`)."""
    for statement in getattr(tree, "body", []):
        if isinstance(statement, ast.Import) and not name:
            for alias in statement.names:
                if alias.name == module:
                    return alias.asname or alias.name
        if isinstance(statement, ast.ImportFrom) and statement.module == module and name:
            for alias in statement.names:
                if alias.name == name:
                    return alias.asname or alias.name
    return None


def span(source: Source, node: ast.AST) -> tuple[int, int]:
    start = source.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
    return start, source.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def profiler_edits(tree: ast.AST, source: Source, finding: Finding) -> list[Edit]:
    """use_cuda= replaced (or removed, with the comma that separates it) in the profiler call of the finding."""
    call = call_at(tree, finding)
    if call is None:
        return []
    keyword = next(k for k in call.keywords if k.arg == "use_cuda")
    kineto = finding.detail.startswith("torch.profiler")
    activity = None
    if isinstance(call.func, ast.Attribute):
        activity = f"{module_text(call.func.value)}.ProfilerActivity"
    elif (own := imported_as(tree, "torch.profiler", "ProfilerActivity")) is not None:
        activity = own
    elif (torch_name := imported_as(tree, "torch")) is not None:
        activity = f"{torch_name}.profiler.ProfilerActivity"
    replacement = profiler_keyword(call, kineto, activity)
    if replacement is None:
        return []
    start, end = span(source, keyword)
    if replacement:
        return [(start, end, replacement)]
    arguments: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    arguments.sort(key=lambda n: (n.lineno, n.col_offset))
    index = arguments.index(keyword)
    if index + 1 < len(arguments):  # up to the next argument
        return [(start, span(source, arguments[index + 1])[0], "")]
    if index:  # from the end of the one before
        return [(span(source, arguments[index - 1])[1], end, "")]
    return [(start, span(source, call)[1] - 1, "")]  # the only one: up to the closing bracket


def linalg_edits(tree: ast.AST, source: Source, finding: Finding) -> list[Edit]:
    call = call_at(tree, finding)
    if call is None:
        return []
    written = lambda node: ast.get_source_segment(source.text, node) or ast.unparse(node)  # noqa: E731
    replacement = linalg_call(call, finding.detail.startswith("Tensor."), imported_as(tree, "torch"), written)
    if replacement is None:
        return []
    start, end = span(source, call)
    return [(start, end, replacement)]


def fixed_text(path: Path, text: str, findings: list[Finding]) -> tuple[str, list[Finding]]:
    """The file's text with every fixable finding rewritten, and the findings fixed."""
    kind = kind_of(path)
    source = Source(text)
    edits: list[Edit] = []
    fixed: list[Finding] = []
    tree = None
    if kind == "python":
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return text, []
    for finding in findings:
        if finding.rule not in FIXABLE or finding.cell is not None:
            continue
        found: list[Edit] = []
        if tree is not None and finding.rule == "green-context-positional":
            found = green_context_edits(tree, source, finding)
        elif tree is not None and finding.rule == "defer-layout-freezing":
            found = knob_edits(tree, source, finding)
        elif tree is not None and finding.rule == "profiler-use-cuda":
            found = profiler_edits(tree, source, finding)
        elif tree is not None and finding.rule == "cholesky-qr":
            found = linalg_edits(tree, source, finding)
        elif kind in SHELL_KINDS and finding.rule == "defer-layout-freezing":
            found = env_edits(source, finding, kind)
        elif kind in SHELL_KINDS and finding.rule == "port-29500":
            found = port_edits(source, finding, kind)
        if found and all(edit in edits for edit in found):  # the same rewrite for two findings: made once
            fixed.append(finding)
            continue
        taken = [(s, e) for s, e, _ in edits]
        if found and not any((s < e2 and s2 < e) or s == s2 for s, e, _ in found for s2, e2 in taken):
            edits += found
            fixed.append(finding)
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, fixed


def unfixed(findings: list[Finding], fixed: list[Finding]) -> list[Finding]:
    """The findings that --fix leaves; those of a rule that it rewrites say why (`hand_fix`)."""
    return [
        dataclasses.replace(finding, hand_fix=left_because(finding)) if finding.rule in FIXABLE else finding
        for finding in findings
        if finding not in fixed
    ]


def left_because(finding: Finding) -> str:
    kind = kind_of(Path(finding.path))
    if kind == "notebook":
        return "notebooks are not rewritten (their outputs would no longer match their code)"
    if kind in ("markdown", "rst"):
        return "documentation is not rewritten: edit its text"
    if kind == "python" and finding.rule == "port-29500":
        return "a 29500 in Python needs judgement"
    if kind == "python":
        return "not mechanical here: " + FIXABLE[finding.rule].rpartition(". ")[2]
    return "no safe rewrite of this line (it shares the line with other code, or is not a shell command)"


def plan(findings: list[Finding]) -> dict[Path, tuple[str, str, list[Finding]]]:
    """path -> (old text, new text, findings fixed), for the files that change."""
    by_path: dict[Path, list[Finding]] = {}
    for finding in findings:
        if finding.rule in FIXABLE:
            by_path.setdefault(Path(finding.path), []).append(finding)
    changes = {}
    for path, found in by_path.items():
        try:
            data = path.read_bytes()
        except OSError:
            continue  # the scan has reported it
        try:
            old = read_python(data) if kind_of(path) == "python" else data.decode("utf-8")
        except (SyntaxError, UnicodeDecodeError, LookupError):
            continue  # rewritten only when it round-trips as UTF-8
        if old.encode("utf-8") != data:
            continue
        new, fixed = fixed_text(path, old, found)
        if fixed and new != old:
            changes[path] = (old, new, fixed)
    return changes


def unified_diff(changes: dict[Path, tuple[str, str, list[Finding]]]) -> str:
    return "".join(
        "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"a/{path.as_posix()}",
                f"b/{path.as_posix()}",
            )
        )
        for path, (old, new, _) in changes.items()
    )


def apply(changes: dict[Path, tuple[str, str, list[Finding]]]) -> list[str]:
    """Write each file's new text; a file that cannot be written is an error (returned), and the rest go on."""
    errors = []
    for path, (_, new, _) in changes.items():
        try:
            path.write_bytes(new.encode("utf-8"))
        except OSError as error:
            errors.append(f"{path}: cannot write the fix ({reason(error)})")
    return errors
