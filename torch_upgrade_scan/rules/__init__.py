"""The Python rules, applied to one parsed module: each family of rules (one module each) reads the module's
resolved names and reports through `emit`; shell.py reads shell lines for the shell-like files."""

from torch_upgrade_scan.parse import Module
from torch_upgrade_scan.rules import compiler, cuda, distributed, inductor, launch, profiler, torchscript
from torch_upgrade_scan.rules.context import Context, Emit


def python_findings(module: Module, path: str, emit: Emit, pending: list, compiled_elsewhere: bool = False) -> dict:
    """Apply the rules to a collected module. `emit(unit, node, rule, detail, fix)` reports; `pending` gets port
    findings that need torchrun evidence; `compiled_elsewhere`: another piece of the module may compile with
    fullgraph=True. Returns facts about the file (spawns processes, runs under a launcher, compiles with
    fullgraph=True), its functions that return a multi-device backend string, and the process groups whose
    backend a function of another file may return (see distributed.find). The launch rules go first: of two
    equal findings the later one is kept, and a subprocess command that names the knob's environment variable is
    reported there and again by the knob's rule."""
    found = Context.of(module, path, emit)
    facts = launch.find(found, pending)
    torchscript.find(found)
    cuda.find(found)
    profiler.find(found)
    inductor.find(found)
    compiles = compiler.find(found)
    distributed.find(found, compiles, compiled_elsewhere)
    helpers = distributed.multi_device_helpers(module)
    return {**facts, "compiles": bool(compiles), "helpers": helpers, "via_helpers": found.via_helpers}
