"""The per-rule keyword pre-filter: what a file's bytes must hold for a rule to find anything in it, checked
before the file is decoded or parsed (most files hold none)."""

import dataclasses
import re
from pathlib import Path

from torch_upgrade_scan.rules.packaging import PAIRED, RUNTIME
from torch_upgrade_scan.rules.shell import PORT
from torch_upgrade_scan.rules.torchscript import JIT_APIS


@dataclasses.dataclass(frozen=True)
class Needs:
    """What a file's bytes must hold for a rule to find anything in it: one of
    `words` (a fast substring search; none: no such test), then a match of one of `any_of` (where
    given) and of each of `all_of`. Checked before a file is decoded or parsed;
    most files hold none. (Each pattern starts with a literal word, which the
    regex engine seeks fast.)"""

    words: tuple[bytes, ...]
    any_of: "tuple[re.Pattern[bytes], ...]" = ()
    all_of: "tuple[re.Pattern[bytes], ...]" = ()

    def seen(self, data: bytes) -> bool:
        if self.words and not any(word in data for word in self.words):
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
# a device:backend pair, a comma, and the next pair's colon; written to start at the colon (the character before
# it looked back at), so that the engine seeks the colon: 20 times faster than starting at a class of characters
MULTI_DEVICE = re.compile(rb":(?<=[\w}]:)[^,\s\"']*,[^,\s\"':]*:")
# `reenContext` or `reen_contexts` (GreenContext, green_contexts), written to start at their `xt` (what comes before
# it looked back at): 1.7 times as fast over the three projects as starting at the `r`
GREEN_CONTEXT = re.compile(rb"xt(?:(?<=reenContext)|s(?<=reen_contexts))")
# `isend(` or `irecv(`, written to start at the bracket (what comes before it looked back at): the engine seeks a
# bracket, rarer than an `i`, twice as fast over the three projects of the README's speed section
ISEND_IRECV = re.compile(rb"\((?<=isend\(|irecv\()")
BACKEND_BY_NAME = re.compile(rb"init_process_group\(\s*(?:backend\s*=\s*)?[A-Za-z_][\w.]*\s*[,)]")
NO_FRAMES = re.compile(rb"fully_shard|force_eager|TorchDispatchMode|disable\s*=\s*True")
# What each rule needs to see in Python code (in .py files, notebooks and
# Markdown code blocks alike) ...
PYTHON_NEEDS = {
    "torchscript": Needs((b"jit",), JIT_USE),
    # (a name resolves to torch.distributed.nn only through an import that names torch.distributed)
    "dist-nn-functional": Needs(
        (b"distributed",),
        (
            re.compile(
                rb"nn(?:\.(?:functional\.)?(?:all_|broadcast|reduce|gather|scatter)"
                rb"|\b(?<=distributed\.nn)|\b(?<=distributed import nn))"
            ),
            re.compile(rb"distributed\s+import\s+(?:\([^)]*|[^\n]*)\bnn\b"),  # spaces, brackets
        ),
    ),
    "port-29500": Needs((PORT.encode(),)),
    # (one pattern for two words: a search of a file for each word costs about as much as one for the pattern)
    "green-context-positional": Needs((), (GREEN_CONTEXT,)),
    "stream-capturing": Needs((b"is_current_stream_capturing",)),
    "metadata-json": Needs((b"metadata_json",)),
    "magma": Needs((), (re.compile(rb"inalg(?:Backend|_library)"),)),  # preferred_linalg_library, LinalgBackend
    "defer-layout-freezing": Needs((b"layout_freezing", b"LAYOUT_FREEZING")),
    "cu128-wheels": Needs((b"cu128",)),
    # both compile rules: fullgraph=True and what makes it raise or run no frame
    "fullgraph-no-frames": Needs((b"fullgraph",), all_of=(FULLGRAPH, NO_FRAMES)),
    "torchcomms-p2p": Needs((), (ISEND_IRECV,)),
    # a process group with a multi-device backend string ("cpu:gloo,cuda:nccl", f"{d}:{b},cpu:gloo"), or with
    # a backend passed by name, which a function of another file may return
    "torchcomms-one-device": Needs((b"init_process_group",), (MULTI_DEVICE, BACKEND_BY_NAME)),
    # the rules of later releases (rules/later.py)
    "named-tensors": Needs(
        (b"names", b"align_", b"rename"),
        (re.compile(rb"(?:refine|has)_names|align_(?:to|as|tensors)\b|rename\(None\)|names\s*=\s*[(\[]"),),
    ),
    "ddp-broadcast-buffers": Needs((b"broadcast_buffers",)),
    "removed-compiler-knobs": Needs(
        (b"skip_fsdp_hooks", b"force_same_precision", b"partitioned_scatter", b"nvgemm_max", b"autoheuristic")
    ),
    "cholesky-qr": Needs((b"cholesky(", b"qr(")),
    "profiler-use-cuda": Needs((b"use_cuda",)),
}
# ... and the other half of that: a function that returns a multi-device string (one of its pairs names a
# backend), which the scan of a whole project matches with the process groups of other files.
BACKEND_HELPER = Needs((), (re.compile(rb":(?:gloo|nccl|xccl|hccl|ucc|mpi)"),), (MULTI_DEVICE,))
PYTHON_NEEDS["fsdp2-fullgraph"] = PYTHON_NEEDS["fullgraph-no-frames"]
# ... and, beyond that, in shell-like and other text files (torchrun lines are
# evidence for the Python files they start; source builds name CUDA versions).
TEXT_NEEDS = {
    "port-29500": Needs(
        (b"torchrun", b"torch.distributed.run", b"torch.distributed.launch")
    ),
    "cuda-source-build": Needs((b"github.com/pytorch/pytorch",)),
    # a Python floor in pyproject.toml, setup.cfg or environment.yml, and torch (rules/packaging.py)
    "python-310": Needs(
        (b"python",),
        (re.compile(rb"(?:requires-python|python_requires)\s*=|-\s*python\s*[=<>~!]"),),
        (re.compile(rb"torch"),),
    ),
}
TEXT_RULE_NEEDS = {**PYTHON_NEEDS, **TEXT_NEEDS}  # each rule's needs in a text file (filescan.needs_seen)
# A shell-like file (a script, CI YAML, a Dockerfile, requirements) is read as commands and lines of text, never
# parsed as Python (filescan.shell and text_lines): of the Python rules, only these find something in it (its
# port findings and launches all need a torchrun line, which TEXT_NEEDS holds).
SHELL_LIKE = ("shell", "yaml", "docker", "requirements")
SHELL_LIKE_RULES = ("cu128-wheels", "defer-layout-freezing")
UNIQUE_NEEDS = {
    "python": tuple(dict.fromkeys([*PYTHON_NEEDS.values(), BACKEND_HELPER])),
    "shell": tuple(dict.fromkeys([*(PYTHON_NEEDS[rule] for rule in SHELL_LIKE_RULES), *TEXT_NEEDS.values()])),
    "text": tuple(dict.fromkeys([*PYTHON_NEEDS.values(), BACKEND_HELPER, *TEXT_NEEDS.values()])),
}


