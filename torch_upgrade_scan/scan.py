# The upgrade scanner's engine (source: torch_upgrade_scan/scan.py; installed, it
# runs as `torch-upgrade-scan PATH`). It reads Python files, notebooks, shell
# scripts, CI YAML, Dockerfiles, requirements files and Markdown code blocks, and
# reports the code that PyTorch 2.12 affects, with a fix for each API. It imports
# the standard library only (lines of 88 characters at most: it is stamped into a
# notebook, which `ruff check notebooks` reads at that width).
import ast
import bisect
import dataclasses
import fnmatch
import io
import json
import os
import re
import shlex
import stat
import sys
import time
import tokenize
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

VERSION = "0.3.0"
BREAKS, WARNS, ADVISORY = "breaks", "warns", "advisory"
SEVERITIES = (BREAKS, WARNS, ADVISORY)


@dataclasses.dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # breaks: fails or behaves differently; warns: a warning now
    changed: str  # what changed, with the release
    fix: str  # the fix when no API-specific one applies


# The torch.distributed.nn.functional collectives that 2.12 deprecates (each calls
# _deprecated, a FutureWarning, in torch/distributed/nn/functional.py).
DEPRECATED_DIST_NN = (
    "all_reduce",
    "broadcast",
    "all_gather",
    "reduce_scatter",
    "all_to_all_single",
)

RULES = {
    rule.id: rule
    for rule in [
        Rule(
            "torchscript",
            WARNS,
            "TorchScript is deprecated: torch.jit APIs warn in 2.12 "
            "(DeprecationWarning since 2.10) and get no new features",
            "move to torch.export (export and save) or torch.compile (speed)",
        ),
        Rule(
            "dist-nn-functional",
            BREAKS,
            "the torch.distributed.nn collectives raise RuntimeError under "
            "torch.compile(fullgraph=True) in 2.12 (with fullgraph=False, Dynamo "
            "breaks the graph and runs them eagerly); "
            + ", ".join(DEPRECATED_DIST_NN[:-1])
            + f" and {DEPRECATED_DIST_NN[-1]} are deprecated: they warn "
            "(FutureWarning) when they run eagerly, after a graph break too",
            "use torch.distributed._functional_collectives, which compiles",
        ),
        Rule(
            "port-29500",
            BREAKS,
            "single-node torchrun (static rendezvous) without --master-port (or "
            "PET_MASTER_PORT), --standalone or --rdzv-endpoint no longer listens on "
            "29500 in 2.12: it picks a free port (read in torch/distributed/run.py; "
            "torchrun never reads MASTER_PORT)",
            "pass --master-port to torchrun; in the workers read MASTER_PORT",
        ),
        Rule(
            "green-context-positional",
            BREAKS,
            "GreenContext.create takes keyword arguments only in 2.12 "
            "(2.11: create(num_sms, device_id=0))",
            "call GreenContext.create(num_sms=..., device_id=...)",
        ),
        Rule(
            "stream-capturing",
            ADVISORY,
            "torch.cuda.is_current_stream_capturing is CUDA-only; 2.12 adds the "
            "device-agnostic torch.Stream.is_capturing()",
            "use torch.accelerator.current_stream().is_capturing()",
        ),
        Rule(
            "metadata-json",
            WARNS,
            "FunctionEvent.metadata_json warns (FutureWarning) in 2.12 and 2.13; "
            "the 2.15.0 wheel has no such attribute",
            "read event.event_metadata (2.12, 2.13); from 2.15 read event.metadata",
        ),
        Rule(
            "magma",
            ADVISORY,
            "MAGMA is deprecated; in 2.12 eigh, lu_solve, cholesky_solve, "
            "cholesky_inverse and triangular_solve (pytorch#174109: its CUDA kernel "
            "calls cuBLAS only) no longer use it, so preferring it changes nothing "
            "there",
            "drop the preference (PyTorch picks per op), or ask for 'cusolver'",
        ),
        Rule(
            "defer-layout-freezing",
            BREAKS,
            "the release notes' max_autotune_defer_layout_freezing knob is not in "
            "the 2.12.0 wheel: setting it raises and its environment variable is "
            "ignored",
            "remove it; the 2.12.0 wheel still defers layout freezing",
        ),
        Rule(
            "cu128-wheels",
            BREAKS,
            "2.12 publishes no CUDA 12.8 wheels: a cu128 index or +cu128 pin "
            "finds no torch 2.12",
            "use .../whl/cu130 (default; driver 580.65.06+ on Linux, 580.88+ on "
            "Windows) or .../whl/cu126 (older drivers; Maxwell to Hopper: it has no "
            "Blackwell kernels). A Blackwell GPU on a driver older than 580 has no "
            "2.12 wheel: update the driver, or stay on torch 2.11's cu128 wheel",
        ),
        Rule(
            "cuda-source-build",
            ADVISORY,
            "building PyTorch 2.12 from source needs CUDA 12.6 or newer and a "
            "C++20 compiler (CMake enforces C++20)",
            "build with CUDA 12.6+ (for example FROM nvidia/cuda:12.6...) and a "
            "C++20 compiler (GCC 10+)",
        ),
        Rule(
            "fullgraph-no-frames",
            WARNS,
            "torch.compile(fullgraph=True) that runs no compiled frame warns in "
            "2.12 (measured here on 2.12.0: called under a TorchDispatchMode, after "
            "torch._dynamo.config.disable = True or set_stance('force_eager'); "
            "torch.compiler.disable on the function or its caller does not warn); "
            "the release notes say 2.13 raises",
            "call the compiled function outside the mode, or drop fullgraph=True "
            "where Dynamo is off",
        ),
        Rule(
            "fsdp2-fullgraph",
            BREAKS,
            "torch.compile(m, fullgraph=True) of a module m that fully_shard "
            "shards, before or after the compile, raises in 2.12: FSDP2's hooks "
            "run inside the graph (torch._dynamo.exc.Unsupported; measured here on "
            "2.12.0, CPU, gloo, one rank)",
            "shard what torch.compile returns: m = torch.compile(m, fullgraph=True) "
            "and then fully_shard(m), per block and then the root; or compile in "
            "place with m.compile(fullgraph=True), before or after fully_shard(m); "
            "or pass fullgraph=False (each measured here to run on 2.12.0, CPU, "
            "gloo, one rank)",
        ),
        Rule(
            "torchcomms-p2p",
            ADVISORY,
            "with torchcomms, the default planned for 2.13, point-to-point ops "
            "on one group are no longer guaranteed to run concurrently",
            "post them together with dist.batch_isend_irecv([dist.P2POp(...)]) "
            "or give each direction its own group",
        ),
        Rule(
            "torchcomms-one-device",
            ADVISORY,
            "with torchcomms, the default planned for 2.13, a process group has "
            "one backend device (and is initialised eagerly)",
            "create one group per device type, e.g. dist.new_group(backend='gloo') "
            "for CPU tensors",
        ),
    ]
}

# Changes in the 2.12 release summaries that have no rule, and why.
NO_RULE = {
    "eager process-group init (torchcomms, 2.13)": "every init_process_group is "
    "affected alike; code that relies on lazy init cannot be told apart by "
    "reading it: run your tests with TORCH_DISTRIBUTED_USE_TORCHCOMMS=1",
    "torchcomms replaces the c10d backends (after 2.13)": "announced without an "
    "API to check against; the 2.12 wheel has no deprecation to detect",
    "MPS tensors in unified memory": "performance only: no API changed",
    "FMA in Inductor's addcdiv lowering": "numerics of compiled optimizers move "
    "closer to eager; no code has to change",
    "new features (accelerator.Graph, fused Adagrad, MX export, torch.cond in "
    "CUDA graphs, ROCm, XPU and Metal-4 additions)": "additions: nothing breaks",
}

