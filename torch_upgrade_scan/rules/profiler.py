"""Rule metadata-json: FunctionEvent.metadata_json read in a module that uses the profiler (and does not define
a metadata_json of its own)."""

import ast

from torch_upgrade_scan.rules.context import Context

PROFILER = ("torch.profiler", "torch.autograd.profiler", "torch.autograd.profiler_util")


def find(found: Context) -> None:
    module, emit = found.module, found.emit
    uses_profiler = any(name.startswith(PROFILER) for name in found.names.values())
    own_json = any(node.attr == "metadata_json" for _, node, _ in module.stores)
    if not uses_profiler or own_json:
        return
    for unit, node, _ in module.calls:
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "getattr") and not (
            isinstance(func, ast.Name) and func.id == "getattr"
        ):
            continue
        if len(node.args) > 1 and getattr(node.args[1], "value", None) == "metadata_json":
            emit(unit, node, "metadata-json", 'getattr(..., "metadata_json")', "")
    for unit, node, _ in module.chains:
        receivers = [node]
        while isinstance(receivers[-1], ast.Attribute):
            receivers.append(receivers[-1].value)
        for attribute in receivers[:-1]:
            if attribute.attr == "metadata_json" and not (
                isinstance(attribute.value, ast.Name) and attribute.value.id in ("self", "cls")
            ):
                emit(unit, attribute, "metadata-json", ".metadata_json", "")
