"""Rules dist-nn-functional, torchcomms-p2p and torchcomms-one-device: torch.distributed's collectives under
torch.compile, point-to-point ops in flight together, and process groups over several devices."""

import ast
from typing import Any

from torch_upgrade_scan.catalog import DEPRECATED_DIST_NN, WARNS
from torch_upgrade_scan.parse import Module, Scope, argument
from torch_upgrade_scan.rules.compiler import Compiled
from torch_upgrade_scan.rules.context import Context
from torch_upgrade_scan.strings import helper_called, returned_texts, string_value

FUNCOL = {
    "all_reduce": "funcol.all_reduce(t, 'sum', group)",
    "broadcast": "funcol.all_reduce(t * (dist.get_rank() == src), 'sum', group)",
    # from 2.13 the *_tensor names warn (FutureWarning) in eager mode; 2.12 has only those
    "all_gather": "funcol.all_gather_single_autograd(t, 0, group) from 2.13, "
    "funcol.all_gather_tensor_autograd (the same arguments, which warns in eager mode from 2.13) on 2.12 (one "
    "tensor: the list concatenated along dim 0)",
    "reduce_scatter": "funcol.reduce_scatter_single_autograd(t, 'sum', 0, group) from 2.13, "
    "funcol.reduce_scatter_tensor_autograd (the same arguments, which warns in eager mode from 2.13) on 2.12",
    "all_to_all_single": "funcol.all_to_all_single_autograd(t, None, None, group)",
}
FUNCOL_NOTES = {  # where the obvious replacement is wrong
    "broadcast": "it keeps the gradients of dist.nn's broadcast (their sum at src, "
    "zero elsewhere; t must be finite). 2.12's funcol.broadcast has no autograd "
    "kernel: backward warns and gives each rank its own gradient, so use "
    "funcol.broadcast(t, src, group) only where no gradient flows",
}
DIST_NN_OPS = {*FUNCOL, "all_to_all", "gather", "scatter", "reduce"}
NAMES = {  # dotted name -> the collective
    **{f"torch.distributed.nn.{op}": op for op in DIST_NN_OPS},
    **{f"torch.distributed.nn.functional.{op}": op for op in DIST_NN_OPS},
}


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



def multi_device_helpers(module: Module) -> dict:
    """The functions of this module that can return a backend string for several devices: name -> that text."""
    helpers = returned_texts(module).items()
    return {name: several[0] for name, texts in helpers if (several := [t for t in texts if "," in t])}


def inside(scope: Scope | None, functions: set) -> bool:
    """Whether a scope is (in) the body of a function of these names."""
    while scope is not None:
        if scope.kind == "function" and scope.name in functions:
            return True
        scope = scope.parent
    return False


def fullgraph_functions(module: Module, compiles: list[Compiled]) -> set | None:
    """The names of this module's functions that run under torch.compile(fullgraph=True): the ones compiled (by
    name, `torch.compile(step, fullgraph=True)`, or decorated) and the ones they call by name, at any depth. None
    where a compile's target is not a function of this module (a model object, whose forward may be anywhere):
    then every collective of the module may run under it."""
    traced = set()
    for compiled in compiles:
        name = (compiled.module or compiled.result or "").rpartition(".")[2]
        if not compiled.wraps or name not in module.functions:
            return None
        traced.add(name)
    while True:
        called = {
            call.func.id
            for _, call, scope in module.calls
            if type(call.func) is ast.Name and call.func.id in module.functions and inside(scope, traced)
        }
        if called <= traced:
            return traced
        traced |= called


def find(found: Context, compiles: list[Compiled], compiled_elsewhere: bool = False) -> None:
    """`compiles`: the module's compiles with fullgraph=True, under which every dist.nn collective raises;
    eagerly, or under torch.compile without fullgraph (a graph break), the deprecated ones warn and the others run.
    `compiled_elsewhere`: another piece of the module may compile so (every collective is reported as breaking).
    A process group whose backend comes from a function defined elsewhere goes to `found.via_helpers` (unit,
    call, function name)."""
    module, emit = found.module, found.emit
    traced: set | None = set()
    scopes: dict = {}
    for unit, node, name, op in found.named(NAMES):
        if not scopes:  # the first collective: what runs under fullgraph=True, and where each name is read
            traced = None if compiled_elsewhere else fullgraph_functions(module, compiles)
            scopes = {id(chain): scope for _, chain, scope in module.chains}
        fix = dist_nn_fix(op, found.called.get(id(node)))
        if traced is None or inside(scopes.get(id(node)), traced):
            emit(unit, node, "dist-nn-functional", name, fix)
        elif op in DEPRECATED_DIST_NN:
            emit(unit, node, "dist-nn-functional", name, fix, WARNS)
    point_to_point: list = []  # (unit, isend or irecv call, scope)
    for unit, node, scope in module.calls:
        name = found.names.get(id(node.func)) or ""
        if name == "torch.distributed.isend" or name == "torch.distributed.irecv":
            point_to_point.append((unit, node, scope))
        if name == "torch.distributed.init_process_group":
            keywords = {k.arg: k.value for k in node.keywords}
            backend = node.args[0] if node.args else keywords.get("backend")
            value = string_value(backend, module, scope, unit) if backend else None
            if value is not None and "," in value:
                emit(unit, node, "torchcomms-one-device", f"backend={value!r}", "")
            elif value is None and backend is not None:  # a helper of another file may return it
                helper = helper_called(backend, module, scope, unit)
                if helper:
                    found.via_helpers.append((unit, node, helper))
    for unit, node, scope in point_to_point:
        if concurrent_p2p(unit, node, scope, point_to_point, module):
            emit(unit, node, "torchcomms-p2p", found.names[id(node)].rpartition(".")[2], "")