# Fixes for one API, where the rule's own fix would not fit.
JIT_FIXES = {
    "script": "export the model with torch.export.export(model, example_args) "
    "(save: torch.export.save), or speed it up with torch.compile(model)",
    "script@": "remove the decorator (the function runs eagerly); decorate with "
    "@torch.compile if you need the speed",
    "trace": "torch.export.export(model, example_args) captures the same graph "
    "(declare dynamic_shapes where sizes vary)",
    "save": "torch.export.save(exported_program, 'model.pt2')",
    "load": "torch.export.load('model.pt2') for programs you export; a "
    "third-party TorchScript file still loads in 2.12 (with the warning): ask "
    "its publisher for an exported program",
    "freeze": "torch.compile(model.eval()) with torch._inductor.config.freezing "
    "= True folds weights as freeze did",
    "fork": "let torch.compile schedule the work, or use torch.futures / "
    "concurrent.futures in eager mode",
    "interface": "describe the interface with typing.Protocol or an abstract "
    "base class",
    "set_fusion_strategy": "remove it: torch.compile fuses kernels itself "
    "(control it with mode= and options=)",
    "script_method": "make it a plain method and compile the module",
    "test": "a test that checks scriptability: keep it while you ship "
    "TorchScript, and test torch.export.export(model, args) beside it",
}
JIT_APIS = {
    "script": "script",
    "trace": "trace",
    "trace_module": "trace",
    "script_method": "script_method",
    "save": "save",
    "load": "load",
    "freeze": "freeze",
    "optimize_for_inference": "freeze",
    "fork": "fork",
    "wait": "fork",
    "interface": "interface",
    "set_fusion_strategy": "set_fusion_strategy",
}
FUNCOL = {
    "all_reduce": "funcol.all_reduce(t, 'sum', group)",
    "broadcast": "funcol.all_reduce(t * (dist.get_rank() == src), 'sum', group)",
    "all_gather": "funcol.all_gather_tensor_autograd(t, 0, group) (one tensor: the "
    "list concatenated along dim 0)",
    "reduce_scatter": "funcol.reduce_scatter_tensor_autograd(t, 'sum', 0, group)",
    "all_to_all_single": "funcol.all_to_all_single_autograd(t, None, None, group)",
}
FUNCOL_NOTES = {  # where the obvious replacement is wrong
    "broadcast": "it keeps the gradients of dist.nn's broadcast (their sum at src, "
    "zero elsewhere; t must be finite). 2.12's funcol.broadcast has no autograd "
    "kernel: backward warns and gives each rank its own gradient, so use "
    "funcol.broadcast(t, src, group) only where no gradient flows",
}
DIST_NN_OPS = {*FUNCOL, "all_to_all", "gather", "scatter", "reduce"}
NAME_RULES = {  # exact dotted name -> (rule, API key)
    "torch.cuda.is_current_stream_capturing": ("stream-capturing", ""),
    "torch.cuda.graphs.is_current_stream_capturing": ("stream-capturing", ""),
    "torch._C._LinalgBackend.Magma": ("magma", ""),
}
NAME_RULES.update(
    {f"torch.jit.{name}": ("torchscript", key) for name, key in JIT_APIS.items()}
)
for _op in DIST_NN_OPS:
    NAME_RULES[f"torch.distributed.nn.{_op}"] = ("dist-nn-functional", _op)
    NAME_RULES[f"torch.distributed.nn.functional.{_op}"] = ("dist-nn-functional", _op)

