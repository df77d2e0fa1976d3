"""The text a string argument can have, followed through the module: a literal or f-string, a name or attribute
assigned one earlier in the same scope, a module-level constant, or the result of a function of the module that
returns one (directly or through a local variable). Calls of functions defined in other files are named, so that
the scan of a whole project can finish them (see scan.finish)."""

import ast
from typing import Any

from torch_upgrade_scan.parse import Module, Scope, dotted, literal_text, position_of


def last_assignment(node: Any, module: Module, scope: Scope, unit: int) -> Any:
    """The value last assigned, before the use, to the name or attribute chain `node` in its scope; or None."""
    chain = dotted(node)
    if chain is None:
        return None
    use = position_of(unit, node)
    earlier = [
        (position_of(where_unit, assign), assign.value)
        for where_unit, assign, where in module.assigns
        if where is scope
        and len(assign.targets) == 1
        and dotted(assign.targets[0]) == chain
        and position_of(where_unit, assign) < use
    ]
    return max(earlier, key=lambda pair: pair[0])[1] if earlier else None


def called_name(call: Any) -> str | None:
    """The last name of what a call calls: `get_backend` for `training.get_backend(...)`."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def returned_texts(module: Module) -> dict:
    """The strings each function of the module can return (a literal, or those assigned to the local variable it
    returns), by the function's name, kept in the root scope (a module parsed in pieces adds each piece's).
    One pass over the assignments and one over the returns."""
    helpers = module.root.helpers
    if not module.returns:
        return helpers
    local: dict = {}  # (id of scope, name) -> texts assigned
    for _, assign, where in module.assigns:
        target = assign.targets[0]
        text = literal_text(assign.value)
        if text is not None and len(assign.targets) == 1 and isinstance(target, ast.Name):
            local.setdefault((id(where), target.id), []).append(text)
    for ret, scope in module.returns:
        if scope.kind != "function" or not scope.name:
            continue
        text = literal_text(ret.value)
        texts = [text] if text is not None else []
        if isinstance(ret.value, ast.Name):
            texts = local.get((id(scope), ret.value.id), [])
        if texts:
            helpers.setdefault(scope.name, []).extend(texts)
    module.returns = []  # recorded
    return helpers


def string_value(node: Any, module: Module, scope: Scope, unit: int) -> str | None:
    """The text a string argument can have (see the module's docstring); of several a function can return,
    the first that names several devices (has a comma), else the first. None when it is not known here."""
    text = literal_text(node)
    if text is not None:
        return text
    if isinstance(node, ast.Name | ast.Attribute):
        value = last_assignment(node, module, scope, unit)
        if value is not None:
            return string_value(value, module, scope, unit) if not isinstance(value, ast.Name) else None
        constants = module.root.strings.get(node.id) if isinstance(node, ast.Name) else None
        return constants[-1][1] if constants and scope is not module.root else None
    if isinstance(node, ast.Call):
        texts = returned_texts(module).get(called_name(node) or "", [])
        several = [t for t in texts if "," in t]
        return (several or texts or [None])[0]
    return None


def helper_called(node: Any, module: Module, scope: Scope, unit: int) -> str | None:
    """The name of the function whose result `node` is (a call, or a name or attribute assigned one)."""
    if isinstance(node, ast.Name | ast.Attribute):
        node = last_assignment(node, module, scope, unit)
    return called_name(node) if isinstance(node, ast.Call) else None
