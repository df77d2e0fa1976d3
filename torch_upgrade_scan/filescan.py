"""One file's scan: its Python units parsed as one module and checked by the rules, its shell lines and its
other lines of text; the findings, errors, notes and torchrun evidence they give."""

import dataclasses
import re

from torch_upgrade_scan.catalog import DEPRECATED_DIST_NN, NEWEST, RULES, WARNS
from torch_upgrade_scan.findings import Finding, suppressed
from torch_upgrade_scan.parse import Module, Scope
from torch_upgrade_scan.pieces import PIECE_CHARS, parse_quietly, pieces
from torch_upgrade_scan.rules import python_findings
from torch_upgrade_scan.rules.cuda import CU128, OLD_CUDA, SOURCE_BUILD
from torch_upgrade_scan.rules.inductor import KNOB_ENV, KNOB_SETTING
from torch_upgrade_scan.rules.shell import (
    MASTER_PORT_FINDING,
    PORT,
    launched_scripts,
    launches_torchrun,
    logical_lines,
    other_launcher,
    sets_master_port,
    shell_rules,
    shell_variables,
    shell_words,
    torchrun_without_port,
)


class FileScan:
    """Everything found in one file. Units are the file's Python parts (a
    module, a notebook's cells, a Markdown file's code blocks) and shell parts."""

    def __init__(self, path: str, reexports: dict | None = None, target: str = NEWEST) -> None:
        self.path = path
        self.target = target  # the release upgraded to: a severity in a noqa comment is a rule's there
        self.reexports = reexports  # the project's modules that re-export torch's names (see context.reexported)
        self.exports: tuple | None = None  # what this module re-exports (see rules.exports_of)
        self.findings: list = []
        self.errors: list = []
        self.notes: list = []
        self.pending: list = []
        # functions of this file that return a multi-device backend: name -> text; and the process groups whose
        # backend a function of another file may return: [(finding without its detail, function name)]
        self.helpers: dict = {}
        self.via_helpers: list = []
        self.launched: set = set()
        # a runtime.txt's Python 3.10, and a requirements.txt's torch lines that need one beside them (scan.finish)
        self.runtime = ""
        self.on_runtime: list = []
        self.facts = {"spawns": False, "launcher": False}
        self.lines: dict = {}  # (cell, line) -> text of the lines with noqa
        self.offsets: dict = {}  # unit -> (cell, line offset)
        self.indents: dict = {}  # unit -> columns its code was dedented by (an rST block, a cell)
        self.lenient = False  # Markdown: code that does not parse is a note
        # whether its text was read (it holds what a rule needs): only such a file can find more where the names
        # it imports come through a module of the project that re-exports torch's (scan.through_reexports)
        self.read = False

    def empty(self) -> bool:
        """Whether the scan found, noted or learnt nothing (a file that holds nothing a rule needs)."""
        kept = (self.findings, self.errors, self.notes, self.pending, self.helpers, self.via_helpers, self.launched,
                self.exports, self.runtime, self.on_runtime)
        return not any(kept)

    def add(self, unit, line, column, rule, detail, fix="", severity="", release="", into=None):
        """A finding at a line of a unit (a cell, a code block), unless a noqa comment there silences it; kept in
        `into` (a list the scan finishes later) or else in the file's findings."""
        cell, offset = self.offsets.get(unit, (None, 0))
        column += self.indents.get(unit, 0)
        text = self.lines.get((cell, line + offset), "")
        if self.silenced(text, rule, severity):
            return
        (self.findings if into is None else into).append(
            Finding(self.path, line + offset, rule, detail, cell, column, fix, severity, release=release)
        )

    def silenced(self, text: str, rule: str, severity: str = "") -> bool:
        """Whether a `# noqa` comment in `text` covers a finding of `rule`: by its own severity where it has one,
        else by the rule's severity for an upgrade to the target (`# noqa: warns` leaves a rule that breaks there)."""
        return suppressed(text, rule, severity or RULES[rule].severity_at(self.target))

    def keep_noqa_lines(self, text: str, cell: int | None = None) -> None:
        """Keep the lines of `text` that hold a noqa comment: the only lines that
        `add` reads (keeping every line cost 60 MB on a 10 MB file). Found in a
        lower-case copy (lowering keeps every newline), one search per line that holds one."""
        lowered = text.lower()
        at = lowered.find("noqa")
        if at < 0:
            return
        lines, number, counted = text.split("\n"), 1, 0
        while at >= 0:
            number += lowered.count("\n", counted, at)
            counted = at
            self.lines[(cell, number)] = lines[number - 1]
            at = lowered.find("noqa", (lowered.find("\n", at) + 1) or len(lowered))

    def python(self, units: list, whole: str | None = None) -> None:
        """units: [(unit id, cell, line offset, source, shell lines)]. `whole`: the module's whole source where
        the one unit's source is a cut of it (partial.py), parsed instead where the cut does not parse."""
        if len(units) == 1 and len(units[0][3]) > PIECE_CHARS and not self.lenient:
            self.python_in_pieces(units[0], whole)
        else:
            module = Module()
            for unit, cell, offset, code, _ in units:
                self.offsets[unit] = (cell, offset)
                try:
                    module.add(unit, parse_quietly(code))
                except (SyntaxError, ValueError) as error:
                    if whole is not None:
                        self.python([(unit, cell, offset, whole, [])])
                        return
                    if self.lenient:  # a Markdown code block may be a fragment
                        self.fragments(module, unit, offset, code)
                    else:
                        self.unparsed(error, cell)
                except (RecursionError, MemoryError) as error:
                    self.unparsed(error, cell)
            self.rules(module)
        shell = [
            (unit, line, text) for unit, _, _, _, lines in units for line, text in lines
        ]
        self.shell(shell)

    def python_in_pieces(self, unit_source: tuple, whole: str | None = None) -> None:
        """A large module, one piece of whole statements at a time (see pieces.py),
        sharing one root scope and the names imports bind. Whether a dist.nn use breaks depends on a compile
        anywhere in the module: each is reported as breaking, then, when no piece
        compiled, made a warning (the deprecated ones) or dropped."""
        unit, cell, offset, code, _ = unit_source
        root, imported = Scope("module", None), set()
        compiled, before = False, (len(self.findings), len(self.pending))
        try:
            for part, (first, tree) in enumerate(pieces(code, PIECE_CHARS), start=unit + 1):
                self.offsets[part] = (cell, offset + first - 1)
                module = Module(root, imported)
                module.add(part, tree)
                del tree  # the module's lists hold what the rules read
                compiled |= self.rules(module, compiled_elsewhere=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            del self.findings[before[0] :], self.pending[before[1] :]
            self.via_helpers, self.helpers = [], {}
            if whole is not None:
                self.python([(unit, cell, offset, whole, [])])
                return
            self.unparsed(error, cell)
            return
        if not compiled:
            self.findings = [f for f in map(self.uncompiled, self.findings) if f]

    def uncompiled(self, finding: Finding) -> Finding | None:
        """A dist.nn finding of a module that does not compile: 'warns' for the
        deprecated collectives (unless noqa names that), None for the others."""
        if finding.rule != "dist-nn-functional" or finding.severity:
            return finding
        text = self.lines.get((finding.cell, finding.line), "")
        deprecated = finding.detail.rpartition(".")[2] in DEPRECATED_DIST_NN
        if not deprecated or self.silenced(text, finding.rule, WARNS):
            return None
        return dataclasses.replace(finding, severity=WARNS)

    def unparsed(self, error: BaseException, cell: int | None) -> None:
        if isinstance(error, RecursionError | MemoryError):
            name = type(error).__name__
            self.errors.append(f"{self.path}: too deeply nested to parse ({name})")
            return
        line = getattr(error, "lineno", "?")
        where = f"line {line}: {getattr(error, 'msg', error)}"
        where = where if cell is None else f"cell {cell}, {where}"
        self.errors.append(f"{self.path}: cannot parse ({where})")

    def rules(self, module: Module, compiled_elsewhere: bool = False) -> bool:
        """Apply the Python rules to a collected module; whether it compiles with
        fullgraph=True."""

        def emit(unit, node, rule, detail, fix, severity="", release=""):
            column = node.col_offset + 1
            self.add(unit, node.lineno, column, rule, detail, fix, severity, release)

        pending: list = []
        facts = python_findings(module, self.path, emit, pending, compiled_elsewhere, self.reexports)
        if facts["exports"] and self.exports:  # a module in pieces: the root's bindings so far, each piece's imports
            star, own, names = facts["exports"]
            self.exports = (star, own, {**self.exports[2], **names})
        else:
            self.exports = facts["exports"] or self.exports
        for key in ("spawns", "launcher"):
            self.facts[key] = self.facts[key] or facts[key]
        self.helpers.update(facts["helpers"])
        for unit, node, helper in facts["via_helpers"]:
            cell, offset = self.offsets.get(unit, (None, 0))
            text = self.lines.get((cell, node.lineno + offset), "")
            if not self.silenced(text, "torchcomms-one-device"):
                where = Finding(self.path, node.lineno + offset, "torchcomms-one-device", "", cell, node.col_offset + 1)
                self.via_helpers.append((where, helper))
        for unit, node, detail in pending:
            cell, offset = self.offsets.get(unit, (None, 0))
            self.pending.append(
                Finding(
                    self.path,
                    node.lineno + offset,
                    "port-29500",
                    detail,
                    cell,
                    node.col_offset + 1,
                    "read the port from MASTER_PORT (torchrun sets it), or "
                    "pass --master-port=29500 to torchrun",
                )
            )
        return bool(facts["compiles"])

    def fragments(self, module: Module, unit: int, offset: int, code: str) -> None:
        """A Markdown block that does not parse: parse its top-level statements
        one by one, and note the ones that do not parse either."""
        chunks, start, current = [], 1, []
        for number, line in enumerate(code.split("\n"), start=1):
            top = line[:1].strip() and not re.match(
                r"[)\]}#]|(else|elif|except|finally)\b", line
            )
            if top and current:
                chunks.append((start, current))
                start, current = number, []
            current.append(line)
        chunks.append((start, current))
        for index, (first, lines) in enumerate(chunks, start=1):
            part = unit * 100_000 + index
            self.offsets[part] = (None, offset + first - 1)
            self.indents[part] = self.indents.get(unit, 0)
            try:
                module.add(part, parse_quietly("\n".join(lines)))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self.notes.append(f"{self.path}:{offset + first}: code not parsed")

    def shell(self, lines: list) -> None:
        """lines: [(unit, line, text)] of shell commands, continuations joined."""
        by_unit: dict = {}
        for unit, line, text in lines:
            by_unit.setdefault(unit, []).append((line, 1, text))
        commands = [
            (unit, line, text)
            for unit, unit_lines in by_unit.items()
            for line, _, text in logical_lines(unit_lines)
        ]
        # Evidence that something else uses 29500: a Python literal or another shell line of this file (of this
        # code block, in Markdown); where that is only MASTER_PORT=29500 settings, the finding is theirs.
        names_port = {unit: bool(self.pending) for unit in by_unit}
        only_settings = {unit: not self.pending for unit in by_unit}
        prefixed = set()  # (unit, line) of `MASTER_PORT=29500 torchrun ...`
        variables = shell_variables([text for _, _, text in commands])
        (wheels,) = needs_seen(commands, "cu128-wheels")
        for unit, line, text in commands:
            for finding in shell_rules(text):
                if finding == MASTER_PORT_FINDING:
                    prefixed.add((unit, line))
                else:
                    self.add(unit, line, 1, *finding)
            match = CU128.search(text) if wheels else None
            if match and not text.lstrip().startswith("#"):
                self.add(unit, line, 1, "cu128-wheels", match.group(0))
            self.launched |= launched_scripts(text, variables)
            if PORT not in text:
                continue
            words = shell_words(text)  # a comment names no port
            launcher = launches_torchrun(words) or other_launcher(text)
            if any(PORT in word for word in words) and not launcher:
                names_port[unit] = True
                only_settings[unit] = only_settings[unit] and sets_master_port(text)
        for unit, line, text in commands:
            evidence = [unit] if self.lenient else list(names_port)
            named = any(names_port[u] for u in evidence)
            if not (named or (unit, line) in prefixed) or not torchrun_without_port(text, variables):
                continue
            if not named or all(only_settings[u] for u in evidence):
                self.add(unit, line, 1, *MASTER_PORT_FINDING)
            else:
                self.add(
                    unit,
                    line,
                    1,
                    "port-29500",
                    "torchrun without --master-port, and 29500 named here",
                    "pass --master-port=29500, or read the port from "
                    "MASTER_PORT where this file uses 29500",
                )

    def text_lines(self, lines: list) -> None:
        """Rules for any line of text: cu128 wheels, CUDA for source builds. A rule's pattern is searched line by
        line only where the text holds what the rule needs (prefilter.py): most files here hold none of them."""
        wheels, knob, source = needs_seen(lines, "cu128-wheels", "defer-layout-freezing", "cuda-source-build")
        builds = source and any(SOURCE_BUILD.search(text) for _, _, text in lines)
        for unit, line, text in lines:
            match = CU128.search(text) if wheels else None
            comment = text.lstrip().startswith("#") and not self.lenient
            if match and not comment:
                self.add(unit, line, match.start() + 1, "cu128-wheels", match.group(0))
            if knob and KNOB_SETTING.search(text):
                detail, fix = KNOB_ENV, "remove it: nothing reads it"
                self.add(unit, line, 1, "defer-layout-freezing", detail, fix, WARNS)
            old = OLD_CUDA.search(text) if builds else None
            if old:
                self.add(unit, line, old.start() + 1, "cuda-source-build", old.group(0))


def needs_seen(lines: list, *rules: str) -> tuple[bool, ...]:
    """For each rule, whether lines [(unit, line, text)] hold what the rule needs in a text file (prefilter.py)."""
    # (imported here: prefilter imports the rules package, which imports prefilter, so it loads after the rules)
    from torch_upgrade_scan.prefilter import TEXT_RULE_NEEDS

    data = "\n".join(text for _, _, text in lines).encode("utf-8", "surrogatepass")  # (JSON may hold a lone one)
    return tuple(TEXT_RULE_NEEDS[rule].seen(data) for rule in rules)