# Names that start so may be in NAME_RULES (a quick test before the lookups).
RULE_PREFIXES = tuple({name.rsplit(".", 1)[0] for name in NAME_RULES})
# A function decorated with this runs under torchelastic (torchrun).
LAUNCHER_RECORD = "torch.distributed.elastic.multiprocessing.errors.record"
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
KNOB = "max_autotune_defer_layout_freezing"
KNOB_ENV = "TORCHINDUCTOR_MAX_AUTOTUNE_DEFER_LAYOUT_FREEZING"
LAUNCHER_ENV = {"LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "TORCHELASTIC_RUN_ID"}
SPAWNERS = {
    "torch.multiprocessing.spawn",
    "torch.multiprocessing.start_processes",
    "torch.multiprocessing.Process",
    "multiprocessing.Process",
    "torch.distributed.rpc.init_rpc",
}
SUBPROCESS = {
    f"subprocess.{name}"
    for name in ("run", "call", "check_call", "check_output", "Popen")
}
PROFILER = ("torch.profiler", "torch.autograd.profiler", "torch.autograd.profiler_util")
# What makes torch.compile(fullgraph=True) run no compiled frame and warn in 2.12
# (measured here on 2.12.0): an active TorchDispatchMode, torch._dynamo.config.disable
# = True, set_stance("force_eager"). torch.compiler.disable on the compiled function,
# or on a function that calls it, does not warn.
DYNAMO_DISABLE = "torch._dynamo.config.disable"
STANCE = "torch.compiler.set_stance"
DISPATCH_MODE = "torch.utils._python_dispatch.TorchDispatchMode"
FSDP2 = {
    "torch.distributed.fsdp.fully_shard",
    "torch.distributed._composable.fsdp.fully_shard",
    "torch.distributed._composable.fsdp.fully_shard.fully_shard",
}
CU128 = re.compile(  # release wheels only: the nightly matrix is not checked here
    r"download\.pytorch\.org/whl/(?:test/)?cu128\b"
    r"|\btorch(?:vision|audio)?\s*[=<>~!]=\s*[\w.]+\+cu128\b"
    # uv: UV_TORCH_BACKEND=cu128, --torch-backend cu128, torch-backend = "cu128"
    r"|\b(?:UV_TORCH_BACKEND|torch-backend)[\"']?\s*[=:\s]\s*[\"']?cu128\b"
)
OLD_CUDA = re.compile(
    r"(?:nvidia/cuda:|cuda[-_]?(?:toolkit[-_])?|CUDA_VERSION(?:_\w+)?[\"']?[=:\s]+[\"']?)"
    r"(?:11[.-]\d|12[.-][0-5])\b",
    re.IGNORECASE,
)
KNOB_SETTING = re.compile(rf"(?:^|[\s\"'-]){KNOB_ENV}[\"']?\s*[:=]")
SOURCE_BUILD = re.compile(r"github\.com/pytorch/pytorch(?:\.git)?\b")
# A bare noqa comment suppresses every rule on its line; noqa with a colon and
# names, the rules or severities named (case-insensitive, whole names only).
NOQA = re.compile(
    r"#\s*noqa\b(?:\s*:\s*(?P<names>[\w-]+(?:[,\s]+[\w-]+)*))?", re.IGNORECASE
)


@dataclasses.dataclass(frozen=True)
class Needs:
    """What a file's bytes must hold for a rule to find anything in it: one of
    `words` (a fast substring search), then a match of one of `any_of` (where
    given) and of each of `all_of`. Checked before a file is decoded or parsed;
    most files hold none. (Each pattern starts with a literal word, which the
    regex engine seeks fast.)"""

    words: tuple[bytes, ...]
    any_of: "tuple[re.Pattern[bytes], ...]" = ()
    all_of: "tuple[re.Pattern[bytes], ...]" = ()

    def seen(self, data: bytes) -> bool:
        if not any(word in data for word in self.words):
            return False
        if self.any_of and not any(pattern.search(data) for pattern in self.any_of):
            return False
        return all(pattern.search(data) for pattern in self.all_of)


# a torch.jit API, or an import that can alias one (`from torch.jit import`,
# `import torch.jit as`, `from torch import nn, jit`)
JIT_USE = (
    re.compile(
        rb"jit(?:\.(?:" + "|".join(JIT_APIS).encode() + rb")\b|\s+import\b|\s+as\b)"
    ),
    re.compile(rb"import[^\n]*\bjit\b"),
)
FULLGRAPH = re.compile(rb"fullgraph\s*=\s*True")
NO_FRAMES = re.compile(rb"fully_shard|force_eager|TorchDispatchMode|disable\s*=\s*True")
# What each rule needs to see in Python code (in .py files, notebooks and
# Markdown code blocks alike) ...
PYTHON_NEEDS = {
    "torchscript": Needs((b"jit",), JIT_USE),
    "dist-nn-functional": Needs(
        (b"nn",),
        (
            re.compile(
                rb"nn(?:\.(?:functional\.)?(?:all_|broadcast|reduce|gather|scatter)"
                rb"|\b(?<=distributed\.nn)|\b(?<=distributed import nn))"
            ),
        ),
    ),
    "port-29500": Needs((PORT.encode(),)),
    "green-context-positional": Needs((b"GreenContext", b"green_contexts")),
    "stream-capturing": Needs((b"is_current_stream_capturing",)),
    "metadata-json": Needs((b"metadata_json",)),
    "magma": Needs((b"preferred_linalg_library", b"LinalgBackend")),
    "defer-layout-freezing": Needs((b"layout_freezing", b"LAYOUT_FREEZING")),
    "cu128-wheels": Needs((b"cu128",)),
    # both compile rules: fullgraph=True and what makes it raise or run no frame
    "fullgraph-no-frames": Needs((b"fullgraph",), all_of=(FULLGRAPH, NO_FRAMES)),
    "torchcomms-p2p": Needs((b"isend(", b"irecv(")),
    # a multi-device backend string: "cpu:gloo,cuda:nccl", f"{d}:{b},cpu:gloo"
    "torchcomms-one-device": Needs(
        (b"init_process_group",), (re.compile(rb"[\w}]:[^,\s\"']*,[^,\s\"':]*:"),)
    ),
}
PYTHON_NEEDS["fsdp2-fullgraph"] = PYTHON_NEEDS["fullgraph-no-frames"]
# ... and, beyond that, in shell-like and other text files (torchrun lines are
# evidence for the Python files they start; source builds name CUDA versions).
TEXT_NEEDS = {
    "port-29500": Needs(
        (b"torchrun", b"torch.distributed.run", b"torch.distributed.launch")
    ),
    "cuda-source-build": Needs((b"github.com/pytorch/pytorch",)),
}
UNIQUE_NEEDS = {
    "python": tuple(dict.fromkeys(PYTHON_NEEDS.values())),
    "text": tuple(dict.fromkeys([*PYTHON_NEEDS.values(), *TEXT_NEEDS.values()])),
}


def needed(kind: str | None, data: bytes) -> bool:
    """Whether any rule can find something in a file of this kind with these bytes."""
    needs = UNIQUE_NEEDS["python" if kind == "python" else "text"]
    return any(one.seen(data) for one in needs)


SKIPPED_FOLDERS = {
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "site-packages",
    "__pycache__",
    ".ipynb_checkpoints",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".cache",
    ".eggs",
    "_build",
    ".idea",
}
# Files larger than this are not parsed (an error names each one that mentions
# torch). Measured on 2 loaded cores: a 1 MB Python file dense with torch calls
# takes 7.4 s and 205 MB; a 7.4 MB one, 47 s and 1.4 GB.
MAX_BYTES = 1_000_000
# A notebook's outputs (images) can be large and cost little to read: its file
# may be this many times larger; the limit applies to its code cells' text.
NOTEBOOK_FACTOR = 50
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
SHELL_CELL_MAGICS = {"bash", "sh", "script", "system"}
TIMED = re.compile(r"%(?:time|prun|timeit(?:\s+-[nr]\s*\d+|\s+-[a-z])*)\s+(.*)")


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

    @property
    def changed(self) -> str:
        return RULES[self.rule].changed

    def where(self) -> str:
        """`path:line:column`, where an editor jumps to; for a notebook, the line
        of the .ipynb file that holds the cell's line (column 1)."""
        if self.cell is None:
            return f"{self.path}:{self.line}:{self.column}"
        return f"{self.path}:{self.on_disk()}:1"

    def on_disk(self) -> int:
        """The line to point at in the file itself (a notebook's JSON line)."""
        if self.cell is None:
            return self.line
        return self.file_line or 1

    def to_dict(self) -> dict:
        return {
            **dataclasses.asdict(self),
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


# ---- Python: one parse, one walk, names resolved per scope --------------------


class Scope:
    """A module, class or function body (`name`: the class's or function's)."""

    def __init__(self, kind: str, parent: "Scope | None", name: str = "") -> None:
        self.kind, self.parent, self.name = kind, parent, name
        self.bindings: dict = {}  # name -> [(position, dotted name or None)]
        self.positions: dict = {}  # name -> sorted positions, made on first lookup
        self.globals: set = set()

    def bind(self, name: str, position: tuple, target: str | None) -> None:
        self.bindings.setdefault(name, []).append((position, target))
        self.positions.pop(name, None)

    def lookup(self, name: str, position: tuple) -> tuple[bool, str | None]:
        """(bound here, what to): the last binding at or before `position`, else
        the last one of all (a function may run after a later import)."""
        bound = self.bindings.get(name)
        if not bound:
            return False, None
        positions = self.positions.get(name)
        if positions is None:
            bound.sort(key=lambda binding: binding[0])
            positions = self.positions[name] = [binding[0] for binding in bound]
        index = bisect.bisect_right(positions, position)
        return True, bound[index - 1 if index else -1][1]


def resolve(name: str, scope: Scope, position: tuple) -> str | None:
    """The dotted name that `name` stands for where it is used, or None when it
    is a local variable, a parameter or unknown. Class scopes are invisible to
    the functions inside them, as in Python."""
    current, first = scope, True
    while current is not None:
        if name in current.globals:
            while current.parent is not None:
                current = current.parent
        if current.kind != "class" or first:
            bound, target = current.lookup(name, position)
            if bound:
                return target
        current, first = current.parent, False
    return "torch" if name == "torch" else None


def dotted(node: ast.AST) -> tuple[str, list[str]] | None:
    """`a.b.c` as ("a", ["b", "c"]), or None for other expressions."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return (node.id, parts[::-1]) if isinstance(node, ast.Name) else None


CHILD_FIELDS: dict = {}  # node type -> the fields that can hold child nodes


def child_fields(kind: type[ast.AST]) -> tuple:
    """A node type's fields, less `ctx` (Load, Store: never of interest)."""
    fields = CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f != "ctx")
    return fields


class Module:
    """One Python module (or a notebook's cells, which share a kernel) parsed
    once, with its scopes and the nodes the rules look at."""

    def __init__(self) -> None:
        self.root = Scope("module", None)
        self.chains: list = []  # (unit, node, scope) for names and attributes
        self.calls: list = []
        self.constants: list = []
        self.stores: list = []  # (unit, attribute node, scope) assigned to
        self.bases: list = []  # (unit, class node, scope)
        self.decorators: set = set()  # ids of decorator expressions
        self.decorated: dict = {}  # id(decorator) -> the name of what it decorates
        self.assigns: list = []  # (unit, Assign node, scope)
        self.withs: list = []  # (unit, With node, scope)
        self.branches: list = []  # (unit, If node): tests that pick a launcher
        self.loops: list = []  # (unit, For or While node, scope)
        self.written_keys: set = set()  # ids of constants used as keys that are written
        self.sequences: list = []  # list and tuple displays (a command's words)
        self.docstrings: set = set()  # ids of constants that are whole statements

    def add(self, unit: int, tree: ast.AST) -> None:
        """Collect bindings and interesting nodes, iteratively (no recursion)."""
        # Nodes are dispatched on their exact type (faster than isinstance chains),
        # typed Any because the checker cannot narrow `type(node) is ast.Name`.
        stack: list[tuple[Any, Scope, Any, bool]] = [(tree, self.root, None, False)]
        while stack:
            node, scope, at, inner = stack.pop()
            kind = type(node)
            child_scope, child_at = scope, at
            if kind is ast.Name:
                if type(node.ctx) is ast.Load:
                    if not inner:
                        self.chains.append((unit, node, scope))
                else:
                    target = self.root if node.id in scope.globals else scope
                    position = (unit, node.lineno, node.col_offset)
                    target.bind(node.id, at or position, None)
                continue
            position = (
                unit,
                getattr(node, "lineno", 0),
                getattr(node, "col_offset", 0),
            )
            if kind is ast.Attribute:
                if not inner:
                    self.chains.append((unit, node, scope))
                if not isinstance(node.ctx, ast.Load):
                    self.stores.append((unit, node, scope))
                stack.append((node.value, scope, at, True))
                continue
            if kind is ast.Constant:
                if isinstance(node.value, str | int):
                    self.constants.append((unit, node, scope))
                continue
            if kind is ast.Call:
                self.calls.append((unit, node, scope))
            elif kind is ast.Subscript and not isinstance(node.ctx, ast.Load):
                self.written_keys.add(id(node.slice))
            elif kind is ast.Dict:
                self.written_keys.update(
                    id(key) for key in node.keys if key is not None
                )
            elif kind in (ast.With, ast.AsyncWith):
                self.withs.append((unit, node, scope))
            elif kind is ast.If:
                self.branches.append((unit, node))
            elif kind in (ast.For, ast.AsyncFor, ast.While):
                self.loops.append((unit, node, scope))
            elif kind in (ast.List, ast.Tuple):
                self.sequences.append(node)
            elif kind is ast.Expr and isinstance(node.value, ast.Constant):
                self.docstrings.add(id(node.value))
            elif kind in (ast.Import, ast.ImportFrom):
                for alias in node.names:
                    if kind is ast.Import:
                        local = alias.asname or alias.name.split(".")[0]
                        target = alias.name if alias.asname else local
                    elif node.level == 0 and node.module and alias.name != "*":
                        local = alias.asname or alias.name
                        target = f"{node.module}.{alias.name}"
                    else:
                        local, target = alias.asname or alias.name, None
                    scope.bind(local, position, target)
                continue
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                scope.bind(node.name, position, None)
                for decorator in node.decorator_list:
                    self.decorators.add(id(decorator))
                    self.decorated[id(decorator)] = node.name
                    stack.append((decorator, scope, None, False))
                if kind is ast.ClassDef:
                    self.bases.append((unit, node, scope))
                    for base in node.bases + [k.value for k in node.keywords]:
                        stack.append((base, scope, None, False))
                    body_scope = Scope("class", scope, node.name)
                else:
                    args = node.args
                    every = args.posonlyargs + args.args + args.kwonlyargs
                    every += [a for a in (args.vararg, args.kwarg) if a is not None]
                    outer = args.defaults + args.kw_defaults + [node.returns]
                    for child in outer + [a.annotation for a in every]:
                        if child is not None:
                            stack.append((child, scope, None, False))
                    body_scope = Scope("function", scope, node.name)
                    for arg in every:
                        body_scope.bind(arg.arg, (unit, 0, 0), None)
                for statement in node.body:
                    stack.append((statement, body_scope, None, False))
                continue
            elif kind is ast.Lambda:
                child_scope = Scope("function", scope)
                for arg in node.args.args + node.args.kwonlyargs:
                    child_scope.bind(arg.arg, (unit, 0, 0), None)
                stack.append((node.body, child_scope, None, False))
                continue
            elif kind in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
                child_scope = Scope("function", scope)
                self.loops.append((unit, node, child_scope))
            elif kind in (ast.Global, ast.Nonlocal):
                scope.globals.update(node.names if kind is ast.Global else ())
                continue
            elif kind in (ast.Assign, ast.AugAssign, ast.AnnAssign):
                if kind is ast.Assign:
                    self.assigns.append((unit, node, scope))
                end = (unit, node.end_lineno or 0, node.end_col_offset or 0)
                targets = node.targets if kind is ast.Assign else [node.target]
                for target in targets:
                    stack.append((target, scope, end, False))
                if node.value is not None:
                    stack.append((node.value, scope, None, False))
                continue
            elif kind is ast.ExceptHandler and node.name:
                scope.bind(node.name, position, None)
            elif kind in (ast.MatchAs, ast.MatchStar) and node.name:
                scope.bind(node.name, position, None)
            for field in CHILD_FIELDS.get(kind) or child_fields(kind):
                value = getattr(node, field, None)
                if type(value) is list:
                    for child in value:
                        if isinstance(child, ast.AST):
                            stack.append((child, child_scope, child_at, False))
                elif isinstance(value, ast.AST):
                    stack.append((value, child_scope, child_at, False))

    def name_of(self, node: Any, scope: Scope, unit: int) -> str | None:
        chain = dotted(node)
        if chain is None:
            return None
        base = resolve(chain[0], scope, (unit, node.lineno, node.col_offset))
        return ".".join([base, *chain[1]]) if base else None


def jit_fix(key: str, path: str, decorator: bool) -> str:
    name = Path(path).name
    in_test = name.startswith("test_") or name.endswith("_test.py")
    if in_test and key in ("script", "trace"):
        return JIT_FIXES["test"]
    return JIT_FIXES["script@" if decorator and key == "script" else key]


def argument(call: Any, index: int, keyword: str) -> str | None:
    """A call's argument as written (positional `index` or `keyword=`), or None."""
    if call is None:
        return None
    if len(call.args) > index and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return ast.unparse(call.args[index])
    found = [k.value for k in call.keywords if k.arg == keyword]
    return ast.unparse(found[0]) if found else None


def dist_nn_fix(op: str, call: Any = None) -> str:
    """The fix for one torch.distributed.nn collective; with its `call`, written
    with the call's own split sizes and reduction (funcol's backward of
    all_reduce and reduce_scatter raises for any reduction but 'sum')."""
    if op not in FUNCOL:
        return (
            "no compilable equivalent: keep the call outside the compiled region "
            "(torch.compiler.disable)"
        )
    replacement, note = FUNCOL[op], FUNCOL_NOTES.get(op, "")
    if op == "all_to_all_single" and call is not None:
        values = [
            argument(call, 1, "input") or "t",
            argument(call, 2, "output_split_sizes") or "None",
            argument(call, 3, "input_split_sizes") or "None",
            argument(call, 4, "group") or "group",
        ]
        replacement = f"funcol.all_to_all_single_autograd({', '.join(values)})"
    reduction = {"all_reduce": 1, "reduce_scatter": 2}.get(op)
    given = argument(call, reduction, "op") if reduction else None
    if given is not None and not given.upper().endswith("SUM"):
        name = given.rpartition(".")[2].strip("'\"").lower()
        replacement = replacement.replace("'sum'", repr(name))
        note = (
            f"funcol's backward supports only 'sum' ({given} raises RuntimeError "
            "in backward): where gradients flow, keep this call outside the "
            "compiled region (torch.compiler.disable)"
        )
    fix = (
        f"use {replacement} (funcol: torch.distributed._functional_collectives), "
        "which compiles"
    )
    return f"{fix}; {note}" if note else fix


def python_findings(module: Module, path: str, emit, pending) -> dict:
    """Apply the rules to a collected module. `emit(unit, node, rule, detail,
    fix)` reports; `pending` gets port findings that need torchrun evidence.
    Returns facts about the file (spawns processes, runs under a launcher)."""
    names: dict = {}  # id(node) -> resolved dotted name
    for unit, node, scope in module.chains:
        name = module.name_of(node, scope, unit)
        if name:
            names[id(node)] = name
    for _, node, _ in module.calls:
        if id(node.func) in names:
            names.setdefault(id(node), names[id(node.func)])
    resolved = set(names.values())
    uses_profiler = any(n.startswith(PROFILER) for n in resolved)
    facts = {"spawns": False, "launcher": False}
    compiles: list = []  # Compiled: torch.compile and module.compile, fullgraph=True
    shards: list = []  # (scope, position, text of the module) for each fully_shard call
    stance_off: set = set()  # scopes that turn Dynamo off (config.disable, force_eager)
    under_compile: list = []  # dist.nn ops: they fail under fullgraph=True
    point_to_point: list = []  # (unit, isend or irecv call, scope)
    bound = {
        id(a.value): a.targets[0] for _, a, _ in module.assigns if len(a.targets) == 1
    }
    called = {id(call.func): call for _, call, _ in module.calls}
    for unit, node, _ in module.chains:
        name = names.get(id(node))
        if not name or not isinstance(node.ctx, ast.Load):
            continue  # `torch.jit.script = lambda f: f` replaces the API: no use of it
        if name.startswith(LAUNCHER_RECORD):
            facts["launcher"] = True
        if not name.startswith(RULE_PREFIXES):
            continue
        for end in range(name.count(".") + 1, 0, -1):
            prefix = ".".join(name.split(".")[:end])
            if prefix in NAME_RULES:
                rule, key = NAME_RULES[prefix]
                fix, decorator = "", id(node) in module.decorators
                if rule == "torchscript":
                    fix = jit_fix(key, path, decorator)
                elif rule == "dist-nn-functional":
                    fix = dist_nn_fix(key, called.get(id(node)))
                if rule == "dist-nn-functional":
                    deprecated = key in DEPRECATED_DIST_NN
                    under_compile.append((unit, node, rule, prefix, fix, deprecated))
                else:
                    emit(unit, node, rule, "@" * decorator + prefix, fix)
                break
    dispatch_modes = {  # the classes of this module that are TorchDispatchModes
        node.name
        for _, node, _ in module.bases
        if any(names.get(id(base)) == DISPATCH_MODE for base in node.bases)
    }
    for _, node, scope in module.stores:
        if names.get(id(node)) == DYNAMO_DISABLE:
            stance_off.add(scope)
    own_json = any(n.attr == "metadata_json" for _, n, _ in module.stores)
    exempt = not_torchrun_ports(module)
    for unit, node, scope in module.calls:
        name = names.get(id(node.func)) or ""
        func = node.func
        attr = func.attr if isinstance(func, ast.Attribute) else ""
        keywords = {k.arg: k.value for k in node.keywords}
        if name in SPAWNERS:
            facts["spawns"] = True
        if attr == "add_argument" and any(
            isinstance(a, ast.Constant) and "port" in str(a.value) for a in node.args
        ):  # a launcher's own --master-port option: it passes the port on
            exempt.update(id(k.value) for k in node.keywords)
        if name in SUBPROCESS and node.args:
            exempt.update(id(n) for n in ast.walk(node.args[0]))
            command_findings(node.args[0], unit, emit)
        if attr in ("setdefault", "get") or name == "os.getenv":
            exempt.update(id(a) for a in node.args[1:])
        if name.startswith("torch.cuda") and name.endswith("GreenContext.create"):
            if node.args:
                emit(
                    unit,
                    node,
                    "green-context-positional",
                    f"{len(node.args)} positional argument(s)",
                    "",
                )
        if name == "torch.backends.cuda.preferred_linalg_library":
            backend = node.args[0] if node.args else keywords.get("backend")
            value = backend.value if isinstance(backend, ast.Constant) else None
            if isinstance(value, str) and value.lower() == "magma":
                emit(unit, node, "magma", f"preferred_linalg_library({value!r})", "")
        for keyword in node.keywords:
            if keyword.arg == KNOB:
                emit(unit, keyword.value, "defer-layout-freezing", f"{KNOB}=...", "")
        if attr == "getattr" or (isinstance(func, ast.Name) and func.id == "getattr"):
            if len(node.args) > 1 and getattr(node.args[1], "value", None) == (
                "metadata_json"
            ):
                if uses_profiler and not own_json:
                    emit(
                        unit, node, "metadata-json", 'getattr(..., "metadata_json")', ""
                    )
        if name == "torch.distributed.isend" or name == "torch.distributed.irecv":
            point_to_point.append((unit, node, scope))
        if name == "torch.distributed.init_process_group":
            backend = node.args[0] if node.args else keywords.get("backend")
            value = string_value(backend, module, scope, unit) if backend else None
            if value is not None and "," in value:
                emit(unit, node, "torchcomms-one-device", f"backend={value!r}", "")
        if name in FSDP2 and node.args and module_text(node.args[0]):
            shards.append((scope, position_of(unit, node), module_text(node.args[0])))
        if name == STANCE and node.args:
            if string_value(node.args[0], module, scope, unit) == "force_eager":
                stance_off.add(scope)
        fullgraph = keywords.get("fullgraph")
        if isinstance(fullgraph, ast.Constant) and fullgraph.value is True:
            compiled = compiled_object(unit, node, scope, name, attr, bound, module)
            if compiled:
                compiles.append(compiled)
    for unit, node, _ in module.chains:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if node.attr == KNOB:
                emit(unit, node, "defer-layout-freezing", f".{KNOB}", "")
    for unit, node, _ in module.stores:
        if node.attr == KNOB:
            emit(unit, node, "defer-layout-freezing", f".{KNOB} = ...", "")
    if uses_profiler and not own_json:
        for unit, node, _ in module.chains:
            receivers = [node]
            while isinstance(receivers[-1], ast.Attribute):
                receivers.append(receivers[-1].value)
            for attribute in receivers[:-1]:
                if attribute.attr == "metadata_json" and not (
                    isinstance(attribute.value, ast.Name)
                    and attribute.value.id in ("self", "cls")
                ):
                    emit(unit, attribute, "metadata-json", ".metadata_json", "")
    for unit, node, scope in module.constants:
        value = node.value
        if value == KNOB:
            emit(unit, node, "defer-layout-freezing", repr(value), "")
        elif value == KNOB_ENV:
            emit(unit, node, "defer-layout-freezing", KNOB_ENV, "", WARNS)
        elif isinstance(value, str) and value in LAUNCHER_ENV:
            facts["launcher"] = facts["launcher"] or id(node) not in module.written_keys
        elif isinstance(value, str) and CU128.search(value):
            emit(unit, node, "cu128-wheels", CU128.search(value).group(0), "")
        if id(node) in exempt or other_launcher_scope(scope):
            continue
        if isinstance(value, str) and PORT_OPTION.search(value):
            continue
        if str(value) == PORT or (
            isinstance(value, str) and PORT_IN_TEXT.search(value)
        ):
            pending.append((unit, node, "port 29500 in code that runs under torchrun"))
    # Under torch.compile(fullgraph=True) every dist.nn collective raises; eagerly
    # (or after a graph break) the deprecated ones warn and the others run.
    for unit, node, rule, detail, fix, deprecated in under_compile:
        if compiles:
            emit(unit, node, rule, detail, fix)
        elif deprecated:
            emit(unit, node, rule, detail, fix, WARNS)
    for unit, node, scope in point_to_point:
        if concurrent_p2p(unit, node, scope, point_to_point, module):
            emit(unit, node, "torchcomms-p2p", names[id(node)].rpartition(".")[2], "")
    for compiled in compiles:
        if compiled.wraps and sharded_under_wrapper(compiled, shards):
            emit(
                compiled.unit,
                compiled.node,
                "fsdp2-fullgraph",
                "torch.compile(fullgraph=True)",
                "",
            )
        elif compiled.scope in stance_off or module.root in stance_off:
            detail = "torch.compile(fullgraph=True) with Dynamo turned off"
            emit(compiled.unit, compiled.node, "fullgraph-no-frames", detail, "")
        elif runs_under_mode(compiled, module, dispatch_modes):
            detail = "torch.compile(fullgraph=True) called under a TorchDispatchMode"
            emit(compiled.unit, compiled.node, "fullgraph-no-frames", detail, "")
    return facts


@dataclasses.dataclass(frozen=True)
class Compiled:
    """One compile with fullgraph=True: `module` is the text of what it compiles,
    `result` the text of the name its result is bound to (None when it is not
    bound), `wraps` whether it returns a wrapper (torch.compile) rather than
    compiling in place (module.compile)."""

    unit: int
    node: Any
    scope: Scope
    position: tuple
    module: str | None
    result: str | None
    wraps: bool


def concurrent_p2p(unit, node, scope, calls: list, module: Module) -> bool:
    """Whether an isend or irecv is one of several in flight: another in the same
    scope, or itself in a loop or comprehension of that scope. One op alone in a
    function (a wrapper, a single send) is no sign that ops must run concurrently."""
    if sum(1 for _, _, other in calls if other is scope) > 1:
        return True
    at = (node.lineno, node.col_offset)
    return any(
        where is scope
        and loop_unit == unit
        and (loop.lineno, loop.col_offset)
        < at
        <= (loop.end_lineno, loop.end_col_offset)
        for loop_unit, loop, where in module.loops
    )


def position_of(unit: int, node: Any) -> tuple:
    return (unit, node.lineno, node.col_offset)


def module_text(node: Any) -> str | None:
    """`model`, `self.model` or `model.layers[0]` as written; None for others."""
    if isinstance(node, ast.Name | ast.Attribute | ast.Subscript):
        return ast.unparse(node)
    return None


def other_launcher_scope(scope: Scope | None) -> bool:
    """Whether the code is in a function (or class) named for another launcher,
    such as `_init_dist_mpi` or `init_slurm`: it does not run under torchrun."""
    while scope is not None:
        if scope.name and OTHER_LAUNCHER_ENV.search(scope.name):
            return True
        scope = scope.parent
    return False


def not_torchrun_ports(module: Module) -> set:
    """The ids of constants whose 29500 is no port a single-node torchrun picks:
    docstrings, command words that pass it as --master-port or in a
    --rdzv-endpoint, code under a test for an MPI or Slurm launcher, and both
    branches of a test for MASTER_PORT (a default for when it is not set:
    torchrun always sets it)."""
    exempt = set(module.docstrings)
    for sequence in module.sequences:
        words = [e.value for e in sequence.elts if isinstance(e, ast.Constant)]
        if any(isinstance(w, str) and PORT_OPTION.search(w) for w in words):
            exempt.update(id(e) for e in sequence.elts)
    for _, branch in module.branches:
        tested = [
            n.value
            if isinstance(n, ast.Constant)
            else getattr(n, "id", getattr(n, "attr", ""))
            for n in ast.walk(branch.test)
        ]
        if any(isinstance(t, str) and OTHER_LAUNCHER_ENV.search(t) for t in tested):
            exempt.update(id(n) for s in branch.body for n in ast.walk(s))
        if "MASTER_PORT" in tested:
            every = branch.body + branch.orelse
            exempt.update(id(n) for s in every for n in ast.walk(s))
    return exempt


def compiled_object(unit, node, scope, name, attr, bound, module) -> Compiled | None:
    """The Compiled record of a call with fullgraph=True; None for no compile."""
    position = position_of(unit, node)
    if name == "torch.compile":
        target = bound.get(id(node))
        result = (
            module_text(target)
            if target is not None
            else module.decorated.get(id(node))
        )
        compiled = module_text(node.args[0]) if node.args else None
        return Compiled(unit, node, scope, position, compiled, result, True)
    if attr == "compile" and not name:  # module.compile(fullgraph=True): in place
        receiver = module_text(node.func.value)
        return Compiled(unit, node, scope, position, receiver, receiver, False)
    return None


def sharded_under_wrapper(compiled: Compiled, shards: list) -> bool:
    """torch.compile(m, fullgraph=True) runs m's FSDP2 hooks inside the graph when
    m itself is sharded in the same scope: before the compile, or after it when the
    wrapper is kept under another name. `m = torch.compile(m, ...)` followed by
    fully_shard(m) shards the wrapper instead, whose hooks run outside the graph."""
    if compiled.module is None:
        return False
    for scope, position, text in shards:
        if scope is not compiled.scope or text != compiled.module:
            continue
        if position < compiled.position or compiled.result != compiled.module:
            return True
    return False


def runs_under_mode(compiled: Compiled, module: Module, modes: set) -> bool:
    """Whether the compiled object is called inside `with Mode():` where Mode is a
    TorchDispatchMode class of this module, in the scope that binds the compiled
    object (or anywhere, when the module binds it at top level)."""
    called = compiled.result
    if called is None or not modes:
        return False
    for _, node, scope in module.withs:
        if scope is not compiled.scope and compiled.scope is not module.root:
            continue
        entered = [
            item.context_expr.func
            for item in node.items
            if isinstance(item.context_expr, ast.Call)
        ]
        if not any(isinstance(f, ast.Name) and f.id in modes for f in entered):
            continue
        for statement in node.body:
            for inner in ast.walk(statement):
                if isinstance(inner, ast.Call) and module_text(inner.func) == called:
                    return True
    return False


def string_value(node: Any, module: Module, scope: Scope, unit: int) -> str | None:
    """A string argument's text: a literal, an f-string (its placeholders as {…}),
    or a name bound to one of those by its last assignment before the use in the
    same scope; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else "{…}"
            for part in node.values
        )
    if not isinstance(node, ast.Name):
        return None
    use = position_of(unit, node)
    earlier = [
        (position_of(where_unit, assign), assign.value)
        for where_unit, assign, where in module.assigns
        if where is scope
        and len(assign.targets) == 1
        and isinstance(assign.targets[0], ast.Name)
        and assign.targets[0].id == node.id
        and position_of(where_unit, assign) < use
    ]
    if not earlier:
        return None
    value = max(earlier, key=lambda pair: pair[0])[1]
    if isinstance(value, ast.Constant | ast.JoinedStr):
        return string_value(value, module, scope, unit)
    return None


def command_findings(node: ast.AST, unit: int, emit) -> None:
    """A subprocess command as a string or a list of strings: a shell line."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.List | ast.Tuple):
        words = [
            e.value
            for e in node.elts
            if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
        if len(words) != len(node.elts):
            return
        text = shlex.join(words)
    else:
        return
    for rule, detail, fix, severity in shell_rules(text):
        emit(unit, node, rule, detail, fix, severity)


# ---- shell lines (scripts, CI YAML, Dockerfiles, `!cmd` in notebooks) ---------


def shell_words(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError:  # an unbalanced quote
        return line.split()


def launches_torchrun(words: list[str]) -> bool:
    return any(
        Path(w).name == "torchrun"
        or w in ("torch.distributed.run", "torch.distributed.launch")
        for w in words
    )


def shell_rules(line: str):
    """(rule, detail, fix, severity) that one shell line triggers by itself."""
    words = shell_words(line)
    for word in words:
        name, _, value = word.partition("=")
        if name == KNOB_ENV:
            yield (
                "defer-layout-freezing",
                KNOB_ENV,
                "remove it: nothing reads it",
                WARNS,
            )
        elif (
            name == "MASTER_PORT"
            and value == PORT
            and launches_torchrun(words)
            and not PORT_OPTION.search(line)  # it passes the port: fixed
        ):
            yield (
                "port-29500",
                "MASTER_PORT=29500 before torchrun",
                "torchrun ignores MASTER_PORT: pass --master-port=29500",
                ADVISORY,
            )


def launcher_at(words: list[str]) -> int | None:
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
    return {Path(w).name for w in shell_words(line) if w.endswith(".py")}


def other_launcher(line: str) -> bool:
    """A command of a launcher other than torchrun (its 29500 is its own)."""
    return any(Path(w).name in OTHER_LAUNCHERS for w in shell_words(line))


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


def kind_of(path: Path) -> str | None:
    name, suffix = path.name.lower(), path.suffix.lower()
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
    if (suffix in (".txt", ".in") and "requirements" in name) or name in (
        "pyproject.toml",
        "setup.cfg",
        "environment.yml",
        "constraints.txt",
    ):
        return "requirements"
    return None


def read_python(data: bytes) -> str:
    """Decode Python source as Python does: a BOM or a PEP 263 coding line."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding).lstrip("\ufeff")


class FileScan:
    """Everything found in one file. Units are the file's Python parts (a
    module, a notebook's cells, a Markdown file's code blocks) and shell parts."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list = []
        self.errors: list = []
        self.notes: list = []
        self.pending: list = []
        self.launched: set = set()
        self.facts = {"spawns": False, "launcher": False}
        self.lines: dict = {}  # (cell, line) -> text, for noqa
        self.offsets: dict = {}  # unit -> (cell, line offset)
        self.lenient = False  # Markdown: code that does not parse is a note

    def add(self, unit, line, column, rule, detail, fix="", severity=""):
        cell, offset = self.offsets.get(unit, (None, 0))
        text = self.lines.get((cell, line + offset), "")
        if suppressed(text, rule, severity or RULES[rule].severity):
            return
        self.findings.append(
            Finding(self.path, line + offset, rule, detail, cell, column, fix, severity)
        )

    def python(self, units: list) -> None:
        """units: [(unit id, cell, line offset, source, shell lines)]."""
        module = Module()
        for unit, cell, offset, code, _ in units:
            self.offsets[unit] = (cell, offset)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # SyntaxWarning in the code
                    tree = ast.parse(code)
                module.add(unit, tree)
            except (SyntaxError, ValueError) as error:
                if self.lenient:  # a Markdown code block may be a fragment
                    self.fragments(module, unit, offset, code)
                    continue
                line = getattr(error, "lineno", "?")
                where = f"line {line}: {getattr(error, 'msg', error)}"
                where = where if cell is None else f"cell {cell}, {where}"
                self.errors.append(f"{self.path}: cannot parse ({where})")
            except (RecursionError, MemoryError) as error:
                self.errors.append(
                    f"{self.path}: too deeply nested to parse ({type(error).__name__})"
                )

        def emit(unit, node, rule, detail, fix, severity=""):
            column = node.col_offset + 1
            self.add(unit, node.lineno, column, rule, detail, fix, severity)

        pending: list = []
        facts = python_findings(module, self.path, emit, pending)
        self.facts.update({k: v or self.facts[k] for k, v in facts.items()})
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
        shell = [
            (unit, line, text) for unit, _, _, _, lines in units for line, text in lines
        ]
        self.shell(shell)

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
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    module.add(part, ast.parse("\n".join(lines)))
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
        # Evidence that something else uses 29500: a Python literal or another
        # shell line of this file (of this code block, in Markdown).
        names_port = {unit: bool(self.pending) for unit in by_unit}
        variables = shell_variables([text for _, _, text in commands])
        for unit, line, text in commands:
            for rule, detail, fix, severity in shell_rules(text):
                self.add(unit, line, 1, rule, detail, fix, severity)
            match = CU128.search(text)
            if match and not text.lstrip().startswith("#"):
                self.add(unit, line, 1, "cu128-wheels", match.group(0))
            self.launched |= launched_scripts(text, variables)
            launcher = launches_torchrun(shell_words(text)) or other_launcher(text)
            if PORT in text and not launcher:
                names_port[unit] = True
        if any(names_port.values()):
            for unit, line, text in commands:
                if self.lenient and not names_port[unit]:
                    continue
                if torchrun_without_port(text, variables):
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
        """Rules for any line of text: cu128 wheels, CUDA for source builds."""
        builds = any(SOURCE_BUILD.search(text) for _, _, text in lines)
        for unit, line, text in lines:
            match = CU128.search(text)
            comment = text.lstrip().startswith("#") and not self.lenient
            if match and not comment:
                self.add(unit, line, match.start() + 1, "cu128-wheels", match.group(0))
            if KNOB_SETTING.search(text):
                detail, fix = KNOB_ENV, "remove it: nothing reads it"
                self.add(unit, line, 1, "defer-layout-freezing", detail, fix, WARNS)
            old = OLD_CUDA.search(text) if builds else None
            if old:
                self.add(unit, line, old.start() + 1, "cuda-source-build", old.group(0))


def suppressed(text: str, rule: str, severity: str) -> bool:
    """Whether a `# noqa` comment on this line covers the rule."""
    noqa = NOQA.search(text)
    if noqa is None:
        return False
    if noqa.group("names") is None:
        return True
    names = {name.lower() for name in re.split(r"[,\s]+", noqa.group("names"))}
    return bool(names & {rule, severity})


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


def scan_text(scan: FileScan, text: str, kind: str) -> None:
    lines = text.split("\n")
    scan.offsets[0] = (None, 0)
    for number, line in enumerate(lines, start=1):
        scan.lines[(None, number)] = line
    scan.text_lines([(0, n, t) for n, t in enumerate(lines, start=1)])
    if kind in ("shell", "yaml", "docker"):
        scan.shell(
            [(0, n, strip_prompt(t, kind)) for n, t in enumerate(lines, start=1)]
        )
    elif kind == "markdown":
        units, shell, fence, block, language = [], [], None, [], ""
        for number, line in enumerate(lines, start=1):
            opened = re.match(r"^\s*(```+|~~~+)\s*\{?([\w+-]*)", line)
            if fence is None and opened:
                fence, language, block = opened.group(1), opened.group(2).lower(), []
                start = number
            elif fence is not None and line.strip().startswith(fence):
                if language in (
                    "python",
                    "py",
                    "python3",
                    "ipython",
                    "pycon",
                    "code-cell",
                ):
                    source = "\n".join(
                        re.sub(r"^(>>>|\.\.\.) ?", "", b) for b in block
                    )  # doctest prompts
                    code, cell_shell = split_cell(source)
                    unit = len(units) + 1
                    units.append((unit, None, start, code, cell_shell))
                elif language not in ("text", "json", "toml", "ini", "output", "cpp"):
                    kind_here = (
                        "yaml"
                        if language in ("yaml", "yml")
                        else ("docker" if language == "dockerfile" else "prompt")
                    )
                    shell += [
                        (-start, start + i, strip_prompt(b, kind_here))
                        for i, b in enumerate(block, start=1)
                    ]
                fence = None
            elif fence is not None:
                block.append(line)
        scan.lenient = True
        if units:
            scan.python(units)
        scan.shell(shell)


def scan_file(path: str, max_bytes: int = MAX_BYTES) -> FileScan:
    """Scan one file, never raising: problems become per-file errors."""
    scan = FileScan(path)
    try:
        scan_file_into(scan, Path(path), max_bytes)
    except Exception as error:  # a bug in the scanner: report it, go on
        scan.errors.append(f"internal error: {path}: {type(error).__name__}: {error}")
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
    if not needed(kind, data):
        return  # no rule can match: no decoding, no parse
    try:
        text = read_python(data) if kind == "python" else data.decode("utf-8-sig")
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        if kind == "python" or kind == "notebook":
            scan.errors.append(f"{path}: cannot decode ({undecodable(data, error)})")
            return
        text = data.decode("latin-1")
        scan.notes.append(f"{path}: not UTF-8, read as Latin-1")
    if kind == "python":
        for number, line in enumerate(text.split("\n"), start=1):
            scan.lines[(None, number)] = line
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


def scan_notebook_into(scan: FileScan, text: str, max_bytes: int = MAX_BYTES) -> None:
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
        for line_number, line in enumerate(source.split("\n"), start=1):
            scan.lines[(number, line_number)] = line
        code, shell = split_cell(source)
        units.append((number, number, 0, code, shell))
    size = sum(len(unit[3]) for unit in units)
    if size > max_bytes:
        scan.errors.append(
            f"{scan.path}: {size} characters of code, over the {max_bytes}-byte "
            "limit (not scanned: raise --max-bytes or exclude it)"
        )
        return
    scan.python(units)
    on_disk = json_lines(text, cells)

    def placed(finding: Finding) -> Finding:
        cell = finding.cell
        line = on_disk.get((cell, finding.line)) or on_disk.get((cell, 0))
        return dataclasses.replace(finding, file_line=line)

    scan.findings = [placed(f) for f in scan.findings]
    scan.pending = [placed(f) for f in scan.pending]


def scan_source(source: str, path: str = "<source>") -> Report:
    """Scan one Python source text (as if it ran under torchrun if it says so)."""
    scan = FileScan(path)
    for number, line in enumerate(source.split("\n"), start=1):
        scan.lines[(None, number)] = line
    scan.python([(0, None, 0, source, [])])
    return finish(collect([scan]))


def scan_notebook_json(text: str, path: str = "<notebook>") -> Report:
    """Scan a notebook's code cells (the JSON text of an .ipynb file)."""
    scan = FileScan(path)
    scan_notebook_into(scan, text)
    return finish(collect([scan]))


# ---- many files ------------------------------------------------------------------


def excluded(path: Path, root: Path, patterns) -> bool:
    """Whether a glob matches the path's name, its path relative to the scanned
    folder `root`, the path as given, or its absolute path."""
    if not patterns:
        return False
    forms = {path.name, path.as_posix(), Path(os.path.abspath(path)).as_posix()}
    if path != root:
        forms.add(path.relative_to(root).as_posix())
    return any(fnmatch.fnmatch(form, p) for form in forms for p in patterns)


def reason(error: OSError) -> str:
    """An OSError's reason in words ("Permission denied"), else its class name."""
    return error.strerror or type(error).__name__


def files_under(paths, report: Report, exclude=()) -> list:
    """The files to scan under the paths named; skipped folders are recorded.
    `exclude` globs are matched relative to each folder named (see excluded), and
    before a folder is probed. Folders that cannot be read are one error each;
    a file reached twice (through a symbolic link) is scanned once."""
    found: list = []
    seen: set = set()

    def add(full: Path) -> None:
        key = os.path.realpath(full)
        if key not in seen:
            seen.add(key)
            found.append(full)

    def unreadable(error: OSError) -> None:
        report.errors.append(f"{error.filename}: cannot read folder ({reason(error)})")

    for path in map(Path, paths):
        if os.path.isdir(path):
            for folder, subfolders, files in os.walk(path, onerror=unreadable):
                keep = []
                for name in sorted(subfolders):
                    full = Path(folder) / name
                    if excluded(full, path, exclude):
                        continue
                    if name in SKIPPED_FOLDERS or os.path.exists(full / "pyvenv.cfg"):
                        report.skipped_folders.append(full.as_posix())
                    else:
                        keep.append(name)
                subfolders[:] = keep
                for name in sorted(files):
                    full = Path(folder) / name
                    if kind_of(full) and not excluded(full, path, exclude):
                        add(full)
        elif os.path.lexists(path):
            if not excluded(path, path.parent, exclude):
                add(path)
        else:
            report.errors.append(f"{path}: no such file or folder")
    return found


def size_of(path: str) -> int:
    """A file's size in bytes (0 when it cannot be read: its scan says why)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def collect(scans) -> Report:
    report = Report()
    for scan in scans:
        report.files += 1
        report.findings += scan.findings
        for error in scan.errors:
            (report.internal if error.startswith("internal") else report.errors).append(
                error
            )
        report.notes += scan.notes
        report.launched |= scan.launched
        if not scan.facts["spawns"]:
            launcher = scan.facts["launcher"] or bool(scan.launched)
            report.pending += [(f, launcher) for f in scan.pending]
    return report


def finish(report: Report, select=(), ignore=()) -> Report:
    """Keep a port finding only with evidence that its file runs under torchrun
    (it reads LOCAL_RANK and the like, or a torchrun line anywhere launches it);
    then filter by rule or severity and sort."""
    for finding, launcher in report.pending:
        if launcher or Path(finding.path).name in report.launched:
            report.findings.append(finding)
    report.pending = []

    def wanted(f: Finding) -> bool:
        severity = f.severity or RULES[f.rule].severity
        keys = {f.rule, severity}
        return (not select or keys & set(select)) and not keys & set(ignore)

    unique = {(f.path, f.cell, f.line, f.rule, f.detail): f for f in report.findings}
    report.findings = sorted(
        (f for f in unique.values() if wanted(f)),
        key=lambda f: (f.path, f.cell or 0, f.line, f.column, f.rule),
    )
    return report


def scan_paths(
    paths, jobs: int = 1, exclude=(), select=(), ignore=(), max_bytes: int = MAX_BYTES
) -> Report:
    """Scan files and folders; `jobs` worker processes for large trees."""
    start = time.perf_counter()
    listing = Report()
    files = [str(p) for p in files_under(paths, listing, exclude)]
    parallel = jobs > 1 and len(files) >= 64 and scan_file.__module__ != "__main__"
    if parallel:
        # Largest first, in small chunks: the few files that are parsed are
        # spread over the workers, and none is left alone at the end.
        order = sorted(range(len(files)), key=lambda i: -size_of(files[i]))
        with ProcessPoolExecutor(jobs) as pool:
            done = pool.map(
                scan_file,
                [files[i] for i in order],
                [max_bytes] * len(files),
                chunksize=4,
            )
            scans = [scan for _, scan in sorted(zip(order, done, strict=True))]
    else:
        scans = [scan_file(f, max_bytes) for f in files]
    report = collect(scans)
    report.errors = listing.errors + report.errors
    report.skipped_folders = listing.skipped_folders
    finish(report, select, ignore)
    report.seconds = time.perf_counter() - start
    return report


# ---- output ----------------------------------------------------------------------


def severity_of(f: Finding) -> str:
    return f.severity or RULES[f.rule].severity


def format_report(report: Report) -> str:
    """Text grouped by rule: what changed once, then each place, then the fixes;
    then the notes (files read in part or skipped) and a summary."""
    lines = []
    for rule in RULES.values():
        found = [f for f in report.findings if f.rule == rule.id]
        if not found:
            continue
        lines.append(f"[{rule.id}] {rule.severity}: {rule.changed}.")
        for f in found:
            tag = "" if severity_of(f) == rule.severity else f" ({severity_of(f)})"
            lines.append(f"  {f.where()}: {in_cell(f)}{f.detail}{tag}")
        fixes: dict = {}
        for f in found:
            fixes.setdefault(f.fix or rule.fix, []).append(f.detail)
        for fix, details in fixes.items():
            apis = sorted(set(details))
            label = ", ".join(apis) if len(apis) < 4 else f"{len(apis)} APIs"
            lines.append(
                f"  fix ({label}): {fix}." if len(fixes) > 1 else f"  fix: {fix}."
            )
    if report.skipped_folders:
        shown = ", ".join(report.skipped_folders[:5])
        more = len(report.skipped_folders) - 5
        lines.append(
            f"skipped folders: {shown}" + (f" and {more} more" if more > 0 else "")
        )
    return "\n".join(lines + tail(report))


def tail(report: Report) -> list[str]:
    """The notes (the first MAX_NOTES_SHOWN) and the summary line."""
    lines = [f"note: {note}" for note in report.notes[:MAX_NOTES_SHOWN]]
    if len(report.notes) > MAX_NOTES_SHOWN:
        more = len(report.notes) - MAX_NOTES_SHOWN
        lines.append(f"note: {more} more note(s); --format json lists them all")
    rate = report.files / report.seconds if report.seconds else 0.0
    lines.append(
        f"{len(report.findings)} finding(s) in {report.files} file(s), "
        f"{len(report.errors) + len(report.internal)} error(s), "
        f"{len(report.notes)} note(s); {report.seconds:.2f} s, {rate:.0f} files/s"
    )
    return lines


def format_concise(report: Report) -> str:
    """One line per finding, as ruff's concise format writes it:
    `path:line:col: rule message [severity]`; then the notes and the summary."""
    lines = [
        f"{f.where()}: {f.rule} {in_cell(f)}{f.detail}: {f.fix or RULES[f.rule].fix}"
        f" [{severity_of(f)}]"
        for f in report.findings
    ]
    return "\n".join(lines + tail(report))


MAX_NOTES_SHOWN = 20


def report_json(report: Report) -> dict:
    return {
        "findings": [
            f.to_dict()
            | {"severity": severity_of(f), "fix": f.fix or RULES[f.rule].fix}
            for f in report.findings
        ],
        "errors": report.errors + report.internal,
        "notes": report.notes,
        "skipped_folders": report.skipped_folders,
        "files": report.files,
        "seconds": round(report.seconds, 3),
    }


LEVELS = {BREAKS: "error", WARNS: "warning", ADVISORY: "note"}


def in_cell(f: Finding) -> str:
    """The prefix "cell 3, line 2: " for a notebook finding ("cell 3, line 2,
    column 5: " where the column is not 1), "" elsewhere."""
    if f.cell is None:
        return ""
    column = "" if f.column == 1 else f", column {f.column}"
    return f"cell {f.cell}, line {f.line}{column}: "


def report_sarif(report: Report) -> dict:
    """SARIF 2.1.0, as GitHub code scanning reads it. A notebook finding points
    at the .ipynb file, at the JSON line that holds the cell's line (line 1
    when the JSON is not one source line per line); the message and the
    properties name the cell and the line in it."""
    rules = [
        {
            "id": r.id,
            "shortDescription": {"text": r.changed},
            "help": {"text": r.fix},
            "defaultConfiguration": {"level": LEVELS[r.severity]},
        }
        for r in RULES.values()
    ]
    results = []
    for f in report.findings:
        region = {"startLine": f.on_disk()}
        properties = {}
        if f.cell is None:
            region["startColumn"] = f.column
        else:
            properties = {"cell": f.cell, "cellLine": f.line, "cellColumn": f.column}
        result = {
            "ruleId": f.rule,
            "level": LEVELS[severity_of(f)],
            "message": {
                "text": f"{in_cell(f)}{f.detail}: {f.fix or RULES[f.rule].fix}"
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": Path(f.path).as_posix()},
                        "region": region,
                    }
                }
            ],
        }
        if properties:
            result["properties"] = properties
        results.append(result)
    notifications = [
        {"level": "error", "message": {"text": text}}
        for text in report.errors + report.internal
    ] + [{"level": "note", "message": {"text": text}} for text in report.notes]
    driver = {
        "name": "torch-upgrade-scan",
        "version": VERSION,
        "informationUri": "https://github.com/every-accelerator/pytorch-2.12-course",
        "rules": rules,
    }
    invocation = {
        "executionSuccessful": not report.internal,
        "toolExecutionNotifications": notifications,
    }
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "invocations": [invocation],
                "results": results,
            }
        ],
    }


