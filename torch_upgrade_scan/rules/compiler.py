"""Rules fsdp2-fullgraph and fullgraph-no-frames: torch.compile(fullgraph=True) of a module that FSDP2 shards,
and a fullgraph compile that runs no compiled frame (Dynamo turned off, or called under a TorchDispatchMode)."""

import ast
import dataclasses
from typing import Any

from torch_upgrade_scan.parse import Module, Scope, module_text, position_of
from torch_upgrade_scan.rules.context import Context
from torch_upgrade_scan.strings import string_value

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



def find(found: Context) -> list[Compiled]:
    """Report the two rules; return every compile with fullgraph=True (the dist.nn rule needs to know)."""
    module, names, emit = found.module, found.names, found.emit
    dispatch_modes = {  # the classes of this module that are TorchDispatchModes
        node.name
        for _, node, _ in module.bases
        if any(names.get(id(base)) == DISPATCH_MODE for base in node.bases)
    }
    stance_off: set = set()  # scopes that turn Dynamo off (config.disable, force_eager)
    for _, node, scope in module.stores:
        if names.get(id(node)) == DYNAMO_DISABLE:
            stance_off.add(scope)
    compiles: list = []  # Compiled: torch.compile and module.compile, fullgraph=True
    shards: list = []  # (scope, position, text of the module) for each fully_shard call
    for unit, node, scope in module.calls:
        name = names.get(id(node.func)) or ""
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if name in FSDP2 and node.args and module_text(node.args[0]):
            shards.append((scope, position_of(unit, node), module_text(node.args[0])))
        if name == STANCE and node.args:
            if string_value(node.args[0], module, scope, unit) == "force_eager":
                stance_off.add(scope)
        fullgraph = {k.arg: k.value for k in node.keywords}.get("fullgraph")
        if isinstance(fullgraph, ast.Constant) and fullgraph.value is True:
            compiled = compiled_object(unit, node, scope, name, attr, found.bound, module)
            if compiled:
                compiles.append(compiled)
    for compiled in compiles:
        if compiled.wraps and sharded_under_wrapper(compiled, shards):
            emit(compiled.unit, compiled.node, "fsdp2-fullgraph", "torch.compile(fullgraph=True)", "")
        elif compiled.scope in stance_off or module.root in stance_off:
            detail = "torch.compile(fullgraph=True) with Dynamo turned off"
            emit(compiled.unit, compiled.node, "fullgraph-no-frames", detail, "")
        elif runs_under_mode(compiled, module, dispatch_modes):
            detail = "torch.compile(fullgraph=True) called under a TorchDispatchMode"
            emit(compiled.unit, compiled.node, "fullgraph-no-frames", detail, "")
    return compiles