# The rules whose findings come from one statement and the imports that bind its names (see partial.py).
LOCAL_RULES = {
    "torchscript",
    "dist-nn-functional",  # unless the file compiles with fullgraph=True (then a collective breaks)
    "stream-capturing",
    "green-context-positional",
    "magma",
    "defer-layout-freezing",
    "cu128-wheels",
    "torchcomms-p2p",  # pairs calls of one scope, each of which holds its trigger
    "named-tensors",
    "ddp-broadcast-buffers",
    "removed-compiler-knobs",
    "cholesky-qr",
    "profiler-use-cuda",
}
WHOLE_FILE_NEEDS = tuple(
    dict.fromkeys([need for rule, need in PYTHON_NEEDS.items() if rule not in LOCAL_RULES] + [BACKEND_HELPER])
)
LOCAL_NEEDS = tuple(need for rule, need in PYTHON_NEEDS.items() if rule in LOCAL_RULES and rule != "dist-nn-functional")
STAR_IMPORT = re.compile(rb"from\s+torch[\w.]*\s+import\s+\*")
TORCH_IMPORT = re.compile(rb"from\s+torch[\w.]*\s+import\b")


def torch_own(path: Path) -> bool:
    """Whether a file is one of torch's own modules (under a `torch` folder), whose re-exports are not followed:
    its names resolve to torch's already."""
    return "torch" in path.parts


def may_reexport(path: Path, data: bytes) -> bool:
    """Whether a Python file may re-export torch's names (`from torch.distributed import *`, or imports from torch
    in a package's `__init__.py`), so that it is read whole (scan.py follows the files that import it). A module
    whose `__all__` lists torch's names is followed where a rule reads it anyway: a test for `__all__` here read
    87 more of NeMo's files whole, for no re-export. torch's own modules are left out (see torch_own), first: on
    torch's sources the path's test spares 1,537 files' searches for an import."""
    if torch_own(path) or b"from torch" not in data:
        return False
    star = b"import *" in data and STAR_IMPORT.search(data) is not None
    package = path.name == "__init__.py"
    return star or (package and TORCH_IMPORT.search(data) is not None)


# setup.py with a Python floor and torch in it (rules/packaging.py): read whole, whatever else it holds (a test of
# its name, so that no other Python file pays for a search)
SETUP_PY = Needs((b"python_requires",), all_of=(re.compile(rb"torch"),))


def setup_script(path: Path, data: bytes) -> bool:
    """Whether a Python file is a setup.py that the python-310 rule may find something in."""
    return path.name == "setup.py" and SETUP_PY.seen(data)


def runtime_pair(path: Path, data: bytes) -> bool:
    """Whether a requirements-like file is a runtime.txt that pins a Python, or a requirements.txt that names torch:
    python-310 pairs the two of one folder (rules/packaging.py)."""
    name = path.name.lower()
    return (name == RUNTIME and b"python-" in data) or (name == PAIRED and b"torch" in data)


def python_reading(data: bytes) -> str | None:
    """How a Python file with these bytes is read: None when no rule can find anything in it, "local" when
    every rule that can is a local one (partial.py), else "whole". One pass over the rules' needs."""
    if any(one.seen(data) for one in WHOLE_FILE_NEEDS):
        return "whole"
    if PYTHON_NEEDS["dist-nn-functional"].seen(data):
        return "whole" if b"fullgraph" in data else "local"
    return "local" if any(one.seen(data) for one in LOCAL_NEEDS) else None


def needed(kind: str | None, data: bytes) -> bool:
    """Whether any rule can find something in a file of this kind with these bytes."""
    needs = UNIQUE_NEEDS["python" if kind == "python" else "shell" if kind in SHELL_LIKE else "text"]
    return any(one.seen(data) for one in needs)