def report_github(report: Report, notes: bool = False) -> str:
    """GitHub Actions workflow commands: one annotation per finding (a notebook
    finding at its JSON line, the cell and line named in the message); with
    `notes`, one notice per note too (else they are left to the text report)."""
    kinds = {BREAKS: "error", WARNS: "warning", ADVISORY: "notice"}

    def escape(text: str, prop: bool = False) -> str:
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return text.replace(":", "%3A").replace(",", "%2C") if prop else text

    annotations = [
        f"::{kinds[severity_of(f)]} file={escape(f.path, True)},line={f.on_disk()}"
        + ("" if f.cell is not None else f",col={f.column}")
        + f",title={escape('2.12 ' + f.rule, True)}::"
        f"{escape(in_cell(f) + f.detail + ': ' + (f.fix or RULES[f.rule].fix))}"
        for f in report.findings
    ]
    annotations += [
        f"::notice title=torch-upgrade-scan note::{escape(note)}"
        for note in (report.notes if notes else [])
    ]
    return "\n".join(annotations)


FORMATS = ("text", "concise", "json", "sarif", "github")


def render(report: Report, output: str = "text", notes: bool = False) -> str:
    """The report in one of FORMATS (`notes`: annotate the notes on GitHub)."""
    if output == "json":
        return json.dumps(report_json(report), indent=1)
    if output == "sarif":
        return json.dumps(report_sarif(report), indent=1)
    if output == "github":
        return report_github(report, notes)
    if output == "concise":
        return format_concise(report)
    return format_report(report)


def exit_code(report: Report, fail_on: str | None = ADVISORY) -> int:
    """0 clean; 1 a finding of severity `fail_on` or worse (never when None);
    2 a path or file could not be read or parsed; 3 an internal error (a
    scanner bug). The highest applies."""
    if report.internal:
        return 3
    if report.errors:
        return 2
    if fail_on is None:
        return 0
    worst = SEVERITIES.index(fail_on)
    failing = [f for f in report.findings if SEVERITIES.index(severity_of(f)) <= worst]
    return 1 if failing else 0


def upgrade_scan_main(
    paths, output: str = "text", select=(), ignore=(), exclude=()
) -> int:
    """Scan, print the report, return the exit code (the command line's core:
    installed, `torch-upgrade-scan PATH` adds configuration and fix mode)."""
    report = scan_paths(paths, exclude=exclude, select=select, ignore=ignore)
    print(render(report, output))
    for message in report.errors + report.internal:
        print(f"error: {message}", file=sys.stderr)
    return exit_code(report)
