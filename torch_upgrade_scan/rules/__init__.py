"""The Python rules, applied to one parsed module: each family of rules (one module each) reads the module's
resolved names and reports through `emit`; shell.py reads shell lines for the shell-like files."""

import ast
from pathlib import Path

from torch_upgrade_scan.parse import Module
from torch_upgrade_scan.prefilter import torch_own
from torch_upgrade_scan.rules import (
    compiler,
    cuda,
    distributed,
    inductor,
    later,
    launch,
    packaging,
    profiler,
    torchscript,
)
from torch_upgrade_scan.rules.context import Context, Emit


def python_findings(
    module: Module, path: str, emit: Emit, pending: list, compiled_elsewhere: bool = False, exports: dict | None = None
) -> dict:
    """Apply the rules to a collected module. `emit(unit, node, rule, detail, fix)` reports; `pending` gets port
    findings that need torchrun evidence; `compiled_elsewhere`: another piece of the module may compile with
    fullgraph=True. Returns facts about the file (spawns processes, runs under a launcher, compiles with
    fullgraph=True), its functions that return a multi-device backend string, and the process groups whose
    backend a function of another file may return (see distributed.find). The launch rules go first: of two
    equal findings the later one is kept, and a subprocess command that names the knob's environment variable is
    reported there and again by the knob's rule."""
    found = Context.of(module, path, emit, exports)
    facts = launch.find(found, pending)
    torchscript.find(found)
    cuda.find(found)
    profiler.find(found)
    inductor.find(found)
    later.find(found)
    packaging.find(found)  # setup.py's setup() call
    compiles = compiler.find(found)
    distributed.find(found, compiles, compiled_elsewhere)
    helpers = distributed.multi_device_helpers(module)
    return {
        **facts,
        "compiles": bool(compiles),
        "helpers": helpers,
        "via_helpers": found.via_helpers,
        "exports": exports_of(module, path),
    }


def exports_of(module: Module, path: str) -> tuple | None:
    """What a module re-exports of torch (None: nothing): (the torch module it star-imports, or "", the names
    it binds itself, {name: torch name} of its imports where it is a package's `__init__.py` or lists them in
    `__all__`). torch's own modules re-export nothing here (see prefilter.torch_own)."""
    if torch_own(Path(path)):
        return None
    star = next((m for m in module.root.stars if m == "torch" or m.startswith("torch.")), "")
    listed = {
        element.value
        for _, assign, scope in module.assigns
        if scope is module.root and any(getattr(t, "id", "") == "__all__" for t in assign.targets)
        and isinstance(assign.value, ast.List | ast.Tuple)
        for element in assign.value.elts
        if isinstance(element, ast.Constant)
    }
    package = path.endswith("__init__.py")
    names, own = {}, set()
    for local, bound in module.root.bindings.items():
        targets = [target for _, target in bound]
        if any(target is None for target in targets):
            own.add(local)
        elif (package or local in listed) and targets[-1].startswith("torch."):
            names[local] = targets[-1]
    return (star, frozenset(own), names) if star or names else None
