"""Rule port-29500 in Python code: the 29500 literals of code that runs under torchrun (kept pending until
the scan knows which files torchrun starts), the subprocess commands it runs, and the facts that tell whether
a file runs under a launcher or starts its own processes."""

import ast
import shlex

from torch_upgrade_scan.parse import Module, Scope
from torch_upgrade_scan.rules.context import Context, Emit
from torch_upgrade_scan.rules.shell import OTHER_LAUNCHER_ENV, PORT, PORT_IN_TEXT, PORT_OPTION, shell_rules

# Code that uses these runs under torchelastic (torchrun): a function decorated with `record`, or torchrun's own
# entry point (`torch.distributed.run.main(...)`, which starts this file's code again in its workers).
LAUNCHER_NAMES = (
    "torch.distributed.elastic.multiprocessing.errors.record",
    "torch.distributed.run",
    "torch.distributed.launcher",
)
# Variables that torchrun (torchelastic) sets for its workers: code that reads one from the environment runs
# under it. Only a read counts: a constant named so, or a test's monkeypatch.setenv, launches nothing.
LAUNCHER_ENV = {"LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "TORCHELASTIC_RUN_ID"}
ENV_READERS = {"os.getenv", "os.environ.get"}
# Calls that set an environment variable for a test (pytest's monkeypatch): no launch reads what they set.
TEST_ENV = {"setenv"}
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


def command_findings(node: ast.AST, unit: int, emit: Emit) -> None:
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


def find(found: Context, pending: list) -> dict:
    """Report the shell rules of subprocess commands; add to `pending` (unit, node, detail) for each 29500 that
    a torchrun could have picked. Returns the file's facts: whether it spawns processes, whether it runs under
    a launcher."""
    module = found.module
    facts = {"spawns": False, "launcher": False}
    for _, _, name in found.loads():
        if name.startswith(LAUNCHER_NAMES):
            facts["launcher"] = True
    # the keys read from the environment: os.environ["KEY"], os.environ.get("KEY"), os.getenv("KEY")
    read = [s.slice for s in module.subscripts if found.names.get(id(s.value)) == "os.environ"]
    exempt: set = set()
    for unit, node, _ in module.calls:
        name = found.names.get(id(node.func)) or ""
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if name in SPAWNERS:
            facts["spawns"] = True
        if attr == "add_argument" and any(
            isinstance(a, ast.Constant) and "port" in str(a.value) for a in node.args
        ):  # a launcher's own --master-port option: it passes the port on
            exempt.update(id(k.value) for k in node.keywords)
        if name in SUBPROCESS and node.args:
            exempt.update(id(n) for n in ast.walk(node.args[0]))
            command_findings(node.args[0], unit, found.emit)
        if attr in ("setdefault", "get") or name == "os.getenv":
            exempt.update(id(a) for a in node.args[1:])
        if name in ENV_READERS and node.args:
            read.append(node.args[0])
        if attr in TEST_ENV:
            exempt.update(id(n) for a in node.args for n in ast.walk(a))
    facts["launcher"] = facts["launcher"] or any(
        isinstance(key, ast.Constant) and key.value in LAUNCHER_ENV for key in read
    )
    candidates = []  # 29500s that a torchrun could have picked, unless exempt
    for unit, node, scope in module.constants:
        value = node.value
        if isinstance(value, str) and PORT_OPTION.search(value):
            continue
        if str(value) == PORT or (isinstance(value, str) and PORT_IN_TEXT.search(value)):
            candidates.append((unit, node, scope))
    if candidates:  # the exemptions read every branch's test: only where a 29500 is
        exempt |= not_torchrun_ports(module)
    for unit, node, scope in candidates:
        if id(node) not in exempt and not other_launcher_scope(scope):
            pending.append((unit, node, "port 29500 in code that runs under torchrun"))
    return facts
