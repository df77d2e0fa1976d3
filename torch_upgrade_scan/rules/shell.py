"""Shell lines (scripts, CI YAML, Dockerfiles, `!cmd` in notebooks, subprocess commands): their words, the
rules one line triggers by itself, and the torchrun commands among them (their options, the port 2.12 picks
for them, the scripts they start)."""

import functools
import re
import shlex
from collections.abc import Sequence

from torch_upgrade_scan.catalog import ADVISORY, WARNS
from torch_upgrade_scan.rules.inductor import KNOB_ENV

PORT = "29500"
PORT_IN_TEXT = re.compile(r":29500\b")
# A 29500 that goes with one of these is passed to the launcher, not picked by it.
PORT_OPTION = re.compile(r"--(?:master[-_]port|rdzv[-_]endpoint)\b")
# Shell: `NAME=value`, `export NAME=...`, `NAME=( ... )` over several lines.
ASSIGNMENT = re.compile(
    r"^[ \t]*(?:(?:export|local|readonly|declare(?:[ \t]+-\w+)*)[ \t]+)?([A-Za-z_]\w*)="
    r"(\((?:[^()\"']|\"[^\"]*\"|'[^']*')*\)|\"[^\"]*\"|'[^']*'|\S*)",
    re.MULTILINE,
)
# The words that may come before torchrun in a command: NAME=value, options,
# expansions, numbers, and wrappers that run the next word.
COMMAND_PREFIX = re.compile(
    r"[A-Za-z_]\w*=|-|\$|\d+$|(?:\S*/)?python[\d.]*$|(?:uv|run|exec|env|nohup|time|"
    r"sudo|numactl|taskset|nsys|profile|ncu|timeout|stdbuf|poetry|pipenv|conda|srun)$"
)
WHOLE_EXPANSION = re.compile(r"\$\{?(\w+)(?:\[[@*]\])?\}?")
OTHER_LAUNCHERS = {
    "deepspeed",
    "accelerate",
    "mpirun",
    "mpiexec",
    "srun",
    "horovodrun",
    "ft_launcher",
    "composer",
    "lightning",
    "jsrun",
    "aprun",
    "oshrun",
}
# A branch that tests for these runs under another launcher (MPI, Slurm).
OTHER_LAUNCHER_ENV = re.compile(
    r"^(?:OMPI|PMI|PMIX|MV2)_|(?:^|_)mpi(?:_|$)|slurm", re.IGNORECASE
)


@functools.lru_cache(maxsize=1024)
def shell_words(line: str) -> tuple[str, ...]:
    """A shell line's words, as the shell splits them (comments off). Split once a line: each check of a line
    asks again (Megatron-LM's 130 shell-like files took 24,244 splits, over half of the scan's time)."""
    try:
        return tuple(shlex.split(line, comments=True))
    except ValueError:  # an unbalanced quote
        return tuple(line.split())


def command_name(word: str) -> str:
    """A word's last path part (`/usr/bin/torchrun`: torchrun), as Path(word).name gives it, without making a
    Path of every word of every shell line (30,817 of them on Megatron-LM took 0.44 s)."""
    return word.rstrip("/").rpartition("/")[2]


# What every launcher word holds (torchrun, torch.distributed.run, torch.distributed.launch): a line without it
# is no torchrun line, whatever its words.
LAUNCHER_WORD = "torch"


def launches_torchrun(words: Sequence[str]) -> bool:
    return any(
        command_name(w) == "torchrun"
        or w in ("torch.distributed.run", "torch.distributed.launch")
        for w in words
    )


def shell_rules(line: str):
    """(rule, detail, fix, severity) that one shell line triggers by itself."""
    if KNOB_ENV not in line and "MASTER_PORT" not in line:
        return  # no word of it can name either: no split
    for word in shell_words(line):
        name, _, value = word.partition("=")
        if name == KNOB_ENV:
            yield (
                "defer-layout-freezing",
                KNOB_ENV,
                "remove it: nothing reads it",
                WARNS,
            )
        elif name == "MASTER_PORT" and value == PORT and torchrun_without_port(line):
            yield MASTER_PORT_FINDING


# `MASTER_PORT=29500` for a torchrun that passes no port, on its line or earlier in its file (`export`, `%env`):
# one finding, advisory however it is spelt. torchrun ignores MASTER_PORT and gives its workers the port it
# picks in their MASTER_PORT (torch/distributed/run.py and the c10d rendezvous of 2.12.0): code that reads the
# variable follows it; only something outside the job that expects 29500 does not.
MASTER_PORT_FINDING = (
    "port-29500",
    "MASTER_PORT=29500 for a torchrun without --master-port, which ignores it",
    "pass --master-port=29500 to torchrun if something outside the job expects 29500; else remove the setting",
    ADVISORY,
)


