"""What a scan finds: one Finding per place, the Report of a scan, a finding's severity, and the `# noqa`
comments that silence a finding on their line."""

import dataclasses
import re

from torch_upgrade_scan.catalog import RULES

# A bare noqa comment suppresses every rule on its line; noqa with a colon and
# names, the rules or severities named (case-insensitive, whole names only).
NOQA = re.compile(
    r"#\s*noqa\b(?:\s*:\s*(?P<names>[\w-]+(?:[,\s]+[\w-]+)*))?", re.IGNORECASE
)



@dataclasses.dataclass(frozen=True)
class Finding:
    """One place in one file that 2.12 affects. `cell` is the notebook cell,
    counted from 1 over all cells (None elsewhere); `line` and `column` count
    from 1 (in the cell). `file_line` is the line in the file on disk where it
    differs from `line`: in a notebook, the cell's line in the .ipynb JSON (the
    line of its "source" key when the JSON does not hold one source line per
    line; None when no line holds that key)."""

    path: str
    line: int
    rule: str
    detail: str
    cell: int | None = None
    column: int = 1
    fix: str = ""
    severity: str = ""
    file_line: int | None = None
    hand_fix: str = ""  # with --fix or --diff: why a finding of a rule that --fix rewrites is left to a person
    release: str = ""  # the release that made this change, where it is not the rule's (one removed knob)

    @property
    def changed(self) -> str:
        return RULES[self.rule].changed

    @property
    def since(self) -> str:
        """The release that made the change this finding reports."""
        return self.release or RULES[self.rule].release

    def where(self) -> str:
        """`path:line:column`, where an editor jumps to; in a notebook `path:cell N:line:column` (as ruff writes
        it), the line and column in the cell."""
        if self.cell is None:
            return f"{self.path}:{self.line}:{self.column}"
        return f"{self.path}:cell {self.cell}:{self.line}:{self.column}"

    def on_disk(self) -> int:
        """The line to point at in the file itself (a notebook's JSON line)."""
        if self.cell is None:
            return self.line
        return self.file_line or 1

    def to_dict(self) -> dict:
        return {
            **dataclasses.asdict(self),
            "release": self.since,
            "changed": self.changed,
        }


@dataclasses.dataclass
class Report:
    findings: list = dataclasses.field(default_factory=list)
    errors: list = dataclasses.field(default_factory=list)  # unreadable input
    internal: list = dataclasses.field(default_factory=list)  # scanner bugs
    notes: list = dataclasses.field(default_factory=list)
    skipped_folders: list = dataclasses.field(default_factory=list)
    files: int = 0
    seconds: float = 0.0
    # cross-file evidence that code runs under torchrun
    launched: set = dataclasses.field(default_factory=set)
    pending: list = dataclasses.field(default_factory=list)
    # cross-file backend strings: functions that return one, and the process groups they may start
    helpers: dict = dataclasses.field(default_factory=dict)
    via_helpers: list = dataclasses.field(default_factory=list)
    # cross-file Python pins: folder -> the Python 3.10 its runtime.txt pins; the torch lines of requirements.txt
    runtimes: dict = dataclasses.field(default_factory=dict)
    on_runtime: list = dataclasses.field(default_factory=list)



def suppressed(text: str, rule: str, severity: str) -> bool:
    """Whether a `# noqa` comment on this line covers the rule."""
    noqa = NOQA.search(text)
    if noqa is None:
        return False
    if noqa.group("names") is None:
        return True
    names = {name.lower() for name in re.split(r"[,\s]+", noqa.group("names"))}
    return bool(names & {rule, severity})


def severity_of(f: Finding) -> str:
    return f.severity or RULES[f.rule].severity