def sets_master_port(line: str) -> bool:
    """Whether a line only sets MASTER_PORT to 29500 (`MASTER_PORT=29500`, `export MASTER_PORT=29500`)."""
    return [w for w in shell_words(line) if w != "export"] == [f"MASTER_PORT={PORT}"]


def launcher_at(words: Sequence[str]) -> int | None:
    """The index of the torchrun word (or torch.distributed.run/launch) when it is
    the command, after nothing but settings, options, expansions and wrappers such
    as `uv run python -m`; None otherwise (prose such as a YAML description)."""
    for index, word in enumerate(words):
        if launches_torchrun([word]):
            return index
        if not COMMAND_PREFIX.match(word):
            return None
    return None


def shell_variables(commands: list[str]) -> dict:
    """The variables a shell file assigns: name -> [value, ...] (arrays and quoted
    strings over several lines included, one layer of quotes or parentheses off)."""
    variables: dict = {}
    for match in ASSIGNMENT.finditer("\n".join(commands)):
        value = match.group(2)
        if value[:1] in ("(", '"', "'"):
            value = value[1:-1]
        variables.setdefault(match.group(1), []).append(value)
    return variables


def torchrun_options(line: str, variables: dict) -> dict | None:
    """A torchrun line's options up to its script, with the file's variables
    expanded and PET_<OPTION> settings (which torchrun reads; it never reads
    MASTER_PORT) as options; None when it is no torchrun line or expands a
    variable the file does not set (which could hold any option)."""
    if LAUNCHER_WORD not in line:
        return None  # no launcher word: no split
    words = shell_words(line)
    start = launcher_at(words)
    if start is None:
        return None
    settings = {
        name: values[-1]
        for name, values in variables.items()
        if name.startswith("PET_")
    }
    for word in words[:start]:
        if word.startswith("PET_") and "=" in word:
            name, _, value = word.partition("=")
            settings[name] = value
    options = {
        "--" + name[4:].lower().replace("_", "-"): value
        for name, value in settings.items()
    }
    expanded: list[str] = []
    for word in words[start + 1 :]:
        if word.endswith(".py"):
            break
        whole = WHOLE_EXPANSION.fullmatch(word)
        if whole and whole.group(1) not in variables:
            return None
        if whole:
            expanded += [
                w for value in variables[whole.group(1)] for w in shell_words(value)
            ]
        else:
            expanded.append(word)
    for index, word in enumerate(expanded):
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            following = expanded[index + 1] if index + 1 < len(expanded) else ""
            value = value if equals else following
            whole = WHOLE_EXPANSION.fullmatch(value)
            if whole and len(variables.get(whole.group(1), [])) == 1:
                value = variables[whole.group(1)][0]
            options[name.replace("_", "-")] = value
    return options


def torchrun_without_port(line: str, variables: dict | None = None) -> bool:
    """A single-node torchrun with the static rendezvous and no --master-port,
    --standalone or --rdzv-endpoint (also through the file's variables and PET_*
    settings): 2.12 picks a free port for it (torch/distributed/run.py, run())."""
    options = torchrun_options(line, variables or {})
    if options is None:
        return False
    if {"--master-port", "--standalone", "--rdzv-endpoint"} & options.keys():
        return False
    if options.get("--rdzv-backend", "static") != "static":
        return False
    return options.get("--nnodes", "1").split(":")[-1] == "1"


def launched_scripts(line: str, variables: dict | None = None) -> set:
    """The Python files (their names) that a torchrun line starts on a port 2.12
    picks: a launch that passes its port leaves its scripts' 29500 alone."""
    if not torchrun_without_port(line, variables):
        return set()
    return {command_name(w) for w in shell_words(line) if w.endswith(".py")}


def other_launcher(line: str) -> bool:
    """A command of a launcher other than torchrun (its 29500 is its own)."""
    return any(command_name(w) in OTHER_LAUNCHERS for w in shell_words(line))


def logical_lines(lines):
    """Join lines continued with a trailing backslash: [(line, column, text)]."""
    joined: list[tuple[int, int, str]] = []
    start: tuple[int, int] | None = None
    parts: list[str] = []
    for number, column, text in lines:
        if start is None:
            start = (number, column)
        if text.rstrip().endswith("\\"):
            parts.append(text.rstrip()[:-1])
            continue
        parts.append(text)
        joined.append((start[0], start[1], " ".join(parts)))
        start, parts = None, []
    if parts and start is not None:
        joined.append((start[0], start[1], " ".join(parts)))
    return joined


# ---- files -------------------------------------------------------------------
